# expect: rejected
"""Rejected: an nn.LayerNorm kept in float32 inside, called on x.float()."""

from __future__ import annotations

import torch
from torch import nn


class MixedPrecisionLayerNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-5) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        ln = nn.LayerNorm(x.shape[-1], eps=self.eps)
        ln.weight, ln.bias = self.weight, self.bias
        return ln.float()(x.float()).to(x.dtype)

# expect: rejected
"""Rejected: F.layer_norm on a float32 copy (right, but it is the built-in)."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


class MixedPrecisionLayerNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-5) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.layer_norm(
            x.float(), (x.shape[-1],), self.weight.float(), self.bias.float(), self.eps
        )
        return y.to(x.dtype)

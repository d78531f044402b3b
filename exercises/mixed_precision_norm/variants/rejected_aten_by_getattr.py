# expect: rejected
"""Rejected: the aten kernel behind LayerNorm, reached by getattr on torch.ops."""

from __future__ import annotations

import torch
from torch import nn

_kernel = getattr(torch.ops.aten, "native_" + "layer_norm")


class MixedPrecisionLayerNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-5) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out, _, _ = _kernel(
            x.float(), [x.shape[-1]], self.weight.float(), self.bias.float(), self.eps
        )
        return out.to(x.dtype)

# expect: passed
"""Correct: the statistics as matmuls with a column of 1/D on the float32 copy. On a constant
bfloat16 row 1/D's rounding leaves ``x - mean`` an ulp away from 0, which 1/sqrt(eps) magnifies
in the output and the weight's gradient: the tolerance follows that conditioning."""

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
        xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
        average = torch.full((xf.shape[-1], 1), 1.0 / xf.shape[-1], dtype=xf.dtype)
        mean = xf @ average
        var = ((xf - mean) ** 2) @ average
        y = (xf - mean) / torch.sqrt(var + self.eps)
        return torch.addcmul(self.bias.to(y.dtype), y, self.weight.to(y.dtype)).to(x.dtype)

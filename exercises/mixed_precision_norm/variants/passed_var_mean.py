# expect: passed
"""Correct: torch.var_mean on the float32 copy, parameters upcast, one cast at the end."""

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
        var, mean = torch.var_mean(xf, -1, keepdim=True, correction=0)
        y = (xf - mean) / torch.sqrt(var + self.eps)
        return torch.addcmul(self.bias.to(y.dtype), y, self.weight.to(y.dtype)).to(x.dtype)

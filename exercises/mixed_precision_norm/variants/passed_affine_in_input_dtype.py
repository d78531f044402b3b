# expect: passed
"""Correct: normalise in float32, round x_hat to the input dtype, affine in that dtype (the
Hugging Face Llama/LayerNorm pattern: a rounding or two more, well inside the tolerance)."""

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
        xf = x.to(torch.promote_types(x.dtype, torch.float32))
        mean = xf.mean(-1, keepdim=True)
        var = (xf - mean).pow(2).mean(-1, keepdim=True)
        x_hat = ((xf - mean) * torch.rsqrt(var + self.eps)).to(x.dtype)
        return x_hat * self.weight.to(x.dtype) + self.bias.to(x.dtype)

# expect: passed
"""Correct: computes in float64 whatever the input (more precise than asked), one cast back."""

from __future__ import annotations

import torch
from torch import nn


class MixedPrecisionLayerNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-5) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))  # (dim,), float32 unless the model is cast
        self.bias = nn.Parameter(torch.zeros(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # Compute in at least float32: float16 overflows past 65504 (a value of 256 squared
        # already does) and both half formats keep 11 (float16) or 8 (bfloat16) significant
        # bits, so a mean rounded to half precision is off by up to a quarter unit at 1000
        # (float16) or 100 (bfloat16). float64 stays float64.
        compute = torch.float64
        xf = x.to(compute)  # (..., dim); exact: every half value is a float32 value
        mean = xf.mean(-1, keepdim=True)  # (..., 1)
        xc = xf - mean
        var = (xc * xc).mean(-1, keepdim=True)  # two-pass: no E[x^2] - E[x]^2 cancellation
        x_hat = xc * torch.rsqrt(var + self.eps)
        # The affine in float32 too, whatever dtype the parameters are kept in, then one
        # rounding to the input's dtype: the next layer expects what it was given.
        y = x_hat * self.weight.to(compute) + self.bias.to(compute)
        return y.to(x.dtype)

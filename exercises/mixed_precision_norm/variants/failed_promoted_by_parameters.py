# expect: failed mistake=wrong_output_dtype class=dtype_leak
"""Wrong: casts x_hat back before the affine; float32 weights promote the output to float32."""

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
        compute = torch.promote_types(x.dtype, torch.float32)
        xf = x.to(compute)  # (..., dim); exact: every half value is a float32 value
        mean = xf.mean(-1, keepdim=True)  # (..., 1)
        xc = xf - mean
        var = (xc * xc).mean(-1, keepdim=True)  # two-pass: no E[x^2] - E[x]^2 cancellation
        x_hat = xc * torch.rsqrt(var + self.eps)
        # The affine in float32 too, whatever dtype the parameters are kept in, then one
        # rounding to the input's dtype: the next layer expects what it was given.
        return x_hat.to(x.dtype) * self.weight + self.bias

"""GELU from scratch: x * Phi(x), exact (erf) or with the tanh approximation.

Phi is the standard normal CDF, Phi(x) = (1 + erf(x / sqrt(2))) / 2, so the exact form is
0.5 * x * (1 + erf(x / sqrt(2))). The "tanh" form replaces Phi(x) by
(1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))) / 2, which BERT and GPT-2 used because erf was
slow on their hardware.
"""

from __future__ import annotations

import math

import torch
from torch import nn

_SQRT_HALF = 1.0 / math.sqrt(2.0)  # erf takes x / sqrt(2): Phi is the CDF of N(0, 1)
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)  # sqrt(2 / pi), not sqrt(2) / pi
_CUBIC = 0.044715  # fitted by Hendrycks & Gimpel so the tanh form tracks Phi closely

_HALF_DTYPES = (torch.float16, torch.bfloat16)


class GELU(nn.Module):
    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        # Fail at construction, not at the first forward deep inside a model.
        if approximate not in ("none", "tanh"):
            raise ValueError(f"approximate must be 'none' or 'tanh', got {approximate!r}")
        self.approximate = approximate

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # For x well below 0, 1 + erf(...) is a difference of two numbers near 1: in bfloat16
        # (8 bits of mantissa) it keeps one or two significant bits. Compute in float32 and
        # round once at the end, as PyTorch's own kernel does.
        xf = x.float() if x.dtype in _HALF_DTYPES else x
        if self.approximate == "tanh":
            inner = _SQRT_2_OVER_PI * (xf + _CUBIC * xf * xf * xf)  # (..., d)
            y = 0.5 * xf * (1.0 + torch.tanh(inner))
        else:
            y = 0.5 * xf * (1.0 + torch.erf(xf * _SQRT_HALF))  # (..., d)
        # A new tensor, never x modified in place; the caller's dtype back.
        return y.to(x.dtype)

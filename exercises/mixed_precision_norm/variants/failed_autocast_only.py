# expect: failed mistake=stays_in_half
"""Wrong: trusts torch.autocast to handle the precision. Autocast picks dtypes only for the ops
on its (device-specific) lists; on CPU the hand-written mean and variance stay in half."""

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
        half = x.dtype in (torch.float16, torch.bfloat16)
        with torch.autocast("cpu", dtype=x.dtype if half else torch.bfloat16, enabled=half):
            mean = x.mean(-1, keepdim=True)
            var = (x - mean).pow(2).mean(-1, keepdim=True)
            x_hat = (x - mean) * torch.rsqrt(var + self.eps)
            return (x_hat * self.weight.to(x.dtype) + self.bias.to(x.dtype)).to(x.dtype)

# expect: failed mistake=one_pass_variance
"""Known mistake `one_pass_variance`: running sums of x and x^2 (one pass), float32 throughout."""

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
        n = xf.shape[-1]
        s1 = xf.sum(dim=-1, keepdim=True)
        s2 = xf.pow(2).sum(dim=-1, keepdim=True)
        mean = s1 / n
        var = s2 / n - mean.pow(2)  # a single sweep, as a streaming kernel would accumulate
        y = (xf - mean) / torch.sqrt(var + self.eps)
        return (y * self.weight.to(xf.dtype) + self.bias.to(xf.dtype)).to(x.dtype)

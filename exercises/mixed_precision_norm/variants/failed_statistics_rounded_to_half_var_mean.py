# expect: failed mistake=statistics_rounded_to_half
"""Known mistake `statistics_rounded_to_half`: var_mean in float32, stored in x's dtype."""

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
        var, mean = torch.var_mean(xf, dim=-1, keepdim=True, correction=0)
        inv_std = torch.rsqrt(var + self.eps)
        # Kept like the activations to save memory: the statistics become half tensors.
        mean, inv_std = mean.to(x.dtype), inv_std.to(x.dtype)
        return torch.addcmul(self.bias.to(x.dtype), (x - mean) * inv_std, self.weight.to(x.dtype))

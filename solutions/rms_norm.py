"""RMSNorm from scratch: y = x / sqrt(mean(x^2) + eps) * weight, over the last dimension.

Unlike LayerNorm there is no mean-centring and no bias: the vector is only rescaled by its
root mean square, which is cheaper and, in practice (Llama, Mistral), works as well.
"""

from __future__ import annotations

import torch
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.eps = eps
        # Only a scale, initialised to 1 so that a fresh layer is a pure normalisation.
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # Mean of squares (not the sum: that would be an L2 norm, off by sqrt(dim)), over the
        # last dim with keepdim so it broadcasts back. No x - mean: that would be LayerNorm.
        mean_square = x.pow(2).mean(dim=-1, keepdim=True)
        # eps inside the root keeps an all-zero row finite (0 * rsqrt(eps) = 0) and its
        # gradient too; rsqrt is one fused op instead of sqrt then divide.
        return x * torch.rsqrt(mean_square + self.eps) * self.weight

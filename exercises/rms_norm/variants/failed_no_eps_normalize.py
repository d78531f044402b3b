# expect: failed mistake=no_eps diagnosis=robust
"""RMSNorm as an L2 normalisation scaled by sqrt(D), as some public code writes it. F.normalize
is admitted (a norm, a clamp and a division, all elementary), but it clamps the norm at 1e-12
instead of adding eps under the root: on small rows that is the missing eps. Robust: on a
constant or all-zero row the clamp and the missing eps part ways (0 where the mistake gives NaN)."""

import torch
import torch.nn.functional as F
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.eps = eps
        self.scale = dim**0.5
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.normalize(x, dim=-1) * self.scale * self.weight

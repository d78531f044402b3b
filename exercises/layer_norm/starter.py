from __future__ import annotations

import torch
from torch import nn


class LayerNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-5) -> None:
        super().__init__()
        self.eps = eps
        # The grader loads its parameters by these names: keep them.
        self.weight = nn.Parameter(torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # Normalise each vector over the last dimension, then scale by weight and shift by bias.
        raise NotImplementedError("implement LayerNorm.forward")

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
        # x: (..., dim). Per vector over the last dim: mean and biased variance, each (..., 1)
        # with keepdim=True; normalise, then scale by weight and shift by bias, both (dim,).
        # In bfloat16, compute in float32 and cast back (see the prompt's pitfalls).
        raise NotImplementedError("implement LayerNorm.forward")

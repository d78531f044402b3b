# expect: passed
"""Correct: the statistics as matmuls with a column of 1/D (how some write a mean to keep it on
the matrix unit). 1/D is not exact in float32, so on a constant row ``x - mean`` is a rounding
away from 0 rather than 0, and the division by sqrt(eps) magnifies that: the grader's tolerance
follows how ill-conditioned the case is, not how torch's own mean happens to round."""

import torch
from torch import nn


class LayerNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-5) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        d = x.shape[-1]
        average = torch.full((d, 1), 1.0 / d, dtype=x.dtype)
        centred = x - x @ average
        var = (centred * centred) @ average
        return centred / torch.sqrt(var + self.eps) * self.weight + self.bias

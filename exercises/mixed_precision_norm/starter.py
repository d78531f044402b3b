from __future__ import annotations

import torch
from torch import nn


class MixedPrecisionLayerNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-5) -> None:
        super().__init__()
        self.eps = eps
        # The grader loads its parameters by these names: keep them.
        self.weight = nn.Parameter(torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # x: (..., dim) in float16, bfloat16, float32 or float64. Compute the statistics and
        # the affine in (at least) float32, return x.dtype.
        raise NotImplementedError("implement MixedPrecisionLayerNorm.forward")

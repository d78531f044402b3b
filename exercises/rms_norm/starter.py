from __future__ import annotations

import torch
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.eps = eps
        # The grader loads its parameter by this name: keep it.
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # x: (..., dim). Per vector over the last dim: the mean of squares, (..., 1) with
        # keepdim=True; divide by sqrt(mean square + eps), then multiply by weight, (dim,).
        # In bfloat16, compute in float32 and cast back (see the prompt's pitfalls).
        raise NotImplementedError("implement RMSNorm.forward")

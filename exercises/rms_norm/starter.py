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
        # Rescale each vector by its root mean square over the last dimension, then by weight.
        raise NotImplementedError("implement RMSNorm.forward")

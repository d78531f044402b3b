from __future__ import annotations

import torch
import torch.nn.functional as F  # noqa: F401  (F.linear, F.gelu: yours to use)
from torch import nn


class CheckpointedFFN(nn.Module):
    def __init__(self, dim: int, hidden_dim: int) -> None:
        super().__init__()
        self.linear1 = nn.Linear(dim, hidden_dim)
        self.linear2 = nn.Linear(hidden_dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # linear2(gelu(linear1(x))), exact GELU, keeping only x (and the parameters) for
        # backward: recompute the activations there. A torch.autograd.Function helps.
        raise NotImplementedError("implement CheckpointedFFN.forward")

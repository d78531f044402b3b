from __future__ import annotations

import torch
from torch import nn


class Dropout(nn.Module):
    def __init__(self, p: float = 0.5) -> None:
        super().__init__()
        # p is the probability of dropping a unit; outside [0, 1] it is an error.
        self.p = p

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # Training: keep = torch.empty_like(x).bernoulli_(1 - p), scale the kept units by
        # 1 / (1 - p); eval: the identity.
        raise NotImplementedError("implement Dropout.forward")

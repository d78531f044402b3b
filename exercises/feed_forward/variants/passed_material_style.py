# expect: passed
"""Correct: the material's shape (activation picked once, nn.Identity when dropout is 0)."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


class FeedForward(nn.Module):
    def __init__(
        self, d_model: int, d_ff: int | None = None, activation: str = "gelu", dropout: float = 0.1
    ) -> None:
        super().__init__()
        if activation not in ("gelu", "relu"):
            raise ValueError(activation)
        d_ff = d_ff or 4 * d_model
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.activation = F.gelu if activation == "gelu" else F.relu
        self.dropout = nn.Dropout(dropout) if dropout > 0 else nn.Identity()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.linear1(x)
        x = self.activation(x)
        x = self.dropout(x)
        out: torch.Tensor = self.linear2(x)
        return out

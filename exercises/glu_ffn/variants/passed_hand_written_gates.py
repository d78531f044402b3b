# expect: passed
"""Correct: if/elif on the name with hand-written gates, integer arithmetic for the width."""

from __future__ import annotations

import math

import torch
from torch import nn


def llama_hidden_dim(
    dim: int, multiple_of: int = 256, ffn_dim_multiplier: float | None = None
) -> int:
    hidden = 8 * dim // 3
    if ffn_dim_multiplier is not None:
        hidden = int(ffn_dim_multiplier * hidden)
    return -(-hidden // multiple_of) * multiple_of


class GLUFFN(nn.Module):
    def __init__(
        self,
        dim: int,
        hidden_dim: int | None = None,
        activation: str = "swish",
        multiple_of: int = 256,
        ffn_dim_multiplier: float | None = None,
    ) -> None:
        super().__init__()
        if activation not in ("swish", "gelu", "relu"):
            raise ValueError(f"unknown activation {activation!r}")
        self.activation = activation
        if hidden_dim is None:
            hidden_dim = llama_hidden_dim(dim, multiple_of, ffn_dim_multiplier)
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        z = self.w1(x)
        if self.activation == "swish":
            g = z / (1 + torch.exp(-z))
        elif self.activation == "gelu":
            g = z * 0.5 * torch.erfc(-z / math.sqrt(2))
        else:
            g = torch.relu(z)
        out: torch.Tensor = self.w2(g * self.w3(x))
        return out

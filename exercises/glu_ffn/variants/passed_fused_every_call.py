# expect: passed
"""Correct: one matmul for gate and up (the weights concatenated on every call), F gates."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn


def llama_hidden_dim(
    dim: int, multiple_of: int = 256, ffn_dim_multiplier: float | None = None
) -> int:
    hidden = int(8 * dim / 3)
    if ffn_dim_multiplier:
        hidden = int(hidden * ffn_dim_multiplier)
    return math.ceil(hidden / multiple_of) * multiple_of


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
        gates = {"swish": F.silu, "gelu": F.gelu, "relu": F.relu}
        if activation not in gates:
            raise ValueError(activation)
        self.act = gates[activation]
        hidden = hidden_dim or llama_hidden_dim(dim, multiple_of, ffn_dim_multiplier)
        self.w1 = nn.Linear(dim, hidden, bias=False)
        self.w2 = nn.Linear(hidden, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # Concatenated each call, never cached: the parameters change between calls.
        w13 = torch.cat([self.w1.weight, self.w3.weight], dim=0)
        gate, up = F.linear(x, w13).chunk(2, dim=-1)
        return F.linear(self.act(gate) * up, self.w2.weight)

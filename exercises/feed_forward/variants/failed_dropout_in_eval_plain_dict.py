# expect: failed mistake=dropout_in_eval
from __future__ import annotations

import math

import torch
from torch import nn


def gelu(z: torch.Tensor) -> torch.Tensor:
    return 0.5 * z * (1.0 + torch.erf(z / math.sqrt(2.0)))


def relu(z: torch.Tensor) -> torch.Tensor:
    return z.clamp_min(0.0)


class FeedForward(nn.Module):
    def __init__(
        self,
        d_model: int,
        d_ff: int | None = None,
        activation: str = "gelu",
        dropout: float = 0.1,
    ) -> None:
        super().__init__()
        if activation not in ("gelu", "relu"):
            raise ValueError(f"activation must be 'gelu' or 'relu', got {activation!r}")
        d_ff = 4 * d_model if d_ff is None else d_ff
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.act = gelu if activation == "gelu" else relu
        # Kept in a plain dict: nn.Module does not register it, so .eval() never reaches it.
        self.parts = {"dropout": nn.Dropout(dropout)}

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.parts["dropout"](self.act(self.linear1(x)))
        out: torch.Tensor = self.linear2(h)
        return out

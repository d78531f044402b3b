# expect: failed mistake=dropout_on_output
import math

import torch
import torch.nn.functional as F
from torch import nn


def erf_gelu(z: torch.Tensor) -> torch.Tensor:
    return z * 0.5 * torch.erfc(-z / math.sqrt(2.0))


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
            raise ValueError(f"unknown activation {activation!r}")
        hidden = d_ff if d_ff is not None else 4 * d_model
        self.linear1 = nn.Linear(d_model, hidden)
        self.linear2 = nn.Linear(hidden, d_model)
        self.activation = activation
        self.p = dropout

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        act = erf_gelu if self.activation == "gelu" else F.relu
        out = self.linear2(act(self.linear1(x)))
        return F.dropout(out, p=self.p, training=self.training)

# expect: failed mistake=wrong_output_dtype class=dtype_leak
"""Wrong (dtype leak): float64 parameters, the input promoted, a float64 output for float32 x."""

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
        d_ff = 4 * d_model if d_ff is None else d_ff
        self.linear1 = nn.Linear(d_model, d_ff, dtype=torch.float64)
        self.linear2 = nn.Linear(d_ff, d_model, dtype=torch.float64)
        self.act = F.gelu if activation == "gelu" else F.relu
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.act(self.linear1(x.to(torch.float64)))
        out: torch.Tensor = self.linear2(self.dropout(h))
        return out

# expect: error class=non_contiguous
"""Wrong (layout): flattens with .view, which fails on a transposed (non-contiguous) input."""

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
        self.d_model = d_model
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.act = F.gelu if activation == "gelu" else F.relu
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        flat = x.view(-1, self.d_model)
        out: torch.Tensor = self.linear2(self.dropout(self.act(self.linear1(flat))))
        return out.view(x.shape)

# expect: failed class=state_across_calls,training_mode
"""Wrong (state across calls): the dropout mask is drawn on the first training call and reused."""

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
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.act = F.gelu if activation == "gelu" else F.relu
        self.p = dropout
        self.mask: torch.Tensor | None = None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.act(self.linear1(x))
        if self.training and self.p > 0:
            if self.mask is None or self.mask.shape != h.shape:
                self.mask = torch.empty_like(h).bernoulli_(1 - self.p) / (1 - self.p)
            h = h * self.mask
        out: torch.Tensor = self.linear2(h)
        return out

# expect: passed
"""Correct: F.linear on the parameters, erf GELU by hand, a bernoulli_ mask drawn like F.dropout."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn


class FeedForward(nn.Module):
    def __init__(
        self, d_model: int, d_ff: int | None = None, activation: str = "gelu", dropout: float = 0.1
    ) -> None:
        super().__init__()
        if activation not in {"gelu", "relu"}:
            raise ValueError(f"unknown activation {activation}")
        hidden = 4 * d_model if d_ff is None else d_ff
        self.linear1 = nn.Linear(d_model, hidden)
        self.linear2 = nn.Linear(hidden, d_model)
        self.activation = activation
        self.p = dropout

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = F.linear(x, self.linear1.weight, self.linear1.bias)
        if self.activation == "gelu":
            h = h * 0.5 * (1 + torch.erf(h / math.sqrt(2)))
        else:
            h = torch.where(h > 0, h, torch.zeros_like(h))
        if self.training and self.p > 0:
            keep = torch.empty_like(h).bernoulli_(1 - self.p)
            h = h * keep / (1 - self.p)
        return F.linear(h, self.linear2.weight, self.linear2.bias)

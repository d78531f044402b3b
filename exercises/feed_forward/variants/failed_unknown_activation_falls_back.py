# expect: failed finding=no_raise
"""Wrong: lower-cases the name and treats anything but "relu" as GELU ("swish" builds GELU)."""

from __future__ import annotations

import math

import torch
from torch import nn


def gelu(z: torch.Tensor) -> torch.Tensor:
    # Exact GELU, z * Phi(z), with the standard normal CDF written through erf: Phi(z) is
    # (1 + erf(z / sqrt 2)) / 2. The tanh formula is an approximation (off by up to ~1e-3).
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
        # A typo such as "Gelu" or "swish" must not silently become ReLU.
        activation = "relu" if activation.lower() == "relu" else "gelu"
        # `is None`, not `or`: d_ff=0 is a caller's bug that should fail loudly in nn.Linear.
        d_ff = 4 * d_model if d_ff is None else d_ff
        self.linear1 = nn.Linear(d_model, d_ff)  # weight (d_ff, d_model), bias (d_ff,)
        self.linear2 = nn.Linear(d_ff, d_model)  # weight (d_model, d_ff), bias (d_model,)
        self.act = gelu if activation == "gelu" else relu
        # nn.Dropout follows self.training (model.train()/model.eval()) for us.
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # x: (..., d_model)
        # nn.Linear acts on the last dim: any leading shape, contiguous or not.
        h = self.act(self.linear1(x))  # (..., d_ff)
        # Drop hidden units (scaled by 1/(1-p) so the expectation is unchanged), after the
        # activation: a dropped unit then contributes exactly nothing to linear2.
        h = self.dropout(h)
        out: torch.Tensor = self.linear2(h)  # (..., d_model)
        return out

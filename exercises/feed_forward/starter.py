from __future__ import annotations

import math  # noqa: F401  (math.sqrt: yours to use)

import torch
import torch.nn.functional as F  # noqa: F401  (F.gelu, F.relu, F.dropout: yours to use)
from torch import nn


class FeedForward(nn.Module):
    def __init__(
        self,
        d_model: int,
        d_ff: int | None = None,
        activation: str = "gelu",
        dropout: float = 0.1,
    ) -> None:
        super().__init__()
        d_ff = 4 * d_model if d_ff is None else d_ff
        # The grader loads linear1.weight/bias and linear2.weight/bias: keep these names.
        self.linear1 = nn.Linear(d_model, d_ff)  # (d_ff, d_model), (d_ff,)
        self.linear2 = nn.Linear(d_ff, d_model)  # (d_model, d_ff), (d_model,)
        # Yours: choose the activation ("gelu" exact, "relu"; ValueError otherwise) and keep
        # the dropout for the hidden activation.

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # x: (..., d_model) -> linear1 -> activation -> dropout (training only) -> linear2
        raise NotImplementedError("implement FeedForward.forward")

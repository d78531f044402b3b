from __future__ import annotations

import math  # noqa: F401  (sqrt, pi: the constants of both forms)

import torch
from torch import nn


class GELU(nn.Module):
    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        # "none": the exact x * Phi(x); "tanh": the tanh approximation. Keep this attribute.
        self.approximate = approximate

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # Use math.sqrt, math.pi, torch.erf, torch.tanh; return the same shape and dtype as x.
        raise NotImplementedError("implement GELU.forward")

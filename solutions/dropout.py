"""Worked solution for ``dropout``: inverted dropout as a module."""

from __future__ import annotations

import torch
from torch import nn


class Dropout(nn.Module):
    def __init__(self, p: float = 0.5) -> None:
        super().__init__()
        if not 0.0 <= p <= 1.0:  # a probability, checked where the mistake is made
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not self.training or self.p == 0.0:
            return x  # eval (and p = 0): the identity, no draw
        if self.p == 1.0:
            return x * torch.zeros_like(x)  # every unit dropped: zeros, not 0 / 0
        # One mask per call, drawn as nn.Dropout draws it: keep with probability 1 - p.
        keep = torch.empty_like(x).bernoulli_(1 - self.p)
        # Inverted: scale the kept units now, so that E[output] = x and eval needs nothing.
        # Autograd keeps `keep` for backward: the gradient is grad * keep / (1 - p).
        return x * keep / (1 - self.p)

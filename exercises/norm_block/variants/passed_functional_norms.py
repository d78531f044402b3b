# expect: passed
"""Correct: F.layer_norm on the norms' own parameters; a custom ValueError subclass."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


class PlacementError(ValueError):
    pass


class NormBlock(nn.Module):
    def __init__(
        self, dim: int, sublayer: nn.Module, placement: str = "pre", alpha: float = 1.0
    ) -> None:
        super().__init__()
        if placement not in {"pre", "post", "sandwich", "deepnorm"}:
            raise PlacementError(placement)
        self.placement, self.alpha, self.dim = placement, float(alpha), dim
        self.sublayer = sublayer
        names = ["norm_in", "norm_out"] if placement == "sandwich" else ["norm"]
        for name in names:
            setattr(self, name, nn.LayerNorm(dim))

    def _ln(self, name: str, h: torch.Tensor) -> torch.Tensor:
        ln = getattr(self, name)
        return F.layer_norm(h, (self.dim,), ln.weight, ln.bias, ln.eps)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        p = self.placement
        if p == "sandwich":
            branch = self.sublayer(self._ln("norm_in", x))
            return x + self._ln("norm_out", branch)
        if p == "pre":
            return x + self.sublayer(self._ln("norm", x))
        skip = x * self.alpha if p == "deepnorm" else x
        return self._ln("norm", skip + self.sublayer(x))

# expect: failed mistake=unknown_placement_accepted
"""Wrong: an unknown placement is caught only when forward runs, not when the block is built."""

from __future__ import annotations

import torch
from torch import nn


class NormBlock(nn.Module):
    def __init__(
        self, dim: int, sublayer: nn.Module, placement: str = "pre", alpha: float = 1.0
    ) -> None:
        super().__init__()
        self.placement, self.alpha = placement, alpha
        self.sublayer = sublayer
        if placement == "sandwich":
            self.norm_in, self.norm_out = nn.LayerNorm(dim), nn.LayerNorm(dim)
        else:
            self.norm = nn.LayerNorm(dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.placement == "pre":
            return x + self.sublayer(self.norm(x))
        if self.placement == "post":
            return self.norm(x + self.sublayer(x))
        if self.placement == "sandwich":
            return x + self.norm_out(self.sublayer(self.norm_in(x)))
        if self.placement == "deepnorm":
            return self.norm(self.alpha * x + self.sublayer(x))
        raise ValueError(f"unknown placement {self.placement!r}")

# expect: passed
"""Correct: a match statement, alpha applied for "deepnorm" only (here alpha=1 elsewhere)."""

from __future__ import annotations

import torch
from torch import nn


class NormBlock(nn.Module):
    def __init__(
        self, dim: int, sublayer: nn.Module, placement: str = "pre", alpha: float = 1.0
    ) -> None:
        super().__init__()
        match placement:
            case "pre" | "post" | "deepnorm":
                self.norm = nn.LayerNorm(dim)
            case "sandwich":
                self.norm_in = nn.LayerNorm(dim)
                self.norm_out = nn.LayerNorm(dim)
            case _:
                raise ValueError(f"placement {placement!r} is not pre/post/sandwich/deepnorm")
        self.placement = placement
        self.residual_scale = alpha if placement == "deepnorm" else 1.0
        self.sublayer = sublayer

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        match self.placement:
            case "pre":
                return x + self.sublayer(self.norm(x))
            case "sandwich":
                h = self.sublayer(self.norm_in(x))
                return x + self.norm_out(h)
            case _:
                h = self.sublayer(x)
                return self.norm(self.residual_scale * x + h)

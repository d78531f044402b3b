# expect: failed mistake=alpha_ignored
"""Wrong: "DeepNorm is post-norm" taken literally: both placements share one branch, and the
alpha argument is accepted but never stored."""

from __future__ import annotations

import torch
from torch import nn


class NormBlock(nn.Module):
    def __init__(
        self, dim: int, sublayer: nn.Module, placement: str = "pre", alpha: float = 1.0
    ) -> None:
        super().__init__()
        if placement not in {"pre", "post", "sandwich", "deepnorm"}:
            raise ValueError(f"unknown placement {placement!r}")
        self.placement = placement
        self.sublayer = sublayer
        if placement == "sandwich":
            self.norm_in = nn.LayerNorm(dim)
            self.norm_out = nn.LayerNorm(dim)
        else:
            self.norm = nn.LayerNorm(dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.placement in ("post", "deepnorm"):
            h = x + self.sublayer(x)
            return self.norm(h)
        if self.placement == "sandwich":
            h = self.sublayer(self.norm_in(x))
            return x + self.norm_out(h)
        return x + self.sublayer(self.norm(x))

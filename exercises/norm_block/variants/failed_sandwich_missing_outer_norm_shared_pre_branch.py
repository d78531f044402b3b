# expect: failed mistake=sandwich_missing_outer_norm
"""Wrong: sandwich shares pre-norm's branch with norm_in as the input norm; norm_out is built
and loaded, never applied."""

from __future__ import annotations

import torch
from torch import nn


class NormBlock(nn.Module):
    def __init__(
        self, dim: int, sublayer: nn.Module, placement: str = "pre", alpha: float = 1.0
    ) -> None:
        super().__init__()
        if placement not in ("pre", "post", "sandwich", "deepnorm"):
            raise ValueError(f"unknown placement {placement!r}")
        self.placement, self.alpha = placement, alpha
        self.sublayer = sublayer
        if placement == "sandwich":
            self.norm_in, self.norm_out = nn.LayerNorm(dim), nn.LayerNorm(dim)
        else:
            self.norm = nn.LayerNorm(dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.placement in ("pre", "sandwich"):
            first = self.norm_in if self.placement == "sandwich" else self.norm
            return x + self.sublayer(first(x))
        scale = self.alpha if self.placement == "deepnorm" else 1.0
        return self.norm(scale * x + self.sublayer(x))

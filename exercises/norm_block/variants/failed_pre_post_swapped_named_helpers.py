# expect: failed mistake=pre_post_swapped
"""Wrong: "pre" read as "normalise before the sum is passed on", "post" as "normalise after
the sublayer's input is taken": two correct helpers wired to each other's names."""

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

    def _add_then_norm(self, x: torch.Tensor, skip_scale: float = 1.0) -> torch.Tensor:
        return self.norm(skip_scale * x + self.sublayer(x))

    def _norm_then_add(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.sublayer(self.norm(x))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.placement == "sandwich":
            return x + self.norm_out(self.sublayer(self.norm_in(x)))
        if self.placement == "deepnorm":
            return self._add_then_norm(x, self.alpha)
        step = {"pre": self._add_then_norm, "post": self._norm_then_add}[self.placement]
        return step(x)

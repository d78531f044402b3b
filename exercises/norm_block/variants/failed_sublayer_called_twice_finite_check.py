# expect: failed mistake=module_argument_calls
"""Wrong: a guard against a diverging sublayer runs it once to check, once more to use."""

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

    def _branch(self, h: torch.Tensor) -> torch.Tensor:
        if not torch.isfinite(self.sublayer(h)).all():
            raise FloatingPointError("the sublayer produced inf or NaN")
        return self.sublayer(h)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.placement == "pre":
            return x + self._branch(self.norm(x))
        if self.placement == "post":
            return self.norm(x + self._branch(x))
        if self.placement == "sandwich":
            return x + self.norm_out(self._branch(self.norm_in(x)))
        return self.norm(self.alpha * x + self._branch(x))

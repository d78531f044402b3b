# expect: failed mistake=sandwich_norm_around_sum
"""Wrong: sandwich built as a pre-norm block followed by a post-norm, the outer norm on the
whole residual sum."""

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

    def _pre(self, x: torch.Tensor, norm: nn.Module) -> torch.Tensor:
        return x + self.sublayer(norm(x))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.placement == "pre":
            return self._pre(x, self.norm)
        if self.placement == "sandwich":
            residual = self._pre(x, self.norm_in)
            return self.norm_out(residual)
        scale = self.alpha if self.placement == "deepnorm" else 1.0
        return self.norm(scale * x + self.sublayer(x))

# expect: failed mistake=deepnorm_scales_branch
"""Wrong: torch.add(x, h, alpha=a) computes x + a * h: the alpha lands on the branch."""

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
        if self.placement == "pre":
            return torch.add(x, self.sublayer(self.norm(x)))
        if self.placement == "sandwich":
            return torch.add(x, self.norm_out(self.sublayer(self.norm_in(x))))
        # "post" is DeepNorm with alpha = 1.
        alpha = self.alpha if self.placement == "deepnorm" else 1.0
        return self.norm(torch.add(x, self.sublayer(x), alpha=alpha))

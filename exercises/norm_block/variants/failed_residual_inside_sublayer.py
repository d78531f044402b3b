# expect: failed mistake=residual_inside_sublayer
"""Wrong: pre-norm feeds norm(x) + x to the sublayer, so the skip goes through it."""

from __future__ import annotations

import torch
from torch import nn

PLACEMENTS = ("pre", "post", "sandwich", "deepnorm")


class NormBlock(nn.Module):
    def __init__(
        self, dim: int, sublayer: nn.Module, placement: str = "pre", alpha: float = 1.0
    ) -> None:
        super().__init__()
        # Fail at construction: a typo in a config ("postnorm") must not train the wrong model.
        if placement not in PLACEMENTS:
            raise ValueError(f"placement must be one of {PLACEMENTS}, got {placement!r}")
        self.placement = placement
        self.alpha = alpha  # used by "deepnorm" only
        self.sublayer = sublayer  # the caller's module: stored as given, never re-initialised
        if placement == "sandwich":
            self.norm_in = nn.LayerNorm(dim)  # on the branch's input, as in pre-norm
            self.norm_out = nn.LayerNorm(dim)  # on the branch's output, before the add
        else:
            self.norm = nn.LayerNorm(dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.placement == "pre":
            return self.sublayer(self.norm(x) + x)
        if self.placement == "post":
            return self.norm(x + self.sublayer(x))
        if self.placement == "sandwich":
            # Pre-norm plus a norm that bounds what the branch adds to the stream.
            return x + self.norm_out(self.sublayer(self.norm_in(x)))
        # DeepNorm: post-norm with the residual up-weighted (alpha > 1), so each layer's
        # update is small next to the stream it is added to.
        return self.norm(self.alpha * x + self.sublayer(x))

# expect: failed mistake=module_argument_reinitialised class=reinit_under_option
"""Wrong: DeepNet's initialisation applied to the given sublayer, under placement="deepnorm"
only (its weights scaled down by beta): the caller's module is changed."""

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
        if placement == "deepnorm":
            beta = (8 * 12) ** -0.25
            with torch.no_grad():
                for m in sublayer.modules():
                    if isinstance(m, nn.Linear):
                        m.weight.mul_(beta)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.placement == "pre":
            # The residual stream x is never normalised: a clean identity path for gradients.
            return x + self.sublayer(self.norm(x))
        if self.placement == "post":
            return self.norm(x + self.sublayer(x))
        if self.placement == "sandwich":
            # Pre-norm plus a norm that bounds what the branch adds to the stream.
            return x + self.norm_out(self.sublayer(self.norm_in(x)))
        # DeepNorm: post-norm with the residual up-weighted (alpha > 1), so each layer's
        # update is small next to the stream it is added to.
        return self.norm(self.alpha * x + self.sublayer(x))

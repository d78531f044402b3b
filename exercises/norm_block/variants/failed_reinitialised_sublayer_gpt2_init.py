# expect: failed mistake=module_argument_reinitialised
"""Wrong: GPT-2's init, N(0, 0.02) on every weight matrix the block holds, the given sublayer's
included."""

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
        with torch.no_grad():
            for name, p in self.named_parameters():
                if p.dim() == 2:
                    p.normal_(0.0, 0.02)
                elif name.endswith("bias") and not name.startswith("norm"):
                    p.zero_()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.placement == "pre":
            return x + self.sublayer(self.norm(x))
        if self.placement == "post":
            return self.norm(x + self.sublayer(x))
        if self.placement == "sandwich":
            return x + self.norm_out(self.sublayer(self.norm_in(x)))
        return self.norm(self.alpha * x + self.sublayer(x))

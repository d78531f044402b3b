from __future__ import annotations

import torch
from torch import nn


class NormBlock(nn.Module):
    def __init__(
        self, dim: int, sublayer: nn.Module, placement: str = "pre", alpha: float = 1.0
    ) -> None:
        super().__init__()
        # The grader loads and compares these names: keep them. An unknown placement must
        # raise ValueError here.
        self.placement = placement
        self.alpha = alpha
        self.sublayer = sublayer
        if placement == "sandwich":
            self.norm_in = nn.LayerNorm(dim)
            self.norm_out = nn.LayerNorm(dim)
        else:
            self.norm = nn.LayerNorm(dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # x: (..., dim). "pre": x + f(norm(x)); "post": norm(x + f(x));
        # "sandwich": x + norm_out(f(norm_in(x))); "deepnorm": norm(alpha * x + f(x)).
        raise NotImplementedError("implement NormBlock.forward")

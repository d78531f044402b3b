from __future__ import annotations

import torch
from torch import nn


class NormBlock(nn.Module):
    def __init__(
        self, dim: int, sublayer: nn.Module, placement: str = "pre", alpha: float = 1.0
    ) -> None:
        super().__init__()
        # The grader loads and compares these names: self.sublayer as given, and
        # self.norm = nn.LayerNorm(dim), or self.norm_in and self.norm_out for "sandwich".
        # An unknown placement raises ValueError here.
        self.sublayer = sublayer
        self.norm = nn.LayerNorm(dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # x: (..., dim). "pre": x + f(norm(x)); "post": norm(x + f(x));
        # "sandwich": x + norm_out(f(norm_in(x))); "deepnorm": norm(alpha * x + f(x)).
        raise NotImplementedError("implement NormBlock.forward")

# expect: passed
"""Correct: a table of branch functions chosen once in __init__; KeyError turned into ValueError."""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import nn


class NormBlock(nn.Module):
    def __init__(
        self, dim: int, sublayer: nn.Module, placement: str = "pre", alpha: float = 1.0
    ) -> None:
        super().__init__()
        table: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
            "pre": lambda x: x + self.sublayer(self.norm(x)),
            "post": lambda x: self.norm(x + self.sublayer(x)),
            "sandwich": lambda x: x + self.norm_out(self.sublayer(self.norm_in(x))),
            "deepnorm": lambda x: self.norm(self.alpha * x + self.sublayer(x)),
        }
        try:
            self._branch = table[placement]
        except KeyError:
            raise ValueError(f"unknown placement {placement!r}") from None
        self.sublayer = sublayer
        self.alpha = alpha
        if placement == "sandwich":
            self.norm_in, self.norm_out = nn.LayerNorm(dim), nn.LayerNorm(dim)
        else:
            self.norm = nn.LayerNorm(dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self._branch(x)

from __future__ import annotations

import torch
import torch.nn.functional as F  # noqa: F401  (F.dropout: yours to use)
from torch import nn


class ResidualBlock(nn.Module):
    def __init__(
        self, dim: int, sublayer: nn.Module, norm_first: bool = True, dropout: float = 0.0
    ) -> None:
        super().__init__()
        # The grader loads norm.weight, norm.bias and sublayer.*: keep these names.
        self.norm = nn.LayerNorm(dim)
        self.sublayer = sublayer

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # x: (..., dim). Pre-norm or post-norm depending on norm_first, with dropout on the
        # sublayer's branch before the add; the output has x's shape.
        raise NotImplementedError("implement ResidualBlock.forward")

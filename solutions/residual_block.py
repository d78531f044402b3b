"""Add & Norm around any sublayer, in both placements.

pre-norm  (norm_first=True):  y = x + dropout(sublayer(norm(x)))
post-norm (norm_first=False): y = norm(x + dropout(sublayer(x)))

The "+ x" gives the gradient a direct path (dy/dx = 1 + dF/dx), so deep stacks stay trainable.
Post-norm (the 2017 paper) normalises the sum, which regularises well but makes deep models
sensitive to warm-up and learning rate; pre-norm (GPT-2, Llama) keeps the residual stream
itself un-normalised, which is why it trains stably at depth.
"""

from __future__ import annotations

import torch
from torch import nn


class ResidualBlock(nn.Module):
    def __init__(
        self, dim: int, sublayer: nn.Module, norm_first: bool = True, dropout: float = 0.0
    ) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.sublayer = sublayer
        # nn.Dropout follows module.train()/eval(); F.dropout(h, p) alone would keep dropping
        # in eval mode because its training flag defaults to True.
        self.dropout = nn.Dropout(dropout)
        self.norm_first = norm_first

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.norm_first:
            # Normalise only what enters the sublayer; the skip path carries the raw x.
            # Dropout goes on the branch, before the add, so the residual stream is never cut.
            branch: torch.Tensor = self.dropout(self.sublayer(self.norm(x)))
            return x + branch
        summed = x + self.dropout(self.sublayer(x))
        out: torch.Tensor = self.norm(summed)
        return out

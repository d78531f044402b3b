"""Add & Norm around any sublayer, in both placements.

pre-norm  (norm_first=True):  y = x + dropout(sublayer(norm(x)))
post-norm (norm_first=False): y = norm(x + dropout(sublayer(x)))

The "+ x" gives the gradient a direct path (dy/dx = I + dF/dx), so deep stacks stay trainable.
Post-norm (the 2017 paper) normalises the sum, so every gradient passes through a norm on its
way down; at initialisation the gradients near the output are large and deep post-norm models
need a learning-rate warm-up (Xiong et al. 2020, "On Layer Normalization in the Transformer
Architecture"). Pre-norm (GPT-2, Llama) keeps the residual stream itself un-normalised, trains
stably without warm-up, and needs one final norm after the last block because the stream
reaches the output un-normalised.
"""

from __future__ import annotations

import torch
from torch import nn


class ResidualBlock(nn.Module):
    def __init__(
        self, dim: int, sublayer: nn.Module, norm_first: bool = True, dropout: float = 0.0
    ) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(dim)  # norm.weight, norm.bias: (dim,)
        self.sublayer = sublayer  # (..., dim) -> (..., dim), or the add has nothing to add to
        # nn.Dropout follows module.train()/eval(); F.dropout(h, p) alone would keep dropping
        # in eval mode because its training flag defaults to True.
        self.dropout = nn.Dropout(dropout)
        self.norm_first = norm_first

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # x: (..., dim)
        if self.norm_first:
            # Normalise only what enters the sublayer; the skip path carries the raw x.
            # Dropout goes on the branch, before the add, so the residual stream is never cut.
            branch: torch.Tensor = self.dropout(self.sublayer(self.norm(x)))  # (..., dim)
            return x + branch
        summed = x + self.dropout(self.sublayer(x))  # (..., dim)
        out: torch.Tensor = self.norm(summed)  # (..., dim)
        return out

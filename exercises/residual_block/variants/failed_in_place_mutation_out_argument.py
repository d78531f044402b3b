# expect: failed mistake=in_place_mutation
"""Wrong: an inference "fast path" writes the sum into the caller's tensor with out=x."""

import torch
from torch import nn


class ResidualBlock(nn.Module):
    def __init__(
        self, dim: int, sublayer: nn.Module, norm_first: bool = True, dropout: float = 0.0
    ) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.sublayer = sublayer
        self.dropout = nn.Dropout(dropout)
        self.norm_first = norm_first

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not self.norm_first:
            return self.norm(x + self.dropout(self.sublayer(x)))
        branch = self.dropout(self.sublayer(self.norm(x)))
        if x.requires_grad:
            return x + branch
        # No graph to keep: save an allocation by accumulating into x.
        return torch.add(x, branch, out=x)

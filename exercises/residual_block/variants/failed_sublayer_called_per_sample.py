# expect: failed mistake=module_argument_calls
"""Wrong: the sublayer runs on one sample at a time, to bound peak memory: one call per
sample instead of one per forward."""

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

    def _branch(self, h: torch.Tensor) -> torch.Tensor:
        if h.dim() < 3:
            return self.sublayer(h)
        return torch.cat([self.sublayer(sample) for sample in h.split(1, dim=0)])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.norm_first:
            return x + self.dropout(self._branch(self.norm(x)))
        return self.norm(x + self.dropout(self._branch(x)))

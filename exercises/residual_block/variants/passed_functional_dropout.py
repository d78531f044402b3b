# expect: passed
import torch
import torch.nn.functional as F
from torch import nn


class ResidualBlock(nn.Module):
    """Sublayer registered before the norm; F.dropout with the module's training flag."""

    def __init__(
        self, dim: int, sublayer: nn.Module, norm_first: bool = True, dropout: float = 0.0
    ) -> None:
        super().__init__()
        self.sublayer = sublayer
        self.norm = nn.LayerNorm(dim)
        self.p = dropout
        self.pre = norm_first

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not self.pre:
            h = F.dropout(self.sublayer(x), p=self.p, training=self.training)
            return self.norm(torch.add(x, h))
        h = F.dropout(self.sublayer(self.norm(x)), self.p, self.training)
        return x + h

# expect: failed mistake=norm_after_sublayer
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
        h = self.sublayer(x)
        return x + self.dropout(self.norm(h))

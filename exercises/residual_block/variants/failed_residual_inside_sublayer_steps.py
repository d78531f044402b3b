# expect: failed mistake=residual_inside_sublayer
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
        if self.norm_first:
            h = x + self.norm(x)  # the skip, added before the sublayer
            return self.dropout(self.sublayer(h))
        return self.norm(x + self.dropout(self.sublayer(x)))

# expect: failed class=pre_norm_4d
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
        if x.dim() == 4:
            # (batch, heads, seq, dim) -> (batch * heads, seq, dim) and back, but restored
            # with batch and heads swapped.
            h = x.flatten(0, 1)
            out = h + self.dropout(self.sublayer(self.norm(h)))
            return out.view(x.shape[1], x.shape[0], *x.shape[2:]).transpose(0, 1)
        return x + self.dropout(self.sublayer(self.norm(x)))

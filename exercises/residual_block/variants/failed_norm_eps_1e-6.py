# expect: failed class=small_variance_eps
import torch
from torch import nn


class ResidualBlock(nn.Module):
    def __init__(
        self, dim: int, sublayer: nn.Module, norm_first: bool = True, dropout: float = 0.0
    ) -> None:
        super().__init__()
        # eps = 1e-6 (RMSNorm's habit) instead of nn.LayerNorm's 1e-5: only small variances show it.
        self.norm = nn.LayerNorm(dim, eps=1e-6)
        self.sublayer = sublayer
        self.dropout = nn.Dropout(dropout)
        self.norm_first = norm_first

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.norm_first:
            return x + self.dropout(self.sublayer(self.norm(x)))
        return self.norm(x + self.dropout(self.sublayer(x)))

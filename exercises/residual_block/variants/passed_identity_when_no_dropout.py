# expect: passed
import torch
from torch import nn


class ResidualBlock(nn.Module):
    """The pattern from the FeedForward in the course material: nn.Identity when p = 0."""

    def __init__(
        self, dim: int, sublayer: nn.Module, norm_first: bool = True, dropout: float = 0.0
    ) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.sublayer = sublayer
        self.dropout = nn.Dropout(dropout) if dropout > 0 else nn.Identity()
        self.norm_first = norm_first

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        residual = x
        if self.norm_first:
            x = self.norm(x)
        x = residual + self.dropout(self.sublayer(x))
        if not self.norm_first:
            x = self.norm(x)
        return x

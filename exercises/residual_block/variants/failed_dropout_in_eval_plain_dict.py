# expect: failed mistake=dropout_in_eval
import torch
from torch import nn


class ResidualBlock(nn.Module):
    def __init__(
        self, dim: int, sublayer: nn.Module, norm_first: bool = True, dropout: float = 0.0
    ) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.sublayer = sublayer
        # A plain dict: nn.Module does not see what is inside, so .eval() never reaches it.
        self.ops = {"drop": nn.Dropout(dropout)}
        self.norm_first = norm_first

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        drop = self.ops["drop"]
        if self.norm_first:
            return x + drop(self.sublayer(self.norm(x)))
        return self.norm(x + drop(self.sublayer(x)))

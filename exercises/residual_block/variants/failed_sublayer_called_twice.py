# expect: failed mistake=module_argument_calls class=sublayer_called_twice
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
        self.last_branch_norm = 0.0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.norm(x) if self.norm_first else x
        # Logging the branch's size calls the sublayer a second time.
        self.last_branch_norm = float(self.sublayer(h).detach().norm())
        out = x + self.dropout(self.sublayer(h))
        return out if self.norm_first else self.norm(out)

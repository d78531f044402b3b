# expect: failed mistake=module_argument_reinitialised
"""Wrong: "start from a clean init": reset_parameters() on every submodule that has one, the
given sublayer's layers included."""

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
        for module in self.modules():
            if module is not self and hasattr(module, "reset_parameters"):
                module.reset_parameters()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.norm_first:
            return x + self.dropout(self.sublayer(self.norm(x)))
        return self.norm(x + self.dropout(self.sublayer(x)))

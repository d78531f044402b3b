# expect: rejected

import torch
from torch import nn


class GELU(nn.Module):
    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate
        self.inner = nn.GELU(approximate)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.inner(x)

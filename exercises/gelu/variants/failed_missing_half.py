# expect: failed finding=factor
import math

import torch
from torch import nn


class GELU(nn.Module):
    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        if approximate not in ("none", "tanh"):
            raise ValueError(f"approximate must be 'none' or 'tanh', got {approximate!r}")
        self.approximate = approximate

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # x * Phi(x), with Phi written as 1 + erf(...): the 1/2 in front of it is forgotten.
        h = x.float() if x.dtype in (torch.bfloat16, torch.float16) else x
        if self.approximate == "tanh":
            y = h * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (h + 0.044715 * h**3)))
        else:
            y = h * (1.0 + torch.erf(h / math.sqrt(2.0)))
        return y.to(x.dtype)

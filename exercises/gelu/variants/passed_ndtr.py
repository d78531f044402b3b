# expect: passed
import math

import torch
from torch import nn


class GELU(nn.Module):
    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # Phi directly (torch.special.ndtr); tanh form with sigmoid(2z) = (1 + tanh z) / 2.
        xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
        if self.approximate == "tanh":
            z = math.sqrt(2 / math.pi) * (xf + 0.044715 * torch.pow(xf, 3))
            return (xf * torch.sigmoid(2 * z)).to(x.dtype)
        return (xf * torch.special.ndtr(xf)).to(x.dtype)

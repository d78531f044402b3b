# expect: failed mistake=flag_ignored_exact
import math

import torch
from torch import nn


class GELU(nn.Module):
    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # The flag compared with the wrong spelling: "tanh" never matches "Tanh".
        xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
        if self.approximate == "Tanh":
            return (0.5 * xf * (1 + torch.tanh(0.7978845608 * (xf + 0.044715 * xf**3)))).to(x.dtype)
        return (0.5 * xf * (1 + torch.erf(xf / math.sqrt(2)))).to(x.dtype)

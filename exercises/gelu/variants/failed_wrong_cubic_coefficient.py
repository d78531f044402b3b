# expect: failed mistake=wrong_cubic_coefficient
import math

import torch
from torch import nn


class GELU(nn.Module):
    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
        if self.approximate == "tanh":
            y = 0.5 * xf * (1 + torch.tanh(math.sqrt(2 / math.pi) * (xf + 0.0044715 * xf**3)))
        else:
            y = 0.5 * xf * (1 + torch.erf(xf / math.sqrt(2)))
        return y.to(x.dtype)

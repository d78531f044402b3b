# expect: passed
import math

import torch
from torch import nn


class GELU(nn.Module):
    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # Everything in float64, erfc for an accurate negative tail, cast back once.
        xd = x.double()
        if self.approximate == "none":
            y = 0.5 * xd * torch.erfc(-xd / math.sqrt(2))
        else:
            y = 0.5 * xd * (1 + torch.tanh(math.sqrt(2 / math.pi) * (xd + 0.044715 * xd**3)))
        return y.to(x.dtype)

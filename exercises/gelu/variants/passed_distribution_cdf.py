# expect: passed
import math

import torch
from torch import nn


class GELU(nn.Module):
    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
        if self.approximate != "none":
            inner = math.sqrt(2.0 / math.pi) * xf * (1.0 + 0.044715 * xf * xf)
            return (0.5 * xf * (1.0 + torch.tanh(inner))).to(x.dtype)
        normal = torch.distributions.Normal(
            torch.zeros((), dtype=xf.dtype), torch.ones((), dtype=xf.dtype)
        )
        return (xf * normal.cdf(xf)).to(x.dtype)

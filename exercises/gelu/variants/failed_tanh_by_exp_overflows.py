# expect: failed finding=nonfinite
import math

import torch
from torch import nn


def tanh(u: torch.Tensor) -> torch.Tensor:
    # Written out from its definition: exp(2u) overflows to inf for large u, and inf / inf is NaN.
    e = torch.exp(2.0 * u)
    return (e - 1.0) / (e + 1.0)


class GELU(nn.Module):
    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        if approximate not in ("none", "tanh"):
            raise ValueError(f"approximate must be 'none' or 'tanh', got {approximate!r}")
        self.approximate = approximate

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = x.float() if x.dtype in (torch.bfloat16, torch.float16) else x
        if self.approximate == "tanh":
            y = 0.5 * h * (1.0 + tanh(math.sqrt(2.0 / math.pi) * (h + 0.044715 * h**3)))
        else:
            y = 0.5 * h * (1.0 + torch.erf(h / math.sqrt(2.0)))
        return y.to(x.dtype)

# expect: failed mistake=half_precision_internals
import math

import torch
from torch import nn


class GELU(nn.Module):
    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # Everything in the input's dtype, bfloat16 included.
        if self.approximate == "tanh":
            inner = math.sqrt(2.0 / math.pi) * (x + 0.044715 * x.pow(3))
            return x * 0.5 * (1.0 + inner.tanh())
        return x * 0.5 * (1.0 + torch.special.erf(x * (1.0 / math.sqrt(2.0))))

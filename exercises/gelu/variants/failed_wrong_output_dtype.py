# expect: failed mistake=wrong_output_dtype
import math

import torch
from torch import nn


class GELU(nn.Module):
    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        xf = x.float()  # and never cast back: bfloat16 in, float32 out
        if self.approximate == "tanh":
            return 0.5 * xf * (1 + torch.tanh(math.sqrt(2 / math.pi) * (xf + 0.044715 * xf**3)))
        return 0.5 * xf * (1 + torch.erf(xf / math.sqrt(2)))

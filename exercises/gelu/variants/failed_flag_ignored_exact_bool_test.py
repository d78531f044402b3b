# expect: failed mistake=flag_ignored_exact
import math

import torch
from torch import nn


class GELU(nn.Module):
    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = x.to(torch.float32) if x.element_size() < 4 else x

        # A string is never True: the tanh branch is dead code.
        if self.approximate is True:
            inner = 0.7978845608028654 * (h + 0.044715 * h.pow(3))
            return (0.5 * h * (1.0 + torch.tanh(inner))).to(x.dtype)
        return (h * 0.5 * torch.erfc(-h / math.sqrt(2.0))).to(x.dtype)

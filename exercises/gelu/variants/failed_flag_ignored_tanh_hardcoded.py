# expect: failed mistake=flag_ignored_tanh
import math

import torch
from torch import nn


class GELU(nn.Module):
    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = x.to(torch.float32) if x.element_size() < 4 else x

        # "The tanh form is what BERT uses", whatever the caller asked for.
        k = math.sqrt(2.0 / math.pi)
        return (h * 0.5 * (1.0 + torch.tanh(k * (h + 0.044715 * h * h * h)))).to(x.dtype)

# expect: failed mistake=tanh_missing_cubic
import math

import torch
from torch import nn


class GELU(nn.Module):
    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = x.to(torch.float32) if x.element_size() < 4 else x

        if self.approximate == "tanh":
            inner = math.sqrt(2.0 / math.pi) * h  # the cubic correction left out
            return (0.5 * h * (1.0 + torch.tanh(inner))).to(x.dtype)
        return (0.5 * h * torch.erfc(-h / math.sqrt(2.0))).to(x.dtype)

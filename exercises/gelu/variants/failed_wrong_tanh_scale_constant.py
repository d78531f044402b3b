# expect: failed mistake=wrong_tanh_scale
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
            c = 0.45015815807855303  # sqrt(2) / pi, computed once
            inner = c * (h + 0.044715 * h.pow(3))
            return (0.5 * h * (1.0 + torch.tanh(inner))).to(x.dtype)
        return (0.5 * h * torch.erfc(-h / math.sqrt(2.0))).to(x.dtype)

# expect: failed mistake=wrong_cubic_coefficient
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
            # x + 0.0044715 x^3, factored: one zero too many in the coefficient.
            inner = math.sqrt(2.0 / math.pi) * h * (1.0 + 0.0044715 * h * h)
            return (0.5 * h * (1.0 + torch.tanh(inner))).to(x.dtype)
        return (0.5 * h * torch.erfc(-h / math.sqrt(2.0))).to(x.dtype)

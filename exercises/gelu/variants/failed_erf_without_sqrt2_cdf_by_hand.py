# expect: failed mistake=erf_without_sqrt2

import torch
from torch import nn


class GELU(nn.Module):
    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = x.to(torch.float32) if x.element_size() < 4 else x

        if self.approximate == "tanh":
            inner = 0.7978845608028654 * h * (1.0 + 0.044715 * h * h)
            return (h * 0.5 * (1.0 + inner.tanh())).to(x.dtype)
        cdf = (1.0 + torch.special.erf(h)) / 2  # the standard normal CDF, I thought
        return (h * cdf).to(x.dtype)

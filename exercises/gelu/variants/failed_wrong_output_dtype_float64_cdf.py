# expect: failed mistake=wrong_output_dtype
import math

import torch
from torch import nn


def _normal_cdf(x: torch.Tensor) -> torch.Tensor:
    # In float64 for an accurate tail.
    xd = x.to(torch.float64)
    return 0.5 * (1 + torch.erf(xd / math.sqrt(2)))


def _tanh_cdf(x: torch.Tensor) -> torch.Tensor:
    xd = x.to(torch.float64)
    return 0.5 * (1 + torch.tanh(math.sqrt(2 / math.pi) * (xd + 0.044715 * xd**3)))


class GELU(nn.Module):
    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        cdf = _tanh_cdf(x) if self.approximate == "tanh" else _normal_cdf(x)
        return x * cdf  # promotes to float64 whatever x was

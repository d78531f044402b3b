# expect: failed mistake=sigmoid_approximation

import torch
from torch import nn


class GELU(nn.Module):
    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # "Close enough" for both flags.
        return x * torch.sigmoid(1.702 * x)

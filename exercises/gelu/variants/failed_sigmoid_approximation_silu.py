# expect: failed mistake=sigmoid_approximation diagnosis=robust

import torch
from torch import nn


class GELU(nn.Module):
    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # The "quick GELU" of some codebases, for both flags.
        z = 1.702 * x
        return x / (1.0 + torch.exp(-z))

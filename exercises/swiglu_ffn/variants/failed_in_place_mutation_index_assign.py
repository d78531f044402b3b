# expect: failed mistake=in_place_mutation
"""Wrong: when no gradient is needed, the result is written into the input tensor by slice
assignment, so the caller's x is overwritten."""

import torch
from torch import nn


class SwiGLUFFN(nn.Module):
    def __init__(self, dim: int, hidden_dim: int) -> None:
        super().__init__()
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gate = self.w1(x)
        y: torch.Tensor = self.w2(gate * torch.sigmoid(gate) * self.w3(x))
        if x.requires_grad:
            return y
        x[...] = y  # "saves an allocation" at inference time
        return x

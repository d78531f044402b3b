# expect: failed mistake=wrong_output_dtype
"""Wrong: everything is computed in float32 "to be safe", so a float64 input gets a float32
output."""

import torch
import torch.nn.functional as F
from torch import nn


class SwiGLUFFN(nn.Module):
    def __init__(self, dim: int, hidden_dim: int) -> None:
        super().__init__()
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = x.float()
        gate = F.silu(F.linear(h, self.w1.weight.float()))
        up = F.linear(h, self.w3.weight.float())
        return F.linear(gate * up, self.w2.weight.float())

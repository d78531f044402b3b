# expect: passed
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
        # Fused gate/up projection, rebuilt from the current weights on every call.
        gate, up = F.linear(x, torch.cat([self.w1.weight, self.w3.weight])).chunk(2, dim=-1)
        return self.w2(F.silu(gate) * up)

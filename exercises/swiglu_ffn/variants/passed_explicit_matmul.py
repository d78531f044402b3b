# expect: passed
import torch
import torch.nn.functional as F
from torch import nn


class SwiGLUFFN(nn.Module):
    """Registers up before gate before down, and multiplies by the weights directly."""

    def __init__(self, dim: int, hidden_dim: int) -> None:
        super().__init__()
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        up = x @ self.w3.weight.T
        gate = F.silu(x @ self.w1.weight.T)
        return (gate * up) @ self.w2.weight.T

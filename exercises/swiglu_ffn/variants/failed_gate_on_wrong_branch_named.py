# expect: failed mistake=gate_on_wrong_branch
import torch
from torch import nn


class SwiGLUFFN(nn.Module):
    def __init__(self, dim: int, hidden_dim: int) -> None:
        super().__init__()
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        up = self.w1(x)  # the names swapped: w1 is the gate
        gate = self.w3(x)
        return self.w2(gate * torch.sigmoid(gate) * up)

# expect: failed mistake=wrong_output_dtype
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
        # Computes in float64 for safety and never casts back.
        h = x.double()
        gate = F.silu(h @ self.w1.weight.double().T)
        return (gate * (h @ self.w3.weight.double().T)) @ self.w2.weight.double().T

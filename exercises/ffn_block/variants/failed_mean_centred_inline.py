# expect: failed mistake=mean_centred
import torch
import torch.nn.functional as F
from torch import nn


class Gain(nn.Module):
    """The norm's parameters only: the block does the arithmetic inline."""

    def __init__(self, dim: int) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))


class Projections(nn.Module):
    def __init__(self, dim: int, hidden_dim: int) -> None:
        super().__init__()
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)


class FFNBlock(nn.Module):
    def __init__(self, dim: int, hidden_dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.eps = eps
        self.norm = Gain(dim)
        self.ffn = Projections(dim, hidden_dim)

    def rms(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sqrt(torch.mean(x * x, dim=-1, keepdim=True) + self.eps)

    def swiglu(self, h: torch.Tensor) -> torch.Tensor:
        f = self.ffn
        gate = F.linear(h, f.w1.weight)
        return F.linear(gate * torch.sigmoid(gate) * F.linear(h, f.w3.weight), f.w2.weight)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        c = x - x.mean(-1, keepdim=True)
        h = c / self.rms(c) * self.norm.weight
        return x + self.swiglu(h)

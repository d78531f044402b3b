# expect: passed
"""Correct: the norm's gain folded into w1 and w3 on every call (an inference trick)."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


class Norm(nn.Module):
    def __init__(self, dim: int, eps: float) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))


class Gated(nn.Module):
    def __init__(self, dim: int, hidden_dim: int) -> None:
        super().__init__()
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)


class FFNBlock(nn.Module):
    def __init__(self, dim: int, hidden_dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.norm = Norm(dim, eps)
        self.ffn = Gated(dim, hidden_dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x_hat = x / torch.sqrt(x.square().mean(dim=-1, keepdim=True) + self.norm.eps)
        # w(x_hat * g) == x_hat @ (W * g)^T: scale W's columns instead of the activations.
        g = self.norm.weight
        gate = F.linear(x_hat, self.ffn.w1.weight * g)
        up = F.linear(x_hat, self.ffn.w3.weight * g)
        return x + F.linear(gate * torch.sigmoid(gate) * up, self.ffn.w2.weight)

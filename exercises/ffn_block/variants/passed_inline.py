# expect: passed
"""Correct: parameters registered directly on small holder modules, everything inline."""

from __future__ import annotations

import torch
from torch import nn


class FFNBlock(nn.Module):
    def __init__(self, dim: int, hidden_dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.eps = eps
        self.norm = nn.Module()
        self.norm.weight = nn.Parameter(torch.ones(dim))
        self.ffn = nn.Module()
        self.ffn.w1 = nn.Linear(dim, hidden_dim, bias=False)
        self.ffn.w2 = nn.Linear(hidden_dim, dim, bias=False)
        self.ffn.w3 = nn.Linear(dim, hidden_dim, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        rms = torch.sqrt(torch.mean(x * x, dim=-1, keepdim=True) + self.eps)
        h = x / rms * self.norm.weight
        a = h @ self.ffn.w1.weight.T
        b = h @ self.ffn.w3.weight.T
        return x + (torch.sigmoid(a) * a * b) @ self.ffn.w2.weight.T

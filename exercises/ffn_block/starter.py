from __future__ import annotations

import torch
import torch.nn.functional as F  # noqa: F401  (F.silu, F.linear: yours to use)
from torch import nn


class FFNBlock(nn.Module):
    # The exercise's class comes first; the two pieces it is built from follow.
    def __init__(self, dim: int, hidden_dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        # The grader loads norm.weight and ffn.w1/w2/w3.weight: keep these names.
        self.norm = RMSNorm(dim, eps)
        self.ffn = SwiGLU(dim, hidden_dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # x: (..., dim) -> the LLaMA FFN half-layer -> (..., dim)
        raise NotImplementedError("implement FFNBlock.forward")


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))  # (dim,): the gain, ones at init

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # x: (..., dim) -> x * rsqrt(mean(x^2) over the last dim + eps) * weight
        raise NotImplementedError("implement RMSNorm.forward")


class SwiGLU(nn.Module):
    def __init__(self, dim: int, hidden_dim: int) -> None:
        super().__init__()
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)  # gate
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)  # down
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)  # up

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # x: (..., dim) -> w2(silu(w1(x)) * w3(x))
        raise NotImplementedError("implement SwiGLU.forward")

# expect: failed class=state_across_calls
"""Wrong (state across calls): at inference the gain is folded into w1/w3 once and cached."""

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
        self.folded: tuple[torch.Tensor, torch.Tensor] | None = None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        g = self.norm.weight
        if self.training or torch.is_grad_enabled():
            w1g, w3g = self.ffn.w1.weight * g, self.ffn.w3.weight * g
        else:
            # Serving: fold once, reuse for every request. Stale as soon as the weights change.
            if self.folded is None:
                self.folded = (self.ffn.w1.weight * g, self.ffn.w3.weight * g)
            w1g, w3g = self.folded
        x_hat = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.norm.eps)
        return x + F.linear(F.silu(F.linear(x_hat, w1g)) * F.linear(x_hat, w3g), self.ffn.w2.weight)

"""The LLaMA FFN half-layer from scratch: y = x + SwiGLU(RMSNorm(x)).

Pre-norm: the residual stream x is left untouched on the skip path, and only the branch sees a
normalised input. RMSNorm rescales each token to unit root-mean-square (no mean-centring, no
bias) and applies a learned per-feature gain; the SwiGLU FFN transforms the token; the add
writes the result back into the stream. Both pieces are written here from scratch.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))  # (dim,), ones: the identity gain

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # x: (..., dim)
        # keepdim so the (..., 1) statistic broadcasts over the features of its own token;
        # eps inside the root keeps an all-zero token finite.
        ms = x.pow(2).mean(dim=-1, keepdim=True)  # (..., 1)
        return x * torch.rsqrt(ms + self.eps) * self.weight


class SwiGLU(nn.Module):
    def __init__(self, dim: int, hidden_dim: int) -> None:
        super().__init__()
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)  # gate
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)  # down
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)  # up

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # (..., dim)
        out: torch.Tensor = self.w2(F.silu(self.w1(x)) * self.w3(x))
        return out


class FFNBlock(nn.Module):
    def __init__(self, dim: int, hidden_dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.norm = RMSNorm(dim, eps)  # state: norm.weight
        self.ffn = SwiGLU(dim, hidden_dim)  # state: ffn.w1/w2/w3.weight

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # (..., dim)
        # The skip path carries x itself, not norm(x): the identity path of the stream must stay
        # an identity for gradients to reach early layers undamped.
        out: torch.Tensor = x + self.ffn(self.norm(x))
        return out

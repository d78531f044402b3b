from __future__ import annotations

import torch
import torch.nn.functional as F  # noqa: F401  (F.silu, F.one_hot, F.softmax: yours to use)
from torch import nn


class _Expert(nn.Module):
    """One SwiGLU expert. The grader loads experts.{e}.w1/w2/w3.weight: keep these names."""

    def __init__(self, dim: int, hidden_dim: int) -> None:
        super().__init__()
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)  # gate
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)  # down
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)  # up

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError("implement _Expert.forward: w2(silu(w1(x)) * w3(x))")


class MoEFFN(nn.Module):
    def __init__(self, dim: int, hidden_dim: int, n_experts: int, top_k: int = 2) -> None:
        super().__init__()
        self.n_experts = n_experts
        self.top_k = top_k
        self.gate = nn.Linear(dim, n_experts, bias=False)  # the router
        self.experts = nn.ModuleList(_Expert(dim, hidden_dim) for _ in range(n_experts))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        # x: (batch, seq, dim). Route every token: softmax over the experts, top_k of them,
        # weights renormalised over the k; out = sum of weight * expert(token).
        # aux_loss = n_experts * sum_e f_e * P_e (f: fraction of tokens routed to e,
        # P: mean router probability of e). Return (out, aux_loss), aux_loss 0-dim.
        raise NotImplementedError("implement MoEFFN.forward")

"""A sparse mixture-of-experts FFN (Mixtral's layer) with the load-balancing loss.

A router scores every token against every expert; each token is sent to its top_k experts
only, and their outputs are mixed with the router's probabilities renormalised over the
chosen k. The auxiliary loss (Switch Transformer; Hugging Face's load_balancing_loss_func)
is n_experts * sum_e f_e * P_e: f_e the fraction of tokens routed to expert e, P_e its mean
router probability. Only P carries a gradient, and the loss is smallest when both are even.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


class Expert(nn.Module):
    """One SwiGLU expert: w2(silu(w1(x)) * w3(x)), bias-free."""

    def __init__(self, dim: int, hidden_dim: int) -> None:
        super().__init__()
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)  # gate
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)  # down
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)  # up

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.w2(F.silu(self.w1(x)) * self.w3(x))
        return out


class MoEFFN(nn.Module):
    def __init__(self, dim: int, hidden_dim: int, n_experts: int, top_k: int = 2) -> None:
        super().__init__()
        self.n_experts = n_experts
        self.top_k = top_k
        self.gate = nn.Linear(dim, n_experts, bias=False)  # the router
        self.experts = nn.ModuleList(Expert(dim, hidden_dim) for _ in range(n_experts))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        batch, seq, dim = x.shape
        tokens = x.reshape(batch * seq, dim)  # route every token on its own
        probs = torch.softmax(self.gate(tokens), dim=-1)  # (T, E), over the experts
        top_p, top_i = torch.topk(probs, self.top_k, dim=-1)  # (T, k)
        weights = top_p / top_p.sum(dim=-1, keepdim=True)  # renormalised over the k (Mixtral)

        out = torch.zeros_like(tokens)
        for e, expert in enumerate(self.experts):
            # Which tokens chose e, in which slot. No token at all is fine: the expert runs on
            # an empty batch and its weights get a zero gradient (skipping it is right too).
            token, slot = torch.where(top_i == e)
            y = expert(tokens[token]) * weights[token, slot].unsqueeze(-1)
            out = out.index_add(0, token, y)  # out-of-place: autograd sees every expert

        # f: fraction of tokens whose top-k holds e (sums to top_k); a count, no gradient.
        f = F.one_hot(top_i, self.n_experts).sum(dim=1).to(probs.dtype).mean(dim=0)
        p_mean = probs.mean(dim=0)  # P: mean router probability; the gradient flows here
        aux_loss = self.n_experts * (f * p_mean).sum()
        return out.reshape(batch, seq, dim), aux_loss

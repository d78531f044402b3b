# expect: failed mistake=aux_without_expert_count
"""Wrong: the factor n_experts forgotten."""

import torch
import torch.nn.functional as F
from torch import nn


class Expert(nn.Module):
    def __init__(self, dim, hidden_dim):
        super().__init__()
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class MoEFFN(nn.Module):
    def __init__(self, dim, hidden_dim, n_experts, top_k=2):
        super().__init__()
        self.n_experts = n_experts
        self.top_k = top_k
        self.gate = nn.Linear(dim, n_experts, bias=False)
        self.experts = nn.ModuleList([Expert(dim, hidden_dim) for _ in range(n_experts)])

    def forward(self, x):
        b, s, d = x.shape
        h = x.reshape(-1, d)
        probs = F.softmax(self.gate(h), dim=-1)
        top_p, top_i = probs.topk(self.top_k, dim=-1)
        weights = top_p / top_p.sum(-1, keepdim=True)
        out = torch.zeros_like(h)
        for e in range(self.n_experts):
            rows, slots = (top_i == e).nonzero(as_tuple=True)
            y = self.experts[e](h[rows])
            out = out.index_add(0, rows, weights[rows, slots, None] * y)
        f = F.one_hot(top_i, self.n_experts).sum(1).to(probs.dtype).mean(0)
        P = probs.mean(0)
        aux = torch.sum(f * P)
        return out.view(b, s, d), aux

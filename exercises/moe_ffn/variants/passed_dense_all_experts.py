# expect: passed
"""Right: every expert on every token, masked by scattered top-k weights; f from bincount."""

import torch
import torch.nn.functional as F
from torch import nn


class SwiGLU(nn.Module):
    def __init__(self, dim, hidden_dim):
        super().__init__()
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class MoEFFN(nn.Module):
    """Dense: every expert on every token, then the routing weights mask the sum."""

    def __init__(self, dim, hidden_dim, n_experts, top_k=2):
        super().__init__()
        self.n_experts, self.top_k = n_experts, top_k
        self.gate = nn.Linear(dim, n_experts, bias=False)
        self.experts = nn.ModuleList(SwiGLU(dim, hidden_dim) for _ in range(n_experts))

    def forward(self, x):
        B, S, D = x.shape
        t = x.reshape(B * S, D)
        logits = t @ self.gate.weight.T
        probs = logits.softmax(-1)
        vals, idx = torch.topk(probs, self.top_k, -1)
        vals = vals / vals.sum(-1, keepdim=True)
        dense_w = torch.zeros_like(probs).scatter(1, idx, vals)  # (T, E), zero off the top-k
        ys = torch.stack([ex(t) for ex in self.experts], dim=1)  # (T, E, D)
        out = (dense_w.unsqueeze(-1) * ys).sum(1)
        counts = torch.bincount(idx.flatten(), minlength=self.n_experts).to(probs.dtype)
        f = counts / t.shape[0]
        aux = self.n_experts * (f * probs.mean(0)).sum()
        return out.reshape(B, S, D), aux

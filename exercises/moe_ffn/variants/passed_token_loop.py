# expect: passed
"""Right: a loop over tokens; the aux loss as Hugging Face's load_balancing_loss_func sums it."""

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
    """One token at a time, as the routing is usually drawn on a whiteboard."""

    def __init__(self, dim, hidden_dim, n_experts, top_k=2):
        super().__init__()
        self.n_experts = n_experts
        self.top_k = top_k
        self.gate = nn.Linear(dim, n_experts, bias=False)
        self.experts = nn.ModuleList()
        for _ in range(n_experts):
            self.experts.append(Expert(dim, hidden_dim))

    def forward(self, x):
        batch, seq, dim = x.shape
        tokens = x.reshape(batch * seq, dim)
        outs = []
        all_probs = []
        chosen = []
        for t in range(tokens.shape[0]):
            p = torch.softmax(self.gate(tokens[t]), dim=0)
            w, i = torch.topk(p, self.top_k)
            w = w / w.sum()
            y = 0
            for j in range(self.top_k):
                y = y + w[j] * self.experts[int(i[j])](tokens[t])
            outs.append(y)
            all_probs.append(p)
            chosen.append(i)
        out = torch.stack(outs).reshape(batch, seq, dim)
        probs = torch.stack(all_probs)
        mask = F.one_hot(torch.stack(chosen), self.n_experts).to(probs.dtype)  # (T, k, E)
        tokens_per_expert = mask.mean(0)  # (k, E), as load_balancing_loss_func
        aux = self.n_experts * (tokens_per_expert * probs.mean(0).unsqueeze(0)).sum()
        return out, aux

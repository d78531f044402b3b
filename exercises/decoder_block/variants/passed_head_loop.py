# expect: passed
"""Correct: a loop over the query heads, each reading its kv head by integer division; RoPE on
each head with sin/cos built from an explicit frequency list; a manual softmax; the mask from
index comparisons."""

import math

import torch
from torch import nn


class Gain(nn.Module):
    def __init__(self, dim, eps):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return self.weight * (x / torch.sqrt((x * x).mean(-1, keepdim=True) + self.eps))


class Heads(nn.Module):
    def __init__(self, dim, n_heads, n_kv_heads):
        super().__init__()
        self.h, self.kv, self.d = n_heads, n_kv_heads, dim // n_heads
        self.wq = nn.Linear(dim, n_heads * self.d, bias=False)
        self.wk = nn.Linear(dim, n_kv_heads * self.d, bias=False)
        self.wv = nn.Linear(dim, n_kv_heads * self.d, bias=False)
        self.wo = nn.Linear(n_heads * self.d, dim, bias=False)

    def rotate(self, t):  # t: (batch, seq, d)
        d, seq = self.d, t.shape[1]
        freqs = torch.tensor([10000.0 ** (-2.0 * i / d) for i in range(d // 2)], dtype=t.dtype)
        pos = torch.arange(seq, dtype=t.dtype).unsqueeze(-1)
        c, s = torch.cos(pos * freqs), torch.sin(pos * freqs)  # (seq, d/2)
        a, b = t[..., : d // 2], t[..., d // 2 :]
        return torch.cat([a * c - b * s, b * c + a * s], dim=-1)

    def forward(self, x):
        seq = x.shape[1]
        q, k, v = self.wq(x), self.wk(x), self.wv(x)
        i = torch.arange(seq)
        future = i[None, :] > i[:, None]
        outs = []
        for head in range(self.h):
            g = head // (self.h // self.kv)
            qh = self.rotate(q[..., head * self.d : (head + 1) * self.d])
            kh = self.rotate(k[..., g * self.d : (g + 1) * self.d])
            vh = v[..., g * self.d : (g + 1) * self.d]
            s = (qh @ kh.transpose(1, 2)) / math.sqrt(self.d)
            s = s.masked_fill(future, float("-inf"))
            e = torch.exp(s - s.amax(-1, keepdim=True))
            outs.append((e / e.sum(-1, keepdim=True)) @ vh)
        return self.wo(torch.cat(outs, dim=-1))


class MLP(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.w1 = nn.Linear(dim, hidden, bias=False)
        self.w2 = nn.Linear(hidden, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden, bias=False)

    def forward(self, x):
        a = self.w1(x)
        return self.w2(a * torch.sigmoid(a) * self.w3(x))


class DecoderBlock(nn.Module):
    def __init__(self, dim, n_heads, n_kv_heads, hidden_dim, eps=1e-6):
        super().__init__()
        self.attention_norm = Gain(dim, eps)
        self.attention = Heads(dim, n_heads, n_kv_heads)
        self.ffn_norm = Gain(dim, eps)
        self.feed_forward = MLP(dim, hidden_dim)

    def forward(self, x):
        x = x + self.attention(self.attention_norm(x))
        return x + self.feed_forward(self.ffn_norm(x))

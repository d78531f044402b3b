# expect: rejected
"""Rejected: torch.nn.RMSNorm for both norms."""

import torch
import torch.nn.functional as F
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rope(t):
    seq, d = t.shape[-2], t.shape[-1]
    ang = torch.outer(
        torch.arange(seq, dtype=t.dtype), 10000.0 ** (-torch.arange(0, d, 2, dtype=t.dtype) / d)
    )
    ang = torch.cat([ang, ang], -1)
    t1, t2 = t.chunk(2, -1)
    return t * ang.cos() + torch.cat([-t2, t1], -1) * ang.sin()


class Attention(nn.Module):
    def __init__(self, dim, n_heads, n_kv_heads):
        super().__init__()
        self.h, self.kv, self.d = n_heads, n_kv_heads, dim // n_heads
        self.wq = nn.Linear(dim, n_heads * self.d, bias=False)
        self.wk = nn.Linear(dim, n_kv_heads * self.d, bias=False)
        self.wv = nn.Linear(dim, n_kv_heads * self.d, bias=False)
        self.wo = nn.Linear(n_heads * self.d, dim, bias=False)

    def forward(self, x):
        b, s, _ = x.shape
        q = self.wq(x).view(b, s, self.h, self.d).transpose(1, 2)
        k = self.wk(x).view(b, s, self.kv, self.d).transpose(1, 2)
        v = self.wv(x).view(b, s, self.kv, self.d).transpose(1, 2)
        s_ = q.shape[-2]
        kk = rope(k).repeat_interleave(self.h // self.kv, dim=1)
        vv = v.repeat_interleave(self.h // self.kv, dim=1)
        sc = rope(q) @ kk.transpose(-2, -1) / self.d**0.5
        sc = sc.masked_fill(torch.ones(s_, s_, dtype=torch.bool).triu(1), float("-inf"))
        o = sc.softmax(-1) @ vv
        return self.wo(o.transpose(1, 2).reshape(b, s, -1))


class FeedForward(nn.Module):
    def __init__(self, dim, hidden_dim):
        super().__init__()
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class DecoderBlock(nn.Module):
    def __init__(self, dim, n_heads, n_kv_heads, hidden_dim, eps=1e-6):
        super().__init__()
        self.attention_norm = nn.RMSNorm(dim, eps=eps)
        self.attention = Attention(dim, n_heads, n_kv_heads)
        self.ffn_norm = nn.RMSNorm(dim, eps=eps)
        self.feed_forward = FeedForward(dim, hidden_dim)

    def forward(self, x):
        h = x + self.attention(self.attention_norm(x))
        return h + self.feed_forward(self.ffn_norm(h))

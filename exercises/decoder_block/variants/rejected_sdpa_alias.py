# expect: rejected
"""Rejected: F.scaled_dot_product_attention reached through an alias of the module."""

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn import functional as nnf

attend = getattr(nnf, "scaled_" + "dot_product_attention")


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
        o = attend(rope(q), rope(k), v, is_causal=True, enable_gqa=True)
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
        self.attention_norm = RMSNorm(dim, eps)
        self.attention = Attention(dim, n_heads, n_kv_heads)
        self.ffn_norm = RMSNorm(dim, eps)
        self.feed_forward = FeedForward(dim, hidden_dim)

    def forward(self, x):
        h = x + self.attention(self.attention_norm(x))
        return h + self.feed_forward(self.ffn_norm(h))

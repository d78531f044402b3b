# expect: failed mistake=attention_norm_eps_outside_sqrt
"""Inline norms, the first one with eps outside the root."""

import torch
from torch import nn


def holder(**parts: nn.Module | nn.Parameter) -> nn.Module:
    module = nn.Module()
    for name, part in parts.items():
        setattr(module, name, part)
    return module


class DecoderBlock(nn.Module):
    def __init__(self, dim, n_heads, n_kv_heads, hidden_dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.n_heads, self.n_kv_heads, self.head_dim = n_heads, n_kv_heads, dim // n_heads
        hd = self.head_dim
        self.attention_norm = holder(weight=nn.Parameter(torch.ones(dim)))
        self.attention = holder(
            wq=nn.Linear(dim, n_heads * hd, bias=False),
            wk=nn.Linear(dim, n_kv_heads * hd, bias=False),
            wv=nn.Linear(dim, n_kv_heads * hd, bias=False),
            wo=nn.Linear(n_heads * hd, dim, bias=False),
        )
        self.ffn_norm = holder(weight=nn.Parameter(torch.ones(dim)))
        self.feed_forward = holder(
            w1=nn.Linear(dim, hidden_dim, bias=False),
            w2=nn.Linear(hidden_dim, dim, bias=False),
            w3=nn.Linear(dim, hidden_dim, bias=False),
        )

    def forward(self, x):
        b, s, _d = x.shape
        nh, nkv, hd = self.n_heads, self.n_kv_heads, self.head_dim
        att, ff = self.attention, self.feed_forward
        rms = torch.sqrt(x.pow(2).mean(-1, keepdim=True))
        a = x / (rms + self.eps) * self.attention_norm.weight
        # Heads stay in (batch, seq, heads, head_dim); einsum names every axis.
        q = torch.einsum("bsd,ed->bse", a, att.wq.weight).reshape(b, s, nh, hd)
        k = torch.einsum("bsd,ed->bse", a, att.wk.weight).reshape(b, s, nkv, hd)
        v = torch.einsum("bsd,ed->bse", a, att.wv.weight).reshape(b, s, nkv, hd)
        inv = 10000.0 ** (-torch.arange(0, hd, 2, dtype=x.dtype) / hd)
        ang = torch.arange(s, dtype=x.dtype)[:, None] * inv[None, :]  # (s, hd/2)
        cos = torch.cat([ang.cos(), ang.cos()], -1)[:, None, :]  # (s, 1, hd)
        sin = torch.cat([ang.sin(), ang.sin()], -1)[:, None, :]

        def rot(t):
            t1, t2 = t.chunk(2, dim=-1)
            return t * cos + torch.cat([-t2, t1], dim=-1) * sin

        q, k = rot(q), rot(k)
        group = torch.arange(nh) // (nh // nkv)  # the kv head each query head reads
        k, v = k[:, :, group], v[:, :, group]
        scores = torch.einsum("bqhd,bkhd->bhqk", q, k) / hd**0.5
        allowed = torch.tril(torch.ones(s, s, dtype=torch.bool))
        scores = torch.where(allowed, scores, torch.tensor(float("-inf"), dtype=scores.dtype))
        p = scores.softmax(dim=-1)
        o = torch.einsum("bhqk,bkhd->bqhd", p, v).reshape(b, s, nh * hd)
        h = x + o @ att.wo.weight.T
        n = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + self.eps) * self.ffn_norm.weight
        g, u = n @ ff.w1.weight.T, n @ ff.w3.weight.T
        return h + (g * torch.sigmoid(g) * u) @ ff.w2.weight.T

# expect: failed mistake=heads_mixed_by_reshape
# The projections viewed straight as (B, H, T, hd), and merged back the same way.
import math

import torch
from torch import nn


class MultiHeadAttention(nn.Module):
    def __init__(self, dim, n_heads, n_kv_heads=None, bias=False):
        super().__init__()
        n_kv_heads = n_heads if n_kv_heads is None else n_kv_heads
        if dim % n_heads != 0 or n_heads % n_kv_heads != 0:
            raise ValueError("dim % n_heads and n_heads % n_kv_heads must be 0")
        self.n_heads = n_heads
        self.n_kv_heads = n_kv_heads
        self.head_dim = dim // n_heads
        self.wq = nn.Linear(dim, n_heads * self.head_dim, bias=bias)
        self.wk = nn.Linear(dim, n_kv_heads * self.head_dim, bias=bias)
        self.wv = nn.Linear(dim, n_kv_heads * self.head_dim, bias=bias)
        self.wo = nn.Linear(n_heads * self.head_dim, dim, bias=bias)

    def forward(self, x, mask=None, is_causal=False):
        b, t, _ = x.shape
        h, kv, hd = self.n_heads, self.n_kv_heads, self.head_dim
        q = self.wq(x).view(b, h, t, hd)
        k = self.wk(x).view(b, kv, t, hd)
        v = self.wv(x).view(b, kv, t, hd)
        k = k.repeat_interleave(h // kv, dim=1)
        v = v.repeat_interleave(h // kv, dim=1)

        scores = q @ k.transpose(-2, -1) / math.sqrt(hd)
        if is_causal:
            future = torch.ones(t, t, dtype=torch.bool).triu(1)
            scores = scores.masked_fill(future, float("-inf"))
        if mask is not None:
            scores = scores.masked_fill(~mask[:, None, None, :], float("-inf"))
        alive = torch.isfinite(scores).any(dim=-1, keepdim=True)
        weights = torch.softmax(scores.masked_fill(~alive, 0.0), dim=-1)
        weights = weights.masked_fill(~alive, 0.0)

        out = (weights @ v).reshape(b, t, h * hd)
        return self.wo(out)

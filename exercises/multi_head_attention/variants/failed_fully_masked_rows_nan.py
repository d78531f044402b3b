# expect: failed mistake=fully_masked_rows_nan
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
        q = self.wq(x).view(b, t, h, hd).transpose(1, 2)
        k = self.wk(x).view(b, t, kv, hd).transpose(1, 2)
        v = self.wv(x).view(b, t, kv, hd).transpose(1, 2)
        k = k.repeat_interleave(h // kv, dim=1)
        v = v.repeat_interleave(h // kv, dim=1)

        scores = q @ k.transpose(-2, -1) / math.sqrt(hd)
        if is_causal:
            future = torch.ones(t, t, dtype=torch.bool).triu(1)
            scores = scores.masked_fill(future, float("-inf"))
        if mask is not None:
            scores = scores.masked_fill(~mask[:, None, None, :], float("-inf"))
        weights = torch.softmax(scores, dim=-1)

        out = (weights @ v).transpose(1, 2).reshape(b, t, h * hd)
        return self.wo(out)

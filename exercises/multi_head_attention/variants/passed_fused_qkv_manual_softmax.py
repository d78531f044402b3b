# expect: passed
# The three projections run as one matmul on the concatenated weights (each call, so updates
# follow), a hand-written stable softmax, and split/merge with unflatten and flatten.
import math

import torch
import torch.nn.functional as F
from torch import nn


class MultiHeadAttention(nn.Module):
    def __init__(self, dim, n_heads, n_kv_heads=None, bias=False):
        super().__init__()
        kv = n_kv_heads if n_kv_heads is not None else n_heads
        if dim % n_heads or n_heads % kv:
            raise ValueError("head counts do not divide")
        hd = dim // n_heads
        self.sizes = (n_heads * hd, kv * hd, kv * hd)
        self.h, self.kv, self.hd = n_heads, kv, hd
        self.wq = nn.Linear(dim, self.sizes[0], bias=bias)
        self.wk = nn.Linear(dim, self.sizes[1], bias=bias)
        self.wv = nn.Linear(dim, self.sizes[2], bias=bias)
        self.wo = nn.Linear(n_heads * hd, dim, bias=bias)

    def forward(self, x, mask=None, is_causal=False):
        w = torch.cat([self.wq.weight, self.wk.weight, self.wv.weight])
        b = None
        if self.wq.bias is not None:
            b = torch.cat([self.wq.bias, self.wk.bias, self.wv.bias])
        q, k, v = F.linear(x, w, b).split(self.sizes, dim=-1)
        q = q.unflatten(-1, (self.h, self.hd)).transpose(1, 2)
        k = k.unflatten(-1, (self.kv, self.hd)).transpose(1, 2)
        v = v.unflatten(-1, (self.kv, self.hd)).transpose(1, 2)
        index = torch.arange(self.h) // (self.h // self.kv)
        k, v = k[:, index], v[:, index]
        T = x.shape[1]
        s = q @ k.mT * (1.0 / math.sqrt(self.hd))
        ok = torch.ones(T, T, dtype=torch.bool)
        if is_causal:
            ok = torch.arange(T)[None, :] <= torch.arange(T)[:, None]
        ok = ok.expand(x.shape[0], 1, T, T)
        if mask is not None:
            ok = ok & mask[:, None, None, :]
        s = s.masked_fill(~ok, -math.inf)
        live = ok.any(-1, keepdim=True)
        s = torch.where(live, s, 0.0)
        e = torch.exp(s - s.amax(-1, keepdim=True)) * ok
        p = e / e.sum(-1, keepdim=True).clamp_min(torch.finfo(e.dtype).tiny)
        return self.wo((p @ v).transpose(1, 2).flatten(2))

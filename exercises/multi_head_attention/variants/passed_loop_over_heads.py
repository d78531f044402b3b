# expect: passed
# One head at a time, in a Python loop: query head i reads kv head i // group; masked scores
# filled with finfo.min and rows with no key zeroed afterwards.
import math

import torch
import torch.nn.functional as F
from torch import nn


class MultiHeadAttention(nn.Module):
    def __init__(self, dim, n_heads, n_kv_heads=None, bias=False):
        super().__init__()
        if n_kv_heads is None:
            n_kv_heads = n_heads
        if dim % n_heads:
            raise ValueError("dim must be a multiple of n_heads")
        if n_heads % n_kv_heads:
            raise ValueError("n_heads must be a multiple of n_kv_heads")
        self.h, self.kv, self.d = n_heads, n_kv_heads, dim // n_heads
        self.wq = nn.Linear(dim, n_heads * self.d, bias=bias)
        self.wk = nn.Linear(dim, n_kv_heads * self.d, bias=bias)
        self.wv = nn.Linear(dim, n_kv_heads * self.d, bias=bias)
        self.wo = nn.Linear(n_heads * self.d, dim, bias=bias)

    def forward(self, x, mask=None, is_causal=False):
        T = x.shape[1]
        q, k, v = self.wq(x), self.wk(x), self.wv(x)
        allowed = torch.ones(x.shape[0], T, T, dtype=torch.bool)
        if is_causal:
            allowed = allowed & torch.tril(torch.ones(T, T, dtype=torch.bool))
        if mask is not None:
            allowed = allowed & mask[:, None, :]
        dead = ~allowed.any(dim=-1, keepdim=True)
        group = self.h // self.kv
        heads = []
        for i in range(self.h):
            j = i // group
            qi = q[..., i * self.d : (i + 1) * self.d]
            kj = k[..., j * self.d : (j + 1) * self.d]
            vj = v[..., j * self.d : (j + 1) * self.d]
            s = torch.bmm(qi, kj.transpose(1, 2)) / math.sqrt(self.d)
            s = s.masked_fill(~allowed, torch.finfo(s.dtype).min)
            p = F.softmax(s, dim=-1).masked_fill(dead, 0.0)
            heads.append(torch.bmm(p, vj))
        return self.wo(torch.cat(heads, dim=-1))

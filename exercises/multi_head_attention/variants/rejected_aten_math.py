# expect: rejected
import torch
from torch import nn


class MultiHeadAttention(nn.Module):
    def __init__(self, dim, n_heads, n_kv_heads=None, bias=False):
        super().__init__()
        kv = n_kv_heads or n_heads
        if dim % n_heads or n_heads % kv:
            raise ValueError("bad heads")
        self.h, self.kv, self.hd = n_heads, kv, dim // n_heads
        self.wq = nn.Linear(dim, dim, bias=bias)
        self.wk = nn.Linear(dim, kv * self.hd, bias=bias)
        self.wv = nn.Linear(dim, kv * self.hd, bias=bias)
        self.wo = nn.Linear(dim, dim, bias=bias)

    def forward(self, x, mask=None, is_causal=False):
        B, T, D = x.shape
        q = self.wq(x).view(B, T, self.h, self.hd).transpose(1, 2)
        k = self.wk(x).view(B, T, self.kv, self.hd).transpose(1, 2)
        v = self.wv(x).view(B, T, self.kv, self.hd).transpose(1, 2)
        k = k.repeat_interleave(self.h // self.kv, 1)
        v = v.repeat_interleave(self.h // self.kv, 1)
        keep = torch.ones(B, 1, T, T, dtype=torch.bool)
        if is_causal:
            keep = keep & torch.ones(T, T, dtype=torch.bool).tril()
        if mask is not None:
            keep = keep & mask[:, None, None, :]
        o, _ = torch.ops.aten._scaled_dot_product_attention_math(q, k, v, attn_mask=keep)
        return self.wo(o.transpose(1, 2).reshape(B, T, D))

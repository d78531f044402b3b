# expect: rejected
# The built-in reached by a name built at run time: the static check cannot see it, the
# run-time tripwire does.
import torch
import torch.nn.functional as F
from torch import nn

_attend = getattr(F, "scaled_dot_product_" + "attention")


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
        keep = torch.ones(B, 1, T, T, dtype=torch.bool)
        if is_causal:
            keep = keep & torch.ones(T, T, dtype=torch.bool).tril()
        if mask is not None:
            keep = keep & mask[:, None, None, :]
        o = _attend(q, k, v, attn_mask=keep, enable_gqa=True)
        return self.wo(o.transpose(1, 2).reshape(B, T, D))

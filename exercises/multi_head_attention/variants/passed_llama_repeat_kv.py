# expect: passed
# LLaMA's layout: kv heads repeated on (B, T, n_kv, hd) before the transpose, an additive bias
# of 0 / -inf for the masks, contiguous().view to merge.
import math

import torch
from torch import nn


def repeat_kv(x, n_rep):
    b, t, n_kv, hd = x.shape
    if n_rep == 1:
        return x
    return x[:, :, :, None, :].expand(b, t, n_kv, n_rep, hd).reshape(b, t, n_kv * n_rep, hd)


class MultiHeadAttention(nn.Module):
    def __init__(self, dim, n_heads, n_kv_heads=None, bias=False):
        super().__init__()
        self.n_heads = n_heads
        self.n_kv_heads = n_heads if n_kv_heads is None else n_kv_heads
        if dim % n_heads != 0:
            raise ValueError("dim % n_heads != 0")
        if n_heads % self.n_kv_heads != 0:
            raise ValueError("n_heads % n_kv_heads != 0")
        self.head_dim = dim // n_heads
        self.n_rep = n_heads // self.n_kv_heads
        self.wq = nn.Linear(dim, n_heads * self.head_dim, bias=bias)
        self.wk = nn.Linear(dim, self.n_kv_heads * self.head_dim, bias=bias)
        self.wv = nn.Linear(dim, self.n_kv_heads * self.head_dim, bias=bias)
        self.wo = nn.Linear(n_heads * self.head_dim, dim, bias=bias)

    def forward(self, x, mask=None, is_causal=False):
        bsz, seqlen, _ = x.shape
        xq = self.wq(x).view(bsz, seqlen, self.n_heads, self.head_dim)
        xk = self.wk(x).view(bsz, seqlen, self.n_kv_heads, self.head_dim)
        xv = self.wv(x).view(bsz, seqlen, self.n_kv_heads, self.head_dim)
        keys = repeat_kv(xk, self.n_rep).transpose(1, 2)
        values = repeat_kv(xv, self.n_rep).transpose(1, 2)
        xq = xq.transpose(1, 2)

        bias = torch.zeros(bsz, 1, seqlen, seqlen, dtype=x.dtype)
        if is_causal:
            bias = bias + torch.full((seqlen, seqlen), float("-inf"), dtype=x.dtype).triu(1)
        if mask is not None:
            bias = bias.masked_fill(~mask.view(bsz, 1, 1, seqlen), float("-inf"))
        scores = torch.matmul(xq, keys.transpose(2, 3)) / math.sqrt(self.head_dim) + bias
        empty = torch.isneginf(bias).all(dim=-1, keepdim=True)
        scores = torch.where(empty, torch.zeros_like(scores), scores)
        probs = torch.where(empty, torch.zeros_like(scores), scores.softmax(-1))
        output = torch.matmul(probs, values)
        output = output.transpose(1, 2).contiguous().view(bsz, seqlen, -1)
        return self.wo(output)

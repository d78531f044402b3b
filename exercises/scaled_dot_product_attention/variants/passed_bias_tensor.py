# expect: passed
import math

import torch


def _bias(mask, is_causal, L, S, dtype):
    # Every mask turned into one additive bias: 0 where allowed, -inf where hidden.
    bias = torch.zeros(L, S, dtype=dtype)
    if is_causal:
        bias = bias.masked_fill(~torch.ones(L, S, dtype=torch.bool).tril(), float("-inf"))
    if mask is not None:
        bias = bias.masked_fill(~mask, float("-inf")) if mask.dtype == torch.bool else bias + mask
    return bias


def scaled_dot_product_attention(q, k, v, mask=None, is_causal=False, scale=None):
    d = q.shape[-1]
    s = q @ k.mT / math.sqrt(d) if scale is None else q @ k.mT * scale
    s = s + _bias(mask, is_causal, q.shape[-2], k.shape[-2], s.dtype)
    dead = torch.isneginf(s).all(dim=-1, keepdim=True)
    p = torch.softmax(s.masked_fill(dead, 0.0), dim=-1).masked_fill(dead, 0.0)
    return p @ v

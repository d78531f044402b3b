# expect: passed
import math

import torch


def scaled_dot_product_attention(q, k, v, mask=None, is_causal=False, scale=None):
    # One boolean matrix of allowed pairs, float64 inside, cast back once.
    dtype = q.dtype
    q, k, v = q.double(), k.double(), v.double()
    L, S = q.shape[-2], k.shape[-2]
    scores = torch.matmul(q, k.transpose(-1, -2))
    scores = scores * (1.0 / math.sqrt(q.shape[-1]) if scale is None else scale)
    allowed = torch.ones(L, S, dtype=torch.bool)
    if is_causal:
        allowed = torch.tril(allowed)
    if mask is not None and mask.dtype == torch.bool:
        allowed = allowed & mask
    elif mask is not None:
        scores = scores + mask.double()
    scores = torch.where(allowed, scores, float("-inf"))
    has_key = torch.isfinite(scores).any(dim=-1, keepdim=True)
    weights = torch.where(has_key, scores, 0.0).softmax(dim=-1)
    weights = torch.where(has_key, weights, 0.0)
    return (weights @ v).to(dtype)

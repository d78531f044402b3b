# expect: failed mistake=softmax_over_queries
import math

import torch


def scaled_dot_product_attention(q, k, v, mask=None, is_causal=False, scale=None):
    # Scores laid out (S, L): keys first, then normalised over the last axis (the queries).
    factor = 1 / math.sqrt(q.shape[-1]) if scale is None else scale
    scores = (k @ q.transpose(-2, -1)) * factor
    if is_causal:
        S, L = scores.shape[-2:]
        scores = scores.masked_fill(torch.ones(L, S, dtype=torch.bool).triu(1).mT, float("-inf"))
    if mask is not None:
        m = mask.transpose(-2, -1)
        scores = scores.masked_fill(~m, float("-inf")) if m.dtype == torch.bool else scores + m
    alive = torch.isfinite(scores).any(-1, keepdim=True)
    w = torch.softmax(scores.masked_fill(~alive, 0.0), -1).masked_fill(~alive, 0.0)
    return w.transpose(-2, -1) @ v

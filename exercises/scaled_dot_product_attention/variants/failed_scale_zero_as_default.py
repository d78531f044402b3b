# expect: failed mistake=scale_zero_as_default diagnosis=robust
import math

import torch


def scaled_dot_product_attention(q, k, v, mask=None, is_causal=False, scale=None):
    scale = scale or 1 / math.sqrt(q.shape[-1])
    scores = q @ k.transpose(-2, -1) * scale
    if is_causal:
        L, S = scores.shape[-2:]
        scores = scores.masked_fill(torch.ones(L, S, dtype=torch.bool).triu(1), float("-inf"))
    if mask is not None:
        if mask.dtype == torch.bool:
            scores = scores.masked_fill(~mask, float("-inf"))
        else:
            scores = scores + mask
    alive = torch.isfinite(scores).any(-1, keepdim=True)
    weights = torch.softmax(scores.masked_fill(~alive, 0.0), dim=-1).masked_fill(~alive, 0.0)
    return weights @ v

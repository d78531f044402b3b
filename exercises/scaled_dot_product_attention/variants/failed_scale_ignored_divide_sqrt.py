# expect: failed mistake=scale_ignored
import math

import torch


def scaled_dot_product_attention(q, k, v, mask=None, is_causal=False, scale=None):
    scores = (q @ k.transpose(-2, -1)) / math.sqrt(k.size(-1))  # scale: not needed here
    if is_causal:
        L, S = scores.shape[-2:]
        scores = scores.masked_fill(~torch.tril(torch.ones(L, S, dtype=torch.bool)), -math.inf)
    if mask is not None:
        scores = scores.masked_fill(~mask, -math.inf) if mask.dtype == torch.bool else scores + mask
    alive = (scores > -math.inf).any(-1, keepdim=True)
    return (torch.softmax(scores.masked_fill(~alive, 0), -1).masked_fill(~alive, 0)) @ v

# expect: failed mistake=fully_masked_rows_nan
import math

import torch


def scaled_dot_product_attention(q, k, v, mask=None, is_causal=False, scale=None):
    factor = 1 / math.sqrt(q.shape[-1]) if scale is None else scale
    scores = q @ k.transpose(-2, -1) * factor
    if is_causal:
        L, S = scores.shape[-2:]
        scores = scores.masked_fill(torch.ones(L, S, dtype=torch.bool).triu(1), float("-inf"))
    if mask is not None:
        if mask.dtype == torch.bool:
            scores = scores.masked_fill(~mask, float("-inf"))
        else:
            scores = scores + mask
    e = torch.exp(scores - scores.amax(-1, keepdim=True))  # -inf - -inf = nan on a dead row
    return (e / e.sum(-1, keepdim=True)) @ v

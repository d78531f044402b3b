# expect: failed mistake=finite_mask_fill
import math

import torch


def scaled_dot_product_attention(q, k, v, mask=None, is_causal=False, scale=None):
    factor = 1 / math.sqrt(q.shape[-1]) if scale is None else scale
    scores = q @ k.transpose(-2, -1) * factor
    if is_causal:
        L, S = scores.shape[-2:]
        scores = scores.masked_fill(
            torch.ones(L, S, dtype=torch.bool).triu(1), torch.finfo(scores.dtype).min
        )
    if mask is not None:
        if mask.dtype == torch.bool:
            scores = scores.masked_fill(~mask, torch.finfo(scores.dtype).min)
        else:
            scores = scores + mask
    return scores.softmax(-1) @ v

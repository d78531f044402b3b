# expect: failed mistake=mask_after_softmax
import math

import torch


def scaled_dot_product_attention(q, k, v, mask=None, is_causal=False, scale=None):
    s = torch.matmul(q, k.transpose(-1, -2)) * (
        1 / math.sqrt(q.shape[-1]) if scale is None else scale
    )
    if mask is not None and mask.dtype != torch.bool:
        s = s + mask
        dead = torch.isneginf(s).all(-1, keepdim=True)
        p = torch.softmax(s.masked_fill(dead, 0), -1).masked_fill(dead, 0)
    else:
        p = torch.softmax(s, -1)
    if is_causal:
        p = p.masked_fill(torch.ones(p.shape[-2:], dtype=torch.bool).triu(1), 0.0)
    if mask is not None and mask.dtype == torch.bool:
        p = p.masked_fill(~mask, 0.0)
    return torch.matmul(p, v)

# expect: passed
import math

import torch


def scaled_dot_product_attention(q, k, v, mask=None, is_causal=False, scale=None):
    # einsum scores, a hand-written stable softmax, and a 0/1 weight for rows with no key.
    factor = scale if scale is not None else 1 / math.sqrt(q.size(-1))
    s = torch.einsum("...le,...se->...ls", q, k) * factor
    if is_causal:
        s = s.masked_fill(torch.ones(s.shape[-2:], dtype=torch.bool).triu(1), -math.inf)
    if mask is not None:
        s = s.masked_fill(~mask, -math.inf) if mask.dtype == torch.bool else s + mask
    alive = (s != -math.inf).any(-1, keepdim=True)
    s = torch.where(alive, s, torch.zeros_like(s))
    e = torch.exp(s - s.amax(-1, keepdim=True))
    w = e / e.sum(-1, keepdim=True) * alive
    return torch.einsum("...ls,...se->...le", w, v)

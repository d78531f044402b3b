# expect: failed mistake=mask_after_softmax
import math

import torch


def scaled_dot_product_attention(q, k, v, mask=None, is_causal=False, scale=None):
    factor = 1 / math.sqrt(q.shape[-1]) if scale is None else scale
    scores = q @ k.transpose(-2, -1) * factor
    if mask is not None and mask.dtype != torch.bool:
        scores = scores + mask
    alive = torch.isfinite(scores).any(-1, keepdim=True)
    weights = torch.softmax(scores.masked_fill(~alive, 0.0), dim=-1).masked_fill(~alive, 0.0)
    # Hide what the masks hide, now that the weights are known.
    if is_causal:
        L, S = scores.shape[-2:]
        weights = weights * torch.ones(L, S, dtype=weights.dtype).tril()
    if mask is not None and mask.dtype == torch.bool:
        weights = weights * mask
    return weights @ v

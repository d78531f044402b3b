# expect: failed mistake=float32_internals
"""Wrong for float64: the scale is a float32 tensor (torch.tensor without dtype=), so
float64 scores are rounded to float32's precision. Right for float32 input."""

import torch


def scaled_dot_product_attention(q, k, v, mask=None, is_causal=False, scale=None):
    d_k = q.size(-1)
    if scale is None:
        factor = torch.tensor(d_k) ** -0.5
        scores = torch.matmul(q, k.transpose(-2, -1)) * factor
    else:
        scores = torch.matmul(q, k.transpose(-2, -1)) * scale
    L, S = scores.shape[-2:]
    if is_causal:
        causal = torch.ones(L, S, dtype=torch.bool, device=q.device).tril()
        scores = scores.masked_fill(~causal, float("-inf"))
    if mask is not None:
        if mask.dtype == torch.bool:
            scores = scores.masked_fill(~mask, float("-inf"))
        else:
            scores = scores + mask
    m = scores.amax(dim=-1, keepdim=True)
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    e = torch.exp(scores - m)
    s = e.sum(dim=-1, keepdim=True)
    w = torch.where(s > 0, e / torch.where(s > 0, s, torch.ones_like(s)), torch.zeros_like(e))
    return w @ v

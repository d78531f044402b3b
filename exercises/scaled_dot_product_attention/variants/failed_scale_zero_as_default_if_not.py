# expect: failed mistake=scale_zero_as_default diagnosis=robust
import torch


def scaled_dot_product_attention(q, k, v, mask=None, is_causal=False, scale=None):
    d = q.size(-1)
    if not scale:  # None means "use the default"... and so does 0.0
        scale = d**-0.5
    L, S = q.size(-2), k.size(-2)
    bias = torch.zeros(L, S, dtype=q.dtype)
    if is_causal:
        bias = bias.masked_fill(~torch.ones(L, S, dtype=torch.bool).tril(), float("-inf"))
    if mask is not None:
        bias = bias.masked_fill(~mask, float("-inf")) if mask.dtype == torch.bool else bias + mask
    scores = torch.einsum("...le,...se->...ls", q, k) * scale + bias
    m = scores.amax(-1, keepdim=True)
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    e = torch.exp(scores - m)
    z = e.sum(-1, keepdim=True)
    w = torch.where(z > 0, e / torch.where(z > 0, z, torch.ones_like(z)), torch.zeros_like(e))
    return w @ v

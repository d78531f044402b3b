# expect: failed mistake=scaled_by_dim
import torch


def scaled_dot_product_attention(q, k, v, mask=None, is_causal=False, scale=None):
    d_k = q.size(-1)
    scores = q @ k.mT
    scores = scores / d_k if scale is None else scores * scale  # normalised by the head size
    if is_causal:
        scores = scores.masked_fill(
            torch.ones_like(scores, dtype=torch.bool).triu(1), float("-inf")
        )
    if mask is not None:
        scores = (
            scores.masked_fill(~mask, float("-inf")) if mask.dtype == torch.bool else scores + mask
        )
    alive = torch.isfinite(scores).any(-1, keepdim=True)
    p = torch.softmax(torch.where(alive, scores, 0.0), -1) * alive
    return p @ v

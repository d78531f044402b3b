# expect: failed mistake=no_scaling
import torch


def scaled_dot_product_attention(q, k, v, mask=None, is_causal=False, scale=None):
    scores = torch.matmul(q, k.transpose(-1, -2))  # the dot products as they are
    if scale is not None:
        scores = scores * scale
    if is_causal:
        future = torch.triu(torch.ones(scores.shape[-2:], dtype=torch.bool), diagonal=1)
        scores = scores.masked_fill(future, float("-inf"))
    if mask is not None:
        scores = (
            scores.masked_fill(~mask, float("-inf")) if mask.dtype == torch.bool else scores + mask
        )
    dead = torch.isinf(scores).all(-1, keepdim=True)
    p = torch.where(dead, 0.0, torch.softmax(torch.where(dead, 0.0, scores), -1))
    return torch.matmul(p, v)

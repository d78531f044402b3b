# expect: rejected
"""Rejected: the same ONNX operator reached through torch.ops by a name built at run time."""

import torch


def scaled_dot_product_attention(q, k, v, mask=None, is_causal=False, scale=None):
    op = getattr(getattr(torch.ops, "on" + "nx"), "Atten" + "tion").opset23
    bias = None if mask is None else torch.where(mask, 0.0, float("-inf")).to(q.dtype)
    out = op(q, k, v, bias, is_causal=is_causal, scale=scale, softmax_precision=1)
    return out[0]

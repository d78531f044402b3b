# expect: rejected
"""Rejected: torch's ONNX Attention-23 operator, whose kernel with a softmax precision set is a
Python matmul-softmax-matmul that no ATen attention name catches."""

import torch
import torch.onnx.ops


def scaled_dot_product_attention(q, k, v, mask=None, is_causal=False, scale=None):
    bias = None if mask is None else torch.where(mask, 0.0, float("-inf")).to(q.dtype)
    out = torch.onnx.ops.attention(
        q, k, v, attn_mask=bias, is_causal=is_causal, scale=scale, softmax_precision=1
    )
    return out[0]

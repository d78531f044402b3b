# expect: rejected
import torch


def scaled_dot_product_attention(q, k, v, mask=None, is_causal=False, scale=None):
    out, _ = torch.ops.aten._scaled_dot_product_attention_math(
        q, k, v, attn_mask=mask, is_causal=is_causal, scale=scale
    )
    return out

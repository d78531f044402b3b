# expect: rejected
import torch


def scaled_dot_product_attention(q, k, v, mask=None, is_causal=False, scale=None):
    return torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(
        q, k, v, is_causal=is_causal, scale=scale
    )[0]

from __future__ import annotations

import torch


def scaled_dot_product_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    mask: torch.Tensor | None = None,
    is_causal: bool = False,
    scale: float | None = None,
) -> torch.Tensor:
    # softmax(q @ k^T * scale + mask) @ v，默认 scale = 1/sqrt(E)；布尔掩码保留 True 的位置，
    # is_causal 只保留 key j <= query i，整行都被掩码的 query 返回 0。
    raise NotImplementedError("implement scaled_dot_product_attention")

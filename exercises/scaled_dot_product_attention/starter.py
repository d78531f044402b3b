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
    # softmax(q @ k^T * scale + mask) @ v, scale = 1/sqrt(E) by default; a boolean mask keeps
    # the True pairs, is_causal keeps key j <= query i, and a fully masked row returns zeros.
    raise NotImplementedError("implement scaled_dot_product_attention")

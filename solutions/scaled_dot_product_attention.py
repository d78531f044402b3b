"""Worked solution: scaled dot-product attention with boolean, additive and causal masks.

softmax(q @ k^T * scale + mask) @ v, with scale = 1/sqrt(E) by default. A query row whose keys
are all masked has no finite score: it is softmaxed as a row of zeros (any finite row would do)
and its weights are then set to 0, so it returns zeros and no NaN reaches the gradients.
"""

from __future__ import annotations

import math

import torch


def scaled_dot_product_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    mask: torch.Tensor | None = None,
    is_causal: bool = False,
    scale: float | None = None,
) -> torch.Tensor:
    factor = 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale
    scores = q @ k.transpose(-2, -1) * factor  # (..., L, S)
    if is_causal:
        length, source = scores.shape[-2:]
        future = torch.ones(length, source, dtype=torch.bool, device=q.device).triu(1)
        scores = scores.masked_fill(future, float("-inf"))  # key j > query i: hidden
    if mask is not None:
        if mask.dtype == torch.bool:
            scores = scores.masked_fill(~mask, float("-inf"))  # True = may attend
        else:
            scores = scores + mask  # additive: -inf hides, a finite value biases
    # Rows with no finite score: softmax would be 0 / 0. Keep them out of the softmax.
    alive = torch.isfinite(scores).any(dim=-1, keepdim=True)
    weights = torch.softmax(scores.masked_fill(~alive, 0.0), dim=-1)
    weights = weights.masked_fill(~alive, 0.0)
    return weights @ v

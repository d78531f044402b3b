# expect: failed mistake=half_precision_angles
"""Wrong for bfloat16/float16: the frequencies, angles, cos and sin all built in x's dtype."""

from __future__ import annotations

import torch


def apply_rotary(x: torch.Tensor, positions: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    d = x.shape[-1]
    half = d // 2
    inv_freq = base ** (-(torch.arange(0, d, 2, dtype=x.dtype) / d))
    angles = positions.to(x.dtype)[:, None] * inv_freq[None, :]
    cos, sin = angles.cos(), angles.sin()
    x1, x2 = x[..., :half], x[..., half:]
    return torch.cat((x1 * cos - x2 * sin, x2 * cos + x1 * sin), dim=-1)

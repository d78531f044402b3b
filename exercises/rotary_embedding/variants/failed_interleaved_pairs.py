# expect: failed mistake=interleaved_pairs
"""Wrong: adjacent features (0, 1), (2, 3), ... rotated as pairs, GPT-J's layout."""

from __future__ import annotations

import torch


def apply_rotary(x: torch.Tensor, positions: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    d = x.shape[-1]
    inv_freq = base ** (-(torch.arange(0, d, 2, dtype=work) / d))
    angles = positions.to(work)[:, None] * inv_freq[None, :]
    cos, sin = angles.cos(), angles.sin()
    pairs = x.to(work).reshape(*x.shape[:-1], d // 2, 2)
    a, b = pairs[..., 0], pairs[..., 1]
    out = torch.stack((a * cos - b * sin, b * cos + a * sin), dim=-1)
    return out.reshape(x.shape).to(x.dtype)

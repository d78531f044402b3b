"""Worked solution: rotary position embedding (RoPE) in the rotate-half layout.

Feature i is paired with feature i + head_dim/2, and the pair turns by the angle
position * base ** (-2i / head_dim). The angles are computed in float64 for float64 input and in
float32 otherwise; half-precision input is rotated in float32 and cast back once.
"""

from __future__ import annotations

import torch


def apply_rotary(x: torch.Tensor, positions: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    # float64 keeps float64; float32, bfloat16 and float16 are rotated in float32.
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    head_dim = x.shape[-1]
    half = head_dim // 2
    inv_freq = base ** (-(torch.arange(0, head_dim, 2, dtype=work) / head_dim))  # (half,)
    angles = positions.to(work)[:, None] * inv_freq[None, :]  # (seq, half)
    cos, sin = angles.cos(), angles.sin()  # broadcast over (batch, heads)
    xw = x.to(work)
    x1, x2 = xw[..., :half], xw[..., half:]
    out = torch.cat((x1 * cos - x2 * sin, x2 * cos + x1 * sin), dim=-1)
    return out.to(x.dtype)

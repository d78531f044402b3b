# expect: failed mistake=wrong_frequencies
"""Wrong: the even exponents divided by half the width, base ** (-2i / (head_dim / 2))."""

from __future__ import annotations

import torch


def apply_rotary(x: torch.Tensor, positions: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    d = x.shape[-1]
    half = d // 2
    inv_freq = base ** (-(torch.arange(0, d, 2, dtype=work) / half))
    angles = positions.to(work)[:, None] * inv_freq[None, :]
    cos, sin = angles.cos(), angles.sin()
    xw = x.to(work)
    x1, x2 = xw[..., :half], xw[..., half:]
    return torch.cat((x1 * cos - x2 * sin, x2 * cos + x1 * sin), dim=-1).to(x.dtype)

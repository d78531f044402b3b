# expect: failed mistake=consecutive_positions_assumed
"""Wrong: only the first position read; the chunk is assumed to run on from it."""

from __future__ import annotations

import torch


def apply_rotary(x: torch.Tensor, positions: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    d = x.shape[-1]
    half = d // 2
    start = int(positions[0])
    pos = torch.arange(start, start + x.shape[-2], dtype=work)
    angles = pos[:, None] * base ** (-(torch.arange(0, d, 2, dtype=work) / d))
    xw = x.to(work)
    x1, x2 = xw[..., :half], xw[..., half:]
    c, s = angles.cos(), angles.sin()
    return torch.cat((x1 * c - x2 * s, x2 * c + x1 * s), dim=-1).to(x.dtype)

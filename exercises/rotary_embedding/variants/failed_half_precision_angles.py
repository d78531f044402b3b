# expect: failed mistake=half_precision_angles
"""Wrong for bfloat16/float16: the positions cast to x's dtype (rounded past 256 in bfloat16)
before the float32 math."""

from __future__ import annotations

import torch


def apply_rotary(x: torch.Tensor, positions: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    d = x.shape[-1]
    half = d // 2
    t = positions.to(x.dtype).to(work)
    angles = t[:, None] * base ** (-(torch.arange(0, d, 2, dtype=work) / d))[None, :]
    xw = x.to(work)
    x1, x2 = xw[..., :half], xw[..., half:]
    c, s = angles.cos(), angles.sin()
    return torch.cat((x1 * c - x2 * s, x2 * c + x1 * s), dim=-1).to(x.dtype)

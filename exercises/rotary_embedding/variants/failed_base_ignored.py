# expect: failed mistake=base_ignored
"""Wrong: 10000 written into the formula; the base argument is never read."""

from __future__ import annotations

import torch


def apply_rotary(x: torch.Tensor, positions: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    d = x.shape[-1]
    half = d // 2
    inv_freq = 10000.0 ** (-(torch.arange(0, d, 2, dtype=work) / d))
    angles = positions.to(work)[:, None] * inv_freq[None, :]
    xw = x.to(work)
    x1, x2 = xw[..., :half], xw[..., half:]
    c, s = angles.cos(), angles.sin()
    return torch.cat((x1 * c - x2 * s, x2 * c + x1 * s), dim=-1).to(x.dtype)

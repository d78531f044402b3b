# expect: failed mistake=wrong_frequencies
"""Wrong: one frequency per feature, arange(head_dim) / head_dim, used as the angle table
directly."""

from __future__ import annotations

import torch


def apply_rotary(x: torch.Tensor, positions: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    d = x.shape[-1]
    inv_freq = 1.0 / base ** (torch.arange(d, dtype=work) / d)
    angles = positions.to(work)[:, None] * inv_freq
    xw = x.to(work)
    x1, x2 = xw[..., : d // 2], xw[..., d // 2 :]
    rotated = torch.cat((-x2, x1), dim=-1)
    return (xw * angles.cos() + rotated * angles.sin()).to(x.dtype)

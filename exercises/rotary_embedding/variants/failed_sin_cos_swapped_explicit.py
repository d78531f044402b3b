# expect: failed mistake=sin_cos_swapped
"""Wrong: the explicit formula with sin and cos exchanged."""

from __future__ import annotations

import torch


def apply_rotary(x: torch.Tensor, positions: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    d = x.shape[-1]
    half = d // 2
    angles = torch.outer(positions.to(work), base ** (-(torch.arange(0, d, 2, dtype=work) / d)))
    s, c = torch.cos(angles), torch.sin(angles)
    xw = x.to(work)
    x1, x2 = xw[..., :half], xw[..., half:]
    return torch.cat((x1 * c - x2 * s, x2 * c + x1 * s), dim=-1).to(x.dtype)

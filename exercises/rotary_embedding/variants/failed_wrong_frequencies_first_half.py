# expect: failed mistake=wrong_frequencies
"""Wrong: the factor 2 of the exponent forgotten, base ** (-i / head_dim) for i < half."""

from __future__ import annotations

import torch


def apply_rotary(x: torch.Tensor, positions: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    d = x.shape[-1]
    half = d // 2
    inv_freq = base ** (-(torch.arange(half, dtype=work) / d))
    angles = torch.outer(positions.to(work), inv_freq)
    xw = x.to(work)
    x1, x2 = xw[..., :half], xw[..., half:]
    c, s = torch.cos(angles), torch.sin(angles)
    return torch.cat((x1 * c - x2 * s, x1 * s + x2 * c), dim=-1).to(x.dtype)

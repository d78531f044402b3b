# expect: passed
"""Correct: the rotation as a complex product. Each rotate-half pair (x[i], x[i + half]) is the
complex number x1 + i x2, multiplied by e^{i angle} = torch.polar(1, angle)."""

from __future__ import annotations

import torch


def apply_rotary(x: torch.Tensor, positions: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    d = x.shape[-1]
    half = d // 2
    inv_freq = 1.0 / base ** (torch.arange(half, dtype=work) * 2 / d)
    angles = torch.outer(positions.to(work), inv_freq)
    turn = torch.polar(torch.ones_like(angles), angles)  # e^{i angle}, (seq, half)
    xw = x.to(work)
    z = torch.complex(xw[..., :half], xw[..., half:]) * turn
    return torch.cat((z.real, z.imag), dim=-1).to(x.dtype)

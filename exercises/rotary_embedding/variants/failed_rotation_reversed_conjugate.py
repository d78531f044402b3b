# expect: failed mistake=rotation_reversed
"""Wrong: the complex rotation conjugated (e^{-i angle})."""

from __future__ import annotations

import torch


def apply_rotary(x: torch.Tensor, positions: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    d = x.shape[-1]
    half = d // 2
    angles = torch.outer(positions.to(work), base ** (-(torch.arange(0, d, 2, dtype=work) / d)))
    turn = torch.polar(torch.ones_like(angles), angles).conj()
    xw = x.to(work)
    z = torch.complex(xw[..., :half], xw[..., half:]) * turn
    return torch.cat((z.real, z.imag), dim=-1).to(x.dtype)

# expect: failed class=float32_internals
"""Wrong for float64: Meta's LLaMA habit, everything through x.float(), cast back at the end.
Right for float32 and half precision."""

from __future__ import annotations

import torch


def apply_rotary(x: torch.Tensor, positions: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    d = x.shape[-1]
    half = d // 2
    inv_freq = 1.0 / (base ** (torch.arange(0, d, 2).float() / d))
    angles = positions.float()[:, None] * inv_freq[None, :]
    cos, sin = angles.cos(), angles.sin()
    xf = x.float()
    x1, x2 = xf[..., :half], xf[..., half:]
    return torch.cat((x1 * cos - x2 * sin, x2 * cos + x1 * sin), dim=-1).to(x.dtype)

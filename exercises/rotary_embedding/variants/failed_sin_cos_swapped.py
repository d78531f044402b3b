# expect: failed mistake=sin_cos_swapped
"""Wrong: x * sin + rotate_half(x) * cos."""

from __future__ import annotations

import torch


def apply_rotary(x: torch.Tensor, positions: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    d = x.shape[-1]
    half = d // 2
    freqs = positions.to(work)[:, None] * base ** (-(torch.arange(0, d, 2, dtype=work) / d))
    emb = torch.cat((freqs, freqs), dim=-1)
    xw = x.to(work)
    rot = torch.cat((-xw[..., half:], xw[..., :half]), dim=-1)
    return (xw * emb.sin() + rot * emb.cos()).to(x.dtype)

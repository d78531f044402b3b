# expect: failed mistake=rotation_reversed
"""Wrong: rotate_half written cat(x2, -x1), which turns every pair the other way."""

from __future__ import annotations

import torch


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((x2, -x1), dim=-1)


def apply_rotary(x: torch.Tensor, positions: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    d = x.shape[-1]
    inv_freq = 1.0 / (base ** (torch.arange(0, d, 2, dtype=work) / d))
    freqs = positions.to(work)[:, None] * inv_freq
    emb = torch.cat((freqs, freqs), dim=-1)
    xw = x.to(work)
    return (xw * emb.cos() + rotate_half(xw) * emb.sin()).to(x.dtype)

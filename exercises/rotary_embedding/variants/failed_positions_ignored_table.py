# expect: failed mistake=positions_ignored
"""Wrong: a cos/sin table sliced to the first seq rows (cos[:seq]) instead of indexed with the
positions."""

from __future__ import annotations

import torch


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def apply_rotary(x: torch.Tensor, positions: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    d = x.shape[-1]
    inv_freq = 1.0 / (base ** (torch.arange(0, d, 2, dtype=work) / d))
    table = torch.arange(int(positions.max()) + x.shape[-2] + 1, dtype=work)[:, None] * inv_freq
    emb = torch.cat((table, table), dim=-1)
    seq = x.shape[-2]
    cos, sin = emb.cos()[:seq], emb.sin()[:seq]
    xw = x.to(work)
    return (xw * cos + rotate_half(xw) * sin).to(x.dtype)

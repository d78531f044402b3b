# expect: failed mistake=base_ignored
"""Wrong: a module-level THETA used instead of the argument."""

from __future__ import annotations

import torch

THETA = 10_000


def apply_rotary(x: torch.Tensor, positions: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    d = x.shape[-1]
    half = d // 2
    inv_freq = THETA ** (-(torch.arange(0, d, 2, dtype=work) / d))
    angles = positions.to(work).unsqueeze(1) * inv_freq
    xw = x.to(work)
    rot = torch.cat((-xw[..., half:], xw[..., :half]), dim=-1)
    emb = torch.cat((angles, angles), dim=-1)
    return (xw * emb.cos() + rot * emb.sin()).to(x.dtype)

# expect: failed mistake=consecutive_positions_assumed
"""Wrong: the chunk's offset read off its first token (positions[:1]) and counted on with
arange."""

from __future__ import annotations

import torch


def apply_rotary(x: torch.Tensor, positions: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    d = x.shape[-1]
    offset = positions[:1].to(work)
    pos = offset + torch.arange(x.shape[-2], dtype=work)
    inv_freq = 1.0 / (base ** (torch.arange(0, d, 2, dtype=work) / d))
    freqs = torch.outer(pos, inv_freq)
    emb = torch.cat((freqs, freqs), dim=-1)
    xw = x.to(work)
    rot = torch.cat((-xw[..., d // 2 :], xw[..., : d // 2]), dim=-1)
    return (xw * emb.cos() + rot * emb.sin()).to(x.dtype)

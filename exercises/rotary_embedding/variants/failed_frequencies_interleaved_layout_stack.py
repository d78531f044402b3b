# expect: failed mistake=frequencies_interleaved_layout
"""Wrong: each angle doubled in place (stack then flatten), while the pairs are rotate-half."""

from __future__ import annotations

import torch


def apply_rotary(x: torch.Tensor, positions: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    d = x.shape[-1]
    half = d // 2
    freqs = torch.outer(positions.to(work), base ** (-(torch.arange(0, d, 2, dtype=work) / d)))
    emb = torch.stack((freqs, freqs), dim=-1).flatten(-2)
    xw = x.to(work)
    rot = torch.cat((-xw[..., half:], xw[..., :half]), dim=-1)
    return (xw * torch.cos(emb) + rot * torch.sin(emb)).to(x.dtype)

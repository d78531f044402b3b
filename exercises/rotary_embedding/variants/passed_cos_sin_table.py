# expect: passed
"""Correct: Hugging Face's shape of it. A cos/sin table with a row per position up to the
largest one (emb = cat(freqs, freqs)), looked up with the positions, then
x * cos + rotate_half(x) * sin."""

from __future__ import annotations

import torch


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary(x: torch.Tensor, positions: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    wide = x.dtype == torch.float64
    work = torch.float64 if wide else torch.float32
    d = x.shape[-1]
    inv_freq = 1.0 / (base ** (torch.arange(0, d, 2, dtype=work) / d))
    t = torch.arange(int(positions.max()) + 1, dtype=work)
    freqs = torch.einsum("i,j->ij", t, inv_freq)
    emb = torch.cat((freqs, freqs), dim=-1)  # (max_pos + 1, head_dim)
    cos, sin = emb.cos()[positions.long()], emb.sin()[positions.long()]
    xw = x.to(work)
    return (xw * cos + rotate_half(xw) * sin).to(x.dtype)

# expect: failed class=float32_internals
"""Wrong for float64: Hugging Face's float32 inv_freq buffer, the rest in x's precision."""

from __future__ import annotations

import torch


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary(x: torch.Tensor, positions: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    d = x.shape[-1]
    inv_freq = 1.0 / (base ** (torch.arange(0, d, 2, dtype=torch.int64).float() / d))
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    freqs = positions.to(work)[:, None] * inv_freq.to(work)[None, :]
    emb = torch.cat((freqs, freqs), dim=-1)
    xw = x.to(work)
    return (xw * emb.cos() + rotate_half(xw) * emb.sin()).to(x.dtype)

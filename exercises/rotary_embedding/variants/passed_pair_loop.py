# expect: passed
"""Correct: explicit slicing, one pair at a time (slow, but it is the definition)."""

from __future__ import annotations

import torch


def apply_rotary(x: torch.Tensor, positions: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    d = x.shape[-1]
    half = d // 2
    pos = positions.to(work)
    xw = x.to(work)
    first, second = [], []
    for i in range(half):
        theta = pos * base ** (-2.0 * i / d)  # (seq,)
        c, s = theta.cos()[:, None], theta.sin()[:, None]
        a, b = xw[..., i : i + 1], xw[..., i + half : i + half + 1]
        first.append(a * c - b * s)
        second.append(b * c + a * s)
    return torch.cat(first + second, dim=-1).to(x.dtype)

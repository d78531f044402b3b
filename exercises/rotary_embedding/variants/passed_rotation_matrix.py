# expect: passed
"""Correct: an explicit 2x2 rotation matrix per (position, pair), applied with einsum to the
stacked halves."""

from __future__ import annotations

import math

import torch


def apply_rotary(x: torch.Tensor, positions: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    d = x.shape[-1]
    half = d // 2
    exponents = torch.arange(half, dtype=work) * (-2.0 * math.log(base) / d)
    angles = positions.to(work).unsqueeze(-1) * torch.exp(exponents)  # (seq, half)
    c, s = torch.cos(angles), torch.sin(angles)
    rot = torch.stack((torch.stack((c, -s), -1), torch.stack((s, c), -1)), -2)  # (seq, half, 2, 2)
    pairs = torch.stack((x[..., :half], x[..., half:]), dim=-1).to(work)  # (b, h, seq, half, 2)
    turned = torch.einsum("tpij,bhtpj->bhtpi", rot, pairs)
    return torch.cat((turned[..., 0], turned[..., 1]), dim=-1).to(x.dtype)

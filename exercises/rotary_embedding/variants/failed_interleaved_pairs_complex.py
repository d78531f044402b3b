# expect: failed mistake=interleaved_pairs
"""Wrong: Meta's LLaMA code, view_as_complex on x.reshape(..., -1, 2): adjacent features form
each complex number, where this contract pairs i with i + half."""

from __future__ import annotations

import torch


def apply_rotary(x: torch.Tensor, positions: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    d = x.shape[-1]
    freqs = base ** (-(torch.arange(0, d, 2, dtype=work) / d))
    angles = torch.outer(positions.to(work), freqs)
    freqs_cis = torch.polar(torch.ones_like(angles), angles)
    xc = torch.view_as_complex(x.to(work).reshape(*x.shape[:-1], -1, 2).contiguous())
    return torch.view_as_real(xc * freqs_cis).flatten(-2).to(x.dtype)

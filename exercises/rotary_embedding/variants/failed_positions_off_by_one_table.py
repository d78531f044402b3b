# expect: failed mistake=positions_off_by_one
"""Wrong: the cos/sin table built for t = 1 .. n and indexed with 0-based positions."""

from __future__ import annotations

import torch


def apply_rotary(x: torch.Tensor, positions: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    d = x.shape[-1]
    n = int(positions.max()) + 1
    t = torch.arange(1, n + 1, dtype=work)
    freqs = torch.outer(t, 1.0 / base ** (torch.arange(0, d, 2, dtype=work) / d))
    cos, sin = freqs.cos()[positions.long()], freqs.sin()[positions.long()]
    xw = x.to(work)
    x1, x2 = xw.chunk(2, dim=-1)
    return torch.cat((x1 * cos - x2 * sin, x2 * cos + x1 * sin), dim=-1).to(x.dtype)

# expect: rejected
"""Rejected: the same operator reached through torch.ops by a name built at run time."""

from __future__ import annotations

import torch


def apply_rotary(x: torch.Tensor, positions: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    op = getattr(getattr(torch.ops, "on" + "nx"), "Rotary" + "Embedding").opset23
    d = x.shape[-1]
    t = torch.arange(int(positions.max()) + 1, dtype=torch.float64)
    freqs = t[:, None] * base ** (-(torch.arange(0, d, 2, dtype=torch.float64) / d))
    ids = positions.long()[None].expand(x.shape[0], -1)
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    out = op(x.to(work), freqs.cos().to(work), freqs.sin().to(work), ids)
    return out.to(x.dtype)

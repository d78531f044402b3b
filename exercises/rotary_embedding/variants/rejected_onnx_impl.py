# expect: rejected
"""Rejected: the ONNX operator's implementation module, imported directly."""

from __future__ import annotations

import torch
import torch.onnx.ops._impl as impl


def apply_rotary(x: torch.Tensor, positions: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    d = x.shape[-1]
    t = torch.arange(int(positions.max()) + 1, dtype=torch.float32)
    freqs = t[:, None] * base ** (-(torch.arange(0, d, 2, dtype=torch.float32) / d))
    ids = positions.long()[None].expand(x.shape[0], -1)
    fn = impl.rotary_embedding_23
    return fn(x.float(), freqs.cos(), freqs.sin(), ids).to(x.dtype)

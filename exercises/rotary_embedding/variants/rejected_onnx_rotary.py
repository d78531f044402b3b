# expect: rejected
"""Rejected: torch's own RoPE, the ONNX RotaryEmbedding operator."""

from __future__ import annotations

import torch
from torch.onnx.ops import rotary_embedding


def apply_rotary(x: torch.Tensor, positions: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    d = x.shape[-1]
    t = torch.arange(int(positions.max()) + 1, dtype=torch.float32)
    freqs = t[:, None] * base ** (-(torch.arange(0, d, 2, dtype=torch.float32) / d))
    ids = positions.long()[None].expand(x.shape[0], -1)
    return rotary_embedding(x.float(), freqs.cos(), freqs.sin(), ids).to(x.dtype)

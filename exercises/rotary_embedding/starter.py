from __future__ import annotations

import torch


def apply_rotary(x: torch.Tensor, positions: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    # x: (batch, heads, seq, head_dim); positions: (seq,) integer absolute positions.
    # Pair feature i with i + head_dim/2 and turn the pair by positions[t] * base ** (-2i/head_dim):
    # out = x * cos + rotate_half(x) * sin, rotate_half(x) = cat(-x2, x1).
    raise NotImplementedError("implement apply_rotary")

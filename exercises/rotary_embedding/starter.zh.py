from __future__ import annotations

import torch


def apply_rotary(x: torch.Tensor, positions: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    # x：(batch, heads, seq, head_dim)；positions：(seq,)，整数的绝对位置。
    # 第 i 个特征与第 i + head_dim/2 个特征配对，这一对转过 positions[t] * base ** (-2i/head_dim)：
    # out = x * cos + rotate_half(x) * sin，其中 rotate_half(x) = cat(-x2, x1)。
    raise NotImplementedError("implement apply_rotary")

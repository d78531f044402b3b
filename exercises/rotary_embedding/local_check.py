"""RoPE against torch's ONNX RotaryEmbedding operator: positions from 0, an offset (a decode
chunk), and two packed sequences

RoPE 与 torch 的 ONNX RotaryEmbedding 算子对照：从 0 开始的位置、带偏移的位置（解码时的一段），
以及拼接在一起的两条序列
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
import torch.onnx.ops

from addnorm_client.local import LocalCase


def _expected(x: torch.Tensor, positions: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    d = x.shape[-1]
    t = torch.arange(int(positions.max()) + 1, dtype=torch.float32)
    table = t[:, None] * base ** (-(torch.arange(0, d, 2, dtype=torch.float32) / d))
    ids = positions[None].expand(x.shape[0], -1)
    return torch.onnx.ops.rotary_embedding(x, table.cos(), table.sin(), ids, interleaved=False)


def local_cases() -> list[LocalCase]:
    g = torch.Generator().manual_seed(0)

    def case(name: str, x: torch.Tensor, positions: torch.Tensor) -> LocalCase:
        def build(fn: Any) -> Callable[[torch.Tensor], Any]:
            return lambda t: fn(t, positions)

        return LocalCase(name=name, x=x, build=build, expected=_expected(x, positions))

    return [
        case("positions 0..7", torch.randn(2, 3, 8, 16, generator=g), torch.arange(8)),
        case("positions 40..44", torch.randn(2, 2, 5, 32, generator=g), torch.arange(40, 45)),
        case(
            "two packed sequences [0, 1, 2, 0, 1, 2, 3]",
            torch.randn(1, 2, 7, 8, generator=g),
            torch.tensor([0, 1, 2, 0, 1, 2, 3]),
        ),
    ]

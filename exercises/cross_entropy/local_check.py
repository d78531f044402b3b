"""`F.cross_entropy(logits, target, ignore_index, label_smoothing)` on logits around 1e4, on an
(N, C, d) input with ignored targets and smoothing, and with ignore_index = 0

`F.cross_entropy(logits, target, ignore_index, label_smoothing)`：logits 在 1e4 附近；带被忽略
target 和标签平滑的 (N, C, d) 输入；以及 ignore_index = 0
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F

from addnorm_client.local import LocalCase


def local_cases() -> list[LocalCase]:
    g = torch.Generator().manual_seed(0)

    def case(name: str, x: torch.Tensor, t: torch.Tensor, ignore: int, eps: float) -> LocalCase:
        def build(fn: Any) -> Callable[[torch.Tensor], Any]:
            return lambda logits: fn(logits, t, ignore, eps)

        expected = F.cross_entropy(x, t, ignore_index=ignore, label_smoothing=eps)
        return LocalCase(name=name, x=x, build=build, expected=expected)

    big = torch.randn(4, 10, generator=g) + 1e4  # exp(1e4) overflows unless the max goes first
    big_t = torch.randint(0, 10, (4,), generator=g)
    seq = torch.randn(2, 5, 7, generator=g) * 2  # (N, C, d): the classes on dim 1
    seq_t = torch.randint(0, 5, (2, 7), generator=g)
    seq_t[0, :3] = -100
    rows = torch.randn(6, 4, generator=g)
    rows_t = torch.tensor([0, 1, 2, 0, 3, 1])
    return [
        case("logits around 1e4", big, big_t, -100, 0.0),
        case("(N, C, d), some targets -100, label_smoothing 0.1", seq, seq_t, -100, 0.1),
        case("ignore_index = 0, label_smoothing 1.0", rows, rows_t, 0, 1.0),
    ]

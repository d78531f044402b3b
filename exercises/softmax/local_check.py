"""`torch.softmax(x, dim)` and `torch.log_softmax(x, dim)`, on large logits, a causal mask
and a leading axis

`torch.softmax(x, dim)` 与 `torch.log_softmax(x, dim)`，输入包括很大的 logits、因果掩码，
以及沿第一个维度的归一化
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from addnorm_client.local import LocalCase


def local_cases() -> list[LocalCase]:
    g = torch.Generator().manual_seed(0)

    def case(name: str, x: torch.Tensor, function: str, dim: int) -> LocalCase:
        reference = torch.softmax if function == "softmax" else torch.log_softmax

        def build(functions: dict[str, Any]) -> Callable[[torch.Tensor], Any]:
            return lambda t: functions[function](t, dim=dim)

        return LocalCase(
            name=f"{function}: {name}",
            x=x,
            build=build,
            expected=reference(x, dim),
        )

    scores = torch.randn(6, 6, generator=g) * 4  # causal attention scores: -inf above the diagonal
    causal = scores.masked_fill(torch.ones(6, 6, dtype=torch.bool).triu(1), float("-inf"))
    big = torch.randn(3, 10, generator=g) + 1e4  # exp(1e4) overflows unless the max goes first
    wide = torch.randn(3, 5, 7, generator=g) * 3
    return [
        case("logits around 1e4", big, "softmax", -1),
        case("logits around 1e4", big, "log_softmax", -1),
        case("causal mask (-inf above the diagonal)", causal, "softmax", -1),
        case("causal mask (-inf above the diagonal)", causal, "log_softmax", -1),
        case("3-D, dim=0", wide, "softmax", 0),
        case("3-D, dim=0", wide, "log_softmax", 0),
    ]

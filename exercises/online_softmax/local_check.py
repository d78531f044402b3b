"""`torch.softmax(x, -1)` computed in chunks, on logits of 1e4 and on rows whose first chunk is
all -inf; and one update from the empty state

分块计算的 `torch.softmax(x, -1)`：logits 为 1e4、以及第一个块全为 -inf 的行；再加一次从空
状态开始的更新
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from addnorm_client.local import LocalCase


def local_cases() -> list[LocalCase]:
    g = torch.Generator().manual_seed(0)
    big = torch.randn(3, 300, generator=g) + 1e4
    head = torch.randn(2, 200, generator=g)
    head[:, :64] = float("-inf")  # the first chunk of 64 sees nothing finite
    chunk = torch.randn(3, 40, generator=g) * 3

    def softmax_case(name: str, x: torch.Tensor, size: int) -> LocalCase:
        def build(fns: dict[str, Any]) -> Callable[[torch.Tensor], Any]:
            return lambda t: fns["online_softmax"](t, size)

        return LocalCase(name=name, x=x, build=build, expected=torch.softmax(x, -1))

    def update_build(fns: dict[str, Any]) -> Callable[[torch.Tensor], Any]:
        def call(t: torch.Tensor) -> Any:
            m = torch.full((t.shape[0], 1), float("-inf"), dtype=t.dtype)
            return fns["online_softmax_update"](t, m, torch.zeros_like(m))[1]

        return call

    m0 = chunk.amax(-1, keepdim=True)
    return [
        softmax_case("logits around 1e4, chunks of 128", big, 128),
        softmax_case("first chunk all -inf, chunks of 64", head, 64),
        LocalCase(
            name="update from the empty state: the new sum",
            x=chunk,
            build=update_build,
            expected=torch.exp(chunk - m0).sum(-1, keepdim=True),
        ),
    ]

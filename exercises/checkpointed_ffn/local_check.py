"""`linear2(gelu(linear1(x)))` with random weights: the output, and the gradients of x and the
parameters your recomputing backward returns (the memory budget is measured on the server)

`linear2(gelu(linear1(x)))`，权重随机：比较输出，以及你的重算式 backward 给出的 x 和参数的
梯度（内存预算在服务器上测量）
"""

from __future__ import annotations

import torch

from addnorm_client.local import LocalCase


def local_cases() -> list[LocalCase]:
    g = torch.Generator().manual_seed(0)

    def case(name: str, shape: tuple[int, ...], hidden: int) -> LocalCase:
        dim = shape[-1]
        x = torch.randn(shape, generator=g)
        state = {
            "linear1.weight": torch.randn(hidden, dim, generator=g) / dim**0.5,
            "linear1.bias": torch.randn(hidden, generator=g) * 0.5,
            "linear2.weight": torch.randn(dim, hidden, generator=g) / hidden**0.5,
            "linear2.bias": torch.randn(dim, generator=g) * 0.5,
        }
        h = torch.nn.functional.gelu(x @ state["linear1.weight"].T + state["linear1.bias"])
        expected = h @ state["linear2.weight"].T + state["linear2.bias"]
        return LocalCase(
            name=name, x=x, build=lambda cls: cls(dim, hidden), expected=expected, state=state
        )

    return [case("2-D", (4, 16), 64), case("3-D", (2, 3, 8), 32), case("1-D", (12,), 48)]

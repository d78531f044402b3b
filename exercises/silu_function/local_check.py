"""`torch.nn.functional.silu`: the output, and your backward's gradient for x

`torch.nn.functional.silu`：比较输出，以及你的 backward 对 x 的梯度
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from addnorm_client.local import LocalCase


def local_cases() -> list[LocalCase]:
    g = torch.Generator().manual_seed(0)

    def case(name: str, shape: tuple[int, ...], scale: float) -> LocalCase:
        x = torch.randn(shape, generator=g) * scale
        return LocalCase(
            name=name,
            x=x,
            build=lambda fn: fn.apply,
            expected=F.silu(x),
        )

    return [
        case("2-D", (4, 8), 1.0),
        case("3-D, wide range", (2, 3, 40), 4.0),
        case("large |x|", (3, 16), 100.0),
    ]

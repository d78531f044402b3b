"""`torch.nn.functional.silu`, forward only (the server also grades your backward)

`torch.nn.functional.silu`，只比较前向（服务器还会评测你的 backward）
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

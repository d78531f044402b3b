"""`torch.nn.functional.gelu` with `approximate="none"` and `"tanh"`

`torch.nn.functional.gelu`，`approximate` 分别取 `"none"` 和 `"tanh"`
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from addnorm_client.local import LocalCase


def local_cases() -> list[LocalCase]:
    g = torch.Generator().manual_seed(0)

    def case(name: str, shape: tuple[int, ...], approximate: str, scale: float) -> LocalCase:
        x = torch.randn(shape, generator=g) * scale
        return LocalCase(
            name=name,
            x=x,
            build=lambda cls: cls(approximate=approximate),
            state={},
            expected=F.gelu(x, approximate=approximate),
        )

    return [
        case("exact, 2-D", (4, 8), "none", 1.0),
        case("tanh, 2-D", (4, 8), "tanh", 1.0),
        case("exact, wide range", (3, 64), "none", 4.0),
        case("tanh, wide range", (3, 64), "tanh", 4.0),
    ]

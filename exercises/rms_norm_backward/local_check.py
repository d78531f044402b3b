"""`torch.nn.functional.rms_norm` with a random weight, forward only

`torch.nn.functional.rms_norm`，weight 随机，只比较前向
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F

from addnorm_client.local import LocalCase


def local_cases() -> list[LocalCase]:
    g = torch.Generator().manual_seed(0)

    def case(name: str, shape: tuple[int, ...], scale: float) -> LocalCase:
        x = torch.randn(shape, generator=g) * scale
        d = shape[-1]
        w = 1 + 0.5 * torch.randn(d, generator=g)

        def build(fn: Any) -> Callable[[torch.Tensor], Any]:
            return lambda t: fn.apply(t, w, 1e-6)

        return LocalCase(name, x, build, F.rms_norm(x, (d,), w, 1e-6))

    return [
        case("2-D", (4, 16), 1.0),
        case("3-D", (2, 3, 24), 1.0),
        case("offset rows", (3, 40), 5.0),
    ]

"""`torch.nn.functional.layer_norm` with random weight and bias: the output, and your backward's
gradients for x, weight and bias

`torch.nn.functional.layer_norm`，weight 和 bias 随机：比较输出，以及你的 backward
对 x、weight、bias 的梯度
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
        b = torch.randn(d, generator=g)

        def build(fn: Any) -> Callable[..., Any]:
            return lambda t, weight=w, bias=b: fn.apply(t, weight, bias, 1e-5)

        expected = F.layer_norm(x, (d,), w, b, 1e-5)
        return LocalCase(name, x, build, expected, leaves={"weight": w, "bias": b})

    return [
        case("2-D", (4, 16), 1.0),
        case("3-D", (2, 3, 24), 1.0),
        case("offset rows", (3, 40), 5.0),
    ]

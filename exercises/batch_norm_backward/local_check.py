"""`torch.nn.functional.batch_norm` in training mode with random weight and bias, on (N, C) and
(N, C, L): the output, and your backward's gradients for x, weight and bias

训练模式下的 `torch.nn.functional.batch_norm`，weight 和 bias 随机，输入为 (N, C) 和
(N, C, L)：比较输出，以及你的 backward 对 x、weight、bias 的梯度
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
        x = torch.randn(shape, generator=g) * scale + 1.0
        c = shape[1]
        w = 1 + 0.5 * torch.randn(c, generator=g)
        b = torch.randn(c, generator=g)

        def build(fn: Any) -> Callable[..., Any]:
            return lambda t, weight=w, bias=b: fn.apply(t, weight, bias, 1e-5)

        expected = F.batch_norm(x, None, None, w, b, training=True, eps=1e-5)
        return LocalCase(name, x, build, expected, leaves={"weight": w, "bias": b})

    return [
        case("(N, C)", (8, 6), 1.0),
        case("(N, C, L)", (4, 5, 7), 2.0),
        case("few rows", (3, 4), 1.0),
    ]

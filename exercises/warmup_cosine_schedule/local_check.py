"""Every step of a short schedule (0 to past the end) against the formula, the warm-up and the
decay both; fractional steps; no warm-up

一个短调度的每一步（从 0 到超过终点）与公式对比，预热与衰减都有；非整数步；没有预热
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import torch

from addnorm_client.local import LocalCase


def _formula(s: float, w: int, t: int, m: float) -> float:
    if s < w:
        return s / w
    p = min((s - w) / (t - w), 1.0)
    return m + (1 - m) * 0.5 * (1 + math.cos(math.pi * p))


def local_cases() -> list[LocalCase]:
    def case(name: str, x: torch.Tensor, w: int, t: int, m: float) -> LocalCase:
        def build(fn: Any) -> Callable[[torch.Tensor], Any]:
            return lambda steps: fn(steps, w, t, m)

        values = [_formula(s, w, t, m) for s in x.double().tolist()]
        expected = torch.tensor(values, dtype=torch.float64).to(x.dtype)
        return LocalCase(name=name, x=x, build=build, expected=expected)

    return [
        case("every step 0..130, W = 10, T = 110, m = 0.1", torch.arange(131.0), 10, 110, 0.1),
        case(
            "fractional steps, W = 8, T = 40, m = 0.2",
            torch.linspace(0.0, 45.0, 181, dtype=torch.float64),
            8,
            40,
            0.2,
        ),
        case("no warm-up, W = 0, T = 50, m = 0.05", torch.arange(61.0), 0, 50, 0.05),
    ]

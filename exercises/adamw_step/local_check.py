"""`torch.optim.AdamW` for five steps on three parameters: the defaults, a large lr and weight
decay, and two groups (no decay on the 1-D parameters) with one parameter frozen on a step; the
parameters after the last step are compared

`torch.optim.AdamW` 在三个参数上跑五步：默认超参数、较大的 lr 和权重衰减、两个参数组（一维
参数不衰减）且其中一个参数有一步没有梯度；比较最后一步之后的参数
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from torch import nn

from addnorm_client.local import LocalCase

STEPS = 5


def _run(make: Any, x: torch.Tensor, kwargs: dict[str, Any], grouped: bool) -> torch.Tensor:
    """Five steps of the optimiser ``make`` builds on three parameters (x the first one's
    values), gradients drawn from a fixed seed; the parameters flattened afterwards."""
    g = torch.Generator().manual_seed(1)
    params = [nn.Parameter(x.clone()), nn.Parameter(torch.ones(5)), nn.Parameter(torch.zeros(5))]
    handed: Any = params
    if grouped:
        handed = [{"params": params[:1]}, {"params": params[1:], "weight_decay": 0.0}]
    optimiser = make(handed, **kwargs)
    for step in range(STEPS):
        for i, p in enumerate(params):
            p.grad = (
                None if (grouped and step == 2 and i == 2) else torch.randn(p.shape, generator=g)
            )
        optimiser.step()
    return torch.cat([p.detach().reshape(-1) for p in params])


def local_cases() -> list[LocalCase]:
    x = torch.randn(4, 5, generator=torch.Generator().manual_seed(0))

    def case(name: str, kwargs: dict[str, Any], grouped: bool = False) -> LocalCase:
        def build(cls: Any) -> Callable[[torch.Tensor], torch.Tensor]:
            return lambda t: _run(cls, t, kwargs, grouped)

        expected = _run(torch.optim.AdamW, x, kwargs, grouped)
        return LocalCase(name=name, x=x, build=build, expected=expected, updates_in_place=True)

    return [
        case("defaults, five steps", {}),
        case("lr 0.05, weight_decay 0.1", {"lr": 0.05, "weight_decay": 0.1}),
        case("two groups, a frozen step", {"lr": 0.05, "weight_decay": 0.1}, grouped=True),
    ]

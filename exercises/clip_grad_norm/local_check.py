"""`torch.nn.utils.clip_grad_norm_` on three small parameters: gradients far above max_norm,
the inf norm, and one parameter without a gradient handed as a generator; the returned norm
and every gradient after the call are compared

三个小参数上的 `torch.nn.utils.clip_grad_norm_`：远超 max_norm 的梯度、inf 范数、以生成器传入
且其中一个参数没有梯度；比较返回的范数以及调用之后的每个梯度
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from torch import nn

from addnorm_client.local import LocalCase


def _parameters(x: torch.Tensor, g: torch.Generator) -> list[nn.Parameter]:
    """x is the first parameter's gradient; two more parameters with drawn gradients, the
    last one with none."""
    params = [
        nn.Parameter(torch.zeros_like(x)),
        nn.Parameter(torch.ones(7)),
        nn.Parameter(torch.ones(3)),
    ]
    params[0].grad = x.clone()
    params[1].grad = torch.randn(7, generator=g) * 2
    return params


def _flat(total: Any, params: list[nn.Parameter]) -> torch.Tensor:
    grads = [p.grad if p.grad is not None else torch.zeros_like(p) for p in params]
    return torch.cat([torch.as_tensor(total).reshape(1), *(q.reshape(-1) for q in grads)])


def local_cases() -> list[LocalCase]:
    g = torch.Generator().manual_seed(0)
    big = torch.randn(4, 6, generator=g) * 3

    def case(name: str, x: torch.Tensor, max_norm: float, **kw: Any) -> LocalCase:
        seed = int(torch.randint(0, 2**31 - 1, (1,), generator=g))
        as_generator = kw.pop("as_generator", False)

        def build(fn: Any) -> Callable[[torch.Tensor], torch.Tensor]:
            def call(t: torch.Tensor) -> torch.Tensor:
                params = _parameters(t, torch.Generator().manual_seed(seed))
                handed = (p for p in params) if as_generator else params
                return _flat(fn(handed, max_norm, **kw), params)

            return call

        reference = _parameters(x, torch.Generator().manual_seed(seed))
        total = torch.nn.utils.clip_grad_norm_(reference, max_norm, **kw)
        return LocalCase(
            name=name, x=x, build=build, expected=_flat(total, reference), updates_in_place=True
        )

    return [
        case("global norm far above max_norm = 1", big, 1.0),
        case("norm_type = inf, max_norm = 2", big, 2.0, norm_type=float("inf")),
        case("a generator, max_norm = 2", big, 2.0, as_generator=True),
        case("under the threshold: left as it is", big * 0.01, 5.0),
    ]

"""The layer's output and its aux loss on three small configurations, routed per token

三个小配置下该层的输出和辅助损失，逐 token 路由
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F

from addnorm_client.local import LocalCase


def _answer(state: dict[str, torch.Tensor], x: torch.Tensor, n: int, k: int) -> list[torch.Tensor]:
    t = x.reshape(-1, x.shape[-1])
    probs = F.softmax(F.linear(t, state["gate.weight"]), dim=-1)
    top_p, top_i = probs.topk(k, dim=-1)
    w = torch.zeros_like(probs).scatter(1, top_i, top_p / top_p.sum(-1, keepdim=True))
    out = sum(
        w[:, e : e + 1]
        * F.linear(
            F.silu(F.linear(t, state[f"experts.{e}.w1.weight"]))
            * F.linear(t, state[f"experts.{e}.w3.weight"]),
            state[f"experts.{e}.w2.weight"],
        )
        for e in range(n)
    )
    f = F.one_hot(top_i, n).sum(1).to(x.dtype).mean(0)
    return [torch.as_tensor(out).reshape(x.shape), n * (f * probs.mean(0)).sum()]


def _part(
    cls: Any, args: tuple[int, int, int, int], state: dict[str, torch.Tensor], which: int
) -> Callable[..., torch.Tensor]:
    """The learner's layer with the case's weights, as a function of x and those weights
    (named like the state dict), returning one of its two outputs."""
    module = cls(*args)
    module.load_state_dict(state, strict=True)

    def call(x: torch.Tensor, **weights: torch.Tensor) -> torch.Tensor:
        given = {**state, **weights}
        given = {k: v.to(x.dtype) for k, v in given.items()}
        out: torch.Tensor = torch.func.functional_call(module, given, (x,))[which]
        return out

    return call


def local_cases() -> list[LocalCase]:
    g = torch.Generator().manual_seed(0)
    cases: list[LocalCase] = []
    for name, shape, hidden, n, k in (
        ("top-2 of 4", (2, 3, 8), 12, 4, 2),
        ("top-1 of 3", (1, 5, 6), 8, 3, 1),
    ):
        dim = shape[-1]
        state = {"gate.weight": torch.randn(n, dim, generator=g) / dim**0.5}
        for e in range(n):
            state[f"experts.{e}.w1.weight"] = torch.randn(hidden, dim, generator=g) / dim**0.5
            state[f"experts.{e}.w2.weight"] = torch.randn(dim, hidden, generator=g) / hidden**0.5
            state[f"experts.{e}.w3.weight"] = torch.randn(hidden, dim, generator=g) / dim**0.5
        x = torch.randn(shape, generator=g)
        answers = _answer(state, x, n, k)
        args = (dim, hidden, n, k)
        for which, what in ((0, "output"), (1, "aux loss")):

            def build(
                cls: Any,
                a: tuple[int, int, int, int] = args,
                s: dict[str, torch.Tensor] = state,
                w: int = which,
            ) -> Callable[..., torch.Tensor]:
                return _part(cls, a, s, w)

            cases.append(
                LocalCase(
                    name=f"{name}, {what}",
                    x=x,
                    build=build,
                    expected=answers[which],
                    leaves=state,
                )
            )
    return cases

"""The four placements in eval mode, `F.layer_norm` around a random `Linear` sublayer

四种放置方式（评估模式），子层为随机权重的 `Linear`，归一化用 `F.layer_norm`
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from addnorm_client.local import LocalCase


def local_cases() -> list[LocalCase]:
    g = torch.Generator().manual_seed(0)

    def case(placement: str, shape: tuple[int, ...], alpha: float = 1.0) -> LocalCase:
        dim = shape[-1]
        x = torch.randn(shape, generator=g)
        names = ["norm_in", "norm_out"] if placement == "sandwich" else ["norm"]
        state = {}
        for n in names:
            state[f"{n}.weight"] = torch.randn(dim, generator=g)
            state[f"{n}.bias"] = torch.randn(dim, generator=g)
        state["sublayer.weight"] = torch.randn(dim, dim, generator=g) / dim**0.5
        state["sublayer.bias"] = torch.randn(dim, generator=g)

        def norm(n: str, t: torch.Tensor) -> torch.Tensor:
            return F.layer_norm(t, (dim,), state[f"{n}.weight"], state[f"{n}.bias"])

        def f(t: torch.Tensor) -> torch.Tensor:
            return F.linear(t, state["sublayer.weight"], state["sublayer.bias"])

        if placement == "pre":
            expected = x + f(norm("norm", x))
        elif placement == "post":
            expected = norm("norm", x + f(x))
        elif placement == "sandwich":
            expected = x + norm("norm_out", f(norm("norm_in", x)))
        else:
            expected = norm("norm", alpha * x + f(x))
        return LocalCase(
            name=f"{placement}, {len(shape)}-D",
            x=x,
            build=lambda cls: cls(dim, nn.Linear(dim, dim), placement=placement, alpha=alpha),
            state=state,
            expected=expected,
        )

    return [
        case("pre", (4, 8)),
        case("post", (2, 3, 16)),
        case("sandwich", (2, 3, 16)),
        case("deepnorm", (4, 8), alpha=3.36),
    ]

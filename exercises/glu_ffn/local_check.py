"""The formula `w2(act(w1(x)) * w3(x))` for the three gates, with random weights

公式 `w2(act(w1(x)) * w3(x))`，三种门控，权重取随机值
"""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.nn.functional as F

from addnorm_client.local import LocalCase

GATES: dict[str, Callable[..., torch.Tensor]] = {"swish": F.silu, "gelu": F.gelu, "relu": F.relu}


def local_cases() -> list[LocalCase]:
    g = torch.Generator().manual_seed(0)

    def case(name: str, shape: tuple[int, ...], hidden: int, activation: str) -> LocalCase:
        dim = shape[-1]
        x = torch.randn(shape, generator=g)
        # Scaled by 1/sqrt(fan_in) so the activations stay around unit size.
        w1 = torch.randn(hidden, dim, generator=g) / dim**0.5  # (hidden, dim)
        w3 = torch.randn(hidden, dim, generator=g) / dim**0.5  # (hidden, dim)
        w2 = torch.randn(dim, hidden, generator=g) / hidden**0.5  # (dim, hidden)
        gate = GATES[activation](F.linear(x, w1))
        return LocalCase(
            name=name,
            x=x,
            build=lambda cls: cls(dim, hidden, activation),
            state={"w1.weight": w1, "w2.weight": w2, "w3.weight": w3},
            expected=F.linear(gate * F.linear(x, w3), w2),
        )

    return [
        case("SwiGLU, 2-D, dim 8, hidden 16", (4, 8), 16, "swish"),
        case("GeGLU, 3-D, dim 16, hidden 40", (2, 3, 16), 40, "gelu"),
        case("ReGLU, hidden smaller than dim", (3, 12), 5, "relu"),
    ]

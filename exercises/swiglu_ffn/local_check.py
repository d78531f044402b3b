"""The formula `w2(silu(w1(x)) * w3(x))`, with random weights

公式 `w2(silu(w1(x)) * w3(x))`，权重取随机值
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from addnorm_client.local import LocalCase


def local_cases() -> list[LocalCase]:
    g = torch.Generator().manual_seed(0)

    def case(name: str, shape: tuple[int, ...], hidden: int) -> LocalCase:
        dim = shape[-1]
        x = torch.randn(shape, generator=g)
        # Scaled by 1/sqrt(fan_in) so the activations stay around unit size.
        w1 = torch.randn(hidden, dim, generator=g) / dim**0.5  # (hidden, dim)
        w3 = torch.randn(hidden, dim, generator=g) / dim**0.5  # (hidden, dim)
        w2 = torch.randn(dim, hidden, generator=g) / hidden**0.5  # (dim, hidden)
        return LocalCase(
            name=name,
            x=x,
            build=lambda cls: cls(dim, hidden),
            state={"w1.weight": w1, "w2.weight": w2, "w3.weight": w3},
            expected=F.linear(F.silu(F.linear(x, w1)) * F.linear(x, w3), w2),
        )

    return [
        case("2-D, dim 8, hidden 16", (4, 8), 16),
        case("3-D, dim 16, hidden 40", (2, 3, 16), 40),
        case("hidden smaller than dim", (3, 12), 5),
    ]

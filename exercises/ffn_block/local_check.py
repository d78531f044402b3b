"""The formula `x + w2(silu(w1(h)) * w3(h))` with `h = RMSNorm(x)`, with random weights

公式 `x + w2(silu(w1(h)) * w3(h))`，其中 `h = RMSNorm(x)`，权重取随机值
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from addnorm_client.local import LocalCase


def local_cases() -> list[LocalCase]:
    g = torch.Generator().manual_seed(0)

    def case(name: str, shape: tuple[int, ...], hidden: int, scale: float) -> LocalCase:
        dim = shape[-1]
        x = torch.randn(shape, generator=g) * scale
        gain = 1 + 0.5 * torch.randn(dim, generator=g)  # (dim,)
        # Scaled by 1/sqrt(fan_in) so the activations stay around unit size.
        w1 = torch.randn(hidden, dim, generator=g) / dim**0.5  # (hidden, dim)
        w3 = torch.randn(hidden, dim, generator=g) / dim**0.5  # (hidden, dim)
        w2 = torch.randn(dim, hidden, generator=g) / hidden**0.5  # (dim, hidden)
        h = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * gain
        return LocalCase(
            name=name,
            x=x,
            build=lambda cls: cls(dim, hidden),
            state={
                "norm.weight": gain,
                "ffn.w1.weight": w1,
                "ffn.w2.weight": w2,
                "ffn.w3.weight": w3,
            },
            expected=x + F.linear(F.silu(F.linear(h, w1)) * F.linear(h, w3), w2),
        )

    return [
        case("2-D, dim 8, hidden 16", (4, 8), 16, 1.0),
        case("3-D, dim 16, hidden 40", (2, 3, 16), 40, 1.0),
        case("tiny inputs (eps matters)", (3, 12), 20, 1e-4),
    ]

"""The formula `linear2(act(linear1(x)))` in eval mode (dropout off), with random weights

公式 `linear2(act(linear1(x)))`，eval 模式（dropout 关闭），权重取随机值
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from addnorm_client.local import LocalCase


def local_cases() -> list[LocalCase]:
    g = torch.Generator().manual_seed(0)

    def case(name: str, shape: tuple[int, ...], d_ff: int, activation: str) -> LocalCase:
        d_model = shape[-1]
        x = torch.randn(shape, generator=g)
        # Scaled by 1/sqrt(fan_in) so the activations stay around unit size.
        w1 = torch.randn(d_ff, d_model, generator=g) / d_model**0.5  # (d_ff, d_model)
        b1 = torch.randn(d_ff, generator=g) * 0.5  # (d_ff,)
        w2 = torch.randn(d_model, d_ff, generator=g) / d_ff**0.5  # (d_model, d_ff)
        b2 = torch.randn(d_model, generator=g) * 0.5  # (d_model,)
        h = F.linear(x, w1, b1)
        h = F.gelu(h) if activation == "gelu" else F.relu(h)
        return LocalCase(
            name=name,
            x=x,
            build=lambda cls: cls(d_model, d_ff, activation, 0.5),
            state={
                "linear1.weight": w1,
                "linear1.bias": b1,
                "linear2.weight": w2,
                "linear2.bias": b2,
            },
            expected=F.linear(h, w2, b2),
        )

    return [
        case("2-D, d_model 8, d_ff 32, gelu", (4, 8), 32, "gelu"),
        case("3-D, d_model 16, d_ff 40, relu", (2, 3, 16), 40, "relu"),
        case("d_ff smaller than d_model, gelu", (3, 12), 5, "gelu"),
    ]

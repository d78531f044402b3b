"""The formulas `x + sublayer(norm(x))` (pre-norm) and `norm(x + sublayer(x))` (post-norm),
in eval mode, with a random `Linear` sublayer

公式 `x + sublayer(norm(x))`（Pre-Norm）和 `norm(x + sublayer(x))`（Post-Norm），
评估模式，子层为随机权重的 `Linear`
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from addnorm_client.local import LocalCase


def local_cases() -> list[LocalCase]:
    g = torch.Generator().manual_seed(0)

    def case(name: str, shape: tuple[int, ...], norm_first: bool) -> LocalCase:
        dim = shape[-1]
        x = torch.randn(shape, generator=g)
        state = {
            "norm.weight": torch.randn(dim, generator=g),
            "norm.bias": torch.randn(dim, generator=g),
            "sublayer.weight": torch.randn(dim, dim, generator=g) / dim**0.5,
            "sublayer.bias": torch.randn(dim, generator=g),
        }

        def norm(t: torch.Tensor) -> torch.Tensor:
            return F.layer_norm(t, (dim,), state["norm.weight"], state["norm.bias"])

        def sublayer(t: torch.Tensor) -> torch.Tensor:
            return F.linear(t, state["sublayer.weight"], state["sublayer.bias"])

        expected = x + sublayer(norm(x)) if norm_first else norm(x + sublayer(x))
        return LocalCase(
            name=name,
            x=x,
            build=lambda cls: cls(dim, nn.Linear(dim, dim), norm_first=norm_first),
            state=state,
            expected=expected,
        )

    return [
        case("pre-norm, 2-D", (4, 8), norm_first=True),
        case("pre-norm, 3-D", (2, 3, 16), norm_first=True),
        case("post-norm, 2-D", (4, 8), norm_first=False),
        case("post-norm, 3-D", (2, 3, 16), norm_first=False),
    ]

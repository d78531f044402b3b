"""`torch.nn.functional.layer_norm` (what `nn.LayerNorm` calls), with random `weight` and `bias`

`torch.nn.functional.layer_norm`（`nn.LayerNorm` 内部调用的就是它），`weight`、`bias` 取随机值
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from addnorm_client.local import LocalCase


def local_cases() -> list[LocalCase]:
    g = torch.Generator().manual_seed(0)

    def case(
        name: str, shape: tuple[int, ...], eps: float = 1e-5, offset: float = 0.0
    ) -> LocalCase:
        dim = shape[-1]
        x = torch.randn(shape, generator=g) + offset
        # Random parameters, not the ones/zeros init: a forgotten weight or bias shows.
        weight, bias = torch.randn(dim, generator=g), torch.randn(dim, generator=g)
        return LocalCase(
            name=name,
            x=x,
            build=lambda cls: cls(dim, eps=eps),
            state={"weight": weight, "bias": bias},
            expected=F.layer_norm(x, (dim,), weight, bias, eps),
        )

    return [
        case("2-D, standard normal", (4, 8)),
        case("3-D, offset x + 10", (2, 3, 16), offset=10.0),
        case("eps=1e-3, small dim", (5, 3), eps=1e-3),
        case("4-D, dim 64", (2, 2, 3, 64)),
    ]

"""`torch.nn.functional.rms_norm` (what `nn.RMSNorm` calls), with a random `weight`

`torch.nn.functional.rms_norm`（`nn.RMSNorm` 内部调用的就是它），`weight` 取随机值
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from addnorm_client.local import LocalCase


def local_cases() -> list[LocalCase]:
    g = torch.Generator().manual_seed(0)

    def case(
        name: str,
        shape: tuple[int, ...],
        eps: float = 1e-6,
        scale: float = 1.0,
        offset: float = 0.0,
    ) -> LocalCase:
        dim = shape[-1]
        x = torch.randn(shape, generator=g) * scale + offset
        # A random weight, not the ones init: a forgotten weight shows.
        weight = torch.randn(dim, generator=g)
        return LocalCase(
            name=name,
            x=x,
            build=lambda cls: cls(dim, eps=eps),
            state={"weight": weight},
            expected=F.rms_norm(x, (dim,), weight, eps),
        )

    return [
        case("2-D, standard normal", (4, 8)),
        # With a mean of about 3 per row, subtracting it (LayerNorm's step) changes every output.
        case("3-D, offset x + 3: the mean is not subtracted", (2, 3, 16), offset=3.0),
        case("eps=1e-2, tiny inputs", (5, 4), eps=1e-2, scale=1e-2),
        case("4-D, dim 64", (2, 2, 3, 64)),
    ]

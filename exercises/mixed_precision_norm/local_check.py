"""`torch.nn.functional.layer_norm` on float32 inputs with random `weight` and `bias` (the
half-precision cases, where the precision is the point, are graded by the server)

在 float32 输入上运行 `torch.nn.functional.layer_norm`，`weight`、`bias` 取随机值（半精度的
场景才是本题的重点，由服务器评测）
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from addnorm_client.local import LocalCase


def local_cases() -> list[LocalCase]:
    g = torch.Generator().manual_seed(0)

    def case(name: str, shape: tuple[int, ...], offset: float) -> LocalCase:
        dim = shape[-1]
        x = torch.randn(shape, generator=g) + offset
        weight, bias = torch.randn(dim, generator=g), torch.randn(dim, generator=g)
        expected = F.layer_norm(x, (dim,), weight, bias)
        return LocalCase(
            name=name,
            x=x,
            build=lambda cls: cls(dim),
            state={"weight": weight, "bias": bias},
            expected=expected,
        )

    return [
        case("float32, N(0,1)", (4, 32), 0.0),
        case("float32, N(0,1) + 3", (3, 48), 3.0),
        case("float32, 3-D", (2, 5, 40), 0.0),
    ]

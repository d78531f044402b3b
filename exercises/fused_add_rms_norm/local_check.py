"""`x + residual` and `torch.nn.functional.rms_norm` of that sum with a random `weight`

`x + residual`，以及用随机 `weight` 对这个和做的 `torch.nn.functional.rms_norm`
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F

from addnorm_client.local import LocalCase


def local_cases() -> list[LocalCase]:
    g = torch.Generator().manual_seed(0)

    def cases(name: str, shape: tuple[int, ...], eps: float, stream: float) -> list[LocalCase]:
        dim = shape[-1]
        x = torch.randn(shape, generator=g)
        # A stream much larger than the branch: normalising x instead of the sum shows.
        residual = torch.randn(shape, generator=g) * stream
        weight = 1 + 0.5 * torch.randn(dim, generator=g)
        h = x + residual
        found = []
        for i, what in enumerate(("normed", "new_residual")):

            def build(fn: Any, i: int = i) -> Callable[[torch.Tensor], Any]:
                return lambda t: fn(t, residual.clone(), weight, eps)[i]

            expected = F.rms_norm(h, (dim,), weight, eps) if i == 0 else h
            found.append(LocalCase(name=f"{what}: {name}", x=x, build=build, expected=expected))
        return found

    return [
        *cases("2-D, stream 10x the branch", (4, 16), 1e-6, 10.0),
        *cases("3-D, eps=1e-5", (2, 3, 32), 1e-5, 1.0),
    ]

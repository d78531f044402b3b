"""`torch.nn.functional.scaled_dot_product_attention` with a causal mask, a boolean padding mask
with a fully masked row, and an additive mask

`torch.nn.functional.scaled_dot_product_attention`：因果掩码、含整行被掩码的布尔 padding
掩码，以及加性掩码
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F

from addnorm_client.local import LocalCase


def local_cases() -> list[LocalCase]:
    g = torch.Generator().manual_seed(0)
    q = torch.randn(2, 6, 16, generator=g)
    k = torch.randn(2, 8, 16, generator=g)
    v = torch.randn(2, 8, 16, generator=g)
    keep = torch.rand(6, 8, generator=g) < 0.6
    keep[:, 0] = True
    keep[3] = False  # query 3 sees no key: zeros
    bias = torch.randn(6, 8, generator=g).masked_fill(~keep, float("-inf"))
    qs = torch.randn(2, 8, 16, generator=g)

    def case(name: str, x: torch.Tensor, kk: torch.Tensor, **kwargs: Any) -> LocalCase:
        def build(fn: Any) -> Callable[[torch.Tensor], Any]:
            def call(t: torch.Tensor, key: torch.Tensor = kk, value: torch.Tensor = v) -> Any:
                return fn(t, key, value, **kwargs)

            return call

        mask = kwargs.get("mask")
        expected = F.scaled_dot_product_attention(
            x, kk, v, attn_mask=mask, is_causal=kwargs.get("is_causal", False)
        )
        return LocalCase(
            name=name, x=x, build=build, expected=expected, leaves={"key": kk, "value": v}
        )

    return [
        case("causal, L = S = 8", qs, k, is_causal=True),
        case("boolean mask, query 3 fully masked", q, k, mask=keep),
        case("additive mask with -inf entries", q, k, mask=bias),
    ]

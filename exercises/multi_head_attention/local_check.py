"""Multi-head attention against `torch.nn.functional.scaled_dot_product_attention` on the same
projections: causal GQA, a key-padding mask with left padding (queries that see no key), and
multi-query attention with biases

多头注意力与在同样投影上调用 `torch.nn.functional.scaled_dot_product_attention` 的结果对比：
因果 GQA、左侧填充的 key 填充掩码（有看不到任何 key 的 query），以及带 bias 的多查询注意力
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from addnorm_client.local import LocalCase


class _Called(nn.Module):
    """The learner's module called with its mask and is_causal: its projections registered here
    under their own names (wq, wk, ...), so the case's state loads into them."""

    def __init__(self, inner: nn.Module, mask: torch.Tensor | None, causal: bool) -> None:
        super().__init__()
        for name, child in inner.named_children():
            self.add_module(name, child)
        self.inner = [inner]  # a plain list: not registered twice
        self.mask, self.causal = mask, causal

    def forward(self, x: torch.Tensor) -> Any:
        return self.inner[0](x, self.mask, self.causal)


def local_cases() -> list[LocalCase]:
    g = torch.Generator().manual_seed(0)

    def case(
        name: str,
        shape: tuple[int, int, int],
        heads: int,
        kv: int,
        *,
        bias: bool = False,
        mask: torch.Tensor | None = None,
        causal: bool = False,
    ) -> LocalCase:
        b, t, dim = shape
        hd = dim // heads
        x = torch.randn(shape, generator=g)
        sizes = {"wq": heads * hd, "wk": kv * hd, "wv": kv * hd}
        state = {
            f"{n}.weight": torch.randn(o, dim, generator=g) / dim**0.5 for n, o in sizes.items()
        }
        state["wo.weight"] = torch.randn(dim, heads * hd, generator=g) / (heads * hd) ** 0.5
        if bias:
            for n, o in (*sizes.items(), ("wo", dim)):
                state[f"{n}.bias"] = 0.1 * torch.randn(o, generator=g)

        def project(n: str, count: int) -> torch.Tensor:
            y = F.linear(x, state[f"{n}.weight"], state.get(f"{n}.bias"))
            return y.view(b, t, count, hd).transpose(1, 2)

        allowed = torch.ones(b, 1, t, t, dtype=torch.bool)
        if causal:
            allowed = allowed & torch.ones(t, t, dtype=torch.bool).tril()
        if mask is not None:
            allowed = allowed & mask[:, None, None, :]
        out = F.scaled_dot_product_attention(
            project("wq", heads),
            project("wk", kv),
            project("wv", kv),
            attn_mask=allowed,
            enable_gqa=True,
        )
        expected = F.linear(
            out.transpose(1, 2).reshape(b, t, dim), state["wo.weight"], state.get("wo.bias")
        )

        return LocalCase(
            name=name,
            x=x,
            build=lambda cls: _Called(cls(dim, heads, kv, bias), mask, causal),
            state=state,
            expected=expected,
        )

    left = torch.ones(2, 7, dtype=torch.bool)
    left[1, :3] = False  # the first three queries of sequence 1 see no key: zeros before wo
    return [
        case("causal GQA: 4 heads, 2 kv heads", (2, 6, 32), 4, 2, causal=True),
        case(
            "left padding under a causal mask", (2, 7, 30), 5, 5, bias=True, mask=left, causal=True
        ),
        case("multi-query attention with biases", (2, 5, 21), 3, 1, bias=True),
    ]

"""The cached decode against full causal attention (RoPE and
`torch.nn.functional.scaled_dot_product_attention` over the whole sequence at once): a prefill
then decode steps one token at a time with grouped kv heads, a prefill in chunks with one kv
head, and a reset between two sequences. Forward only: the contract is inference.

逐 token 解码的结果与对整条序列一次做完整因果注意力（RoPE 加
`torch.nn.functional.scaled_dot_product_attention`）的结果对比：分组 kv 头下先预填充再逐个
token 解码、一个 kv 头时分段预填充，以及两条序列之间调用 reset。只检查前向：本题只做推理。
"""

from __future__ import annotations

import itertools
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from addnorm_client.local import LocalCase


class _Decoded(nn.Module):
    """Runs the learner's module over ``x`` call by call: ``chunks`` tokens per call, reset()
    first (and where ``resets`` says), the outputs of every call concatenated along T. Its
    projections are registered here under their own names, so the case's state loads into
    them."""

    def __init__(self, inner: nn.Module, chunks: list[int], resets: set[int]) -> None:
        super().__init__()
        for name, child in inner.named_children():
            self.add_module(name, child)
        self.inner: list[Any] = [inner]  # a plain list: not registered twice
        self.chunks, self.resets = chunks, resets

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        inner = self.inner[0]
        inner.reset()
        outs, start, seen = [], 0, 0
        for i, n in enumerate(self.chunks):
            if i in self.resets:
                inner.reset()
                start = 0
            outs.append(inner(x[:, seen : seen + n], start))
            start, seen = start + n, seen + n
        return torch.cat(outs, dim=1)


def _rope(t: torch.Tensor) -> torch.Tensor:
    hd = t.shape[-1]
    inv_freq = 10000.0 ** (-torch.arange(0, hd, 2, dtype=torch.float32) / hd)
    angles = torch.outer(torch.arange(t.shape[-2], dtype=torch.float32), inv_freq)
    cos, sin = torch.cat((angles, angles), -1).cos(), torch.cat((angles, angles), -1).sin()
    half = hd // 2
    return t * cos + torch.cat((-t[..., half:], t[..., :half]), -1) * sin


def local_cases() -> list[LocalCase]:
    g = torch.Generator().manual_seed(0)

    def case(
        name: str, b: int, dim: int, heads: int, kv: int, chunks: list[int], resets: set[int]
    ) -> LocalCase:
        hd = dim // heads
        t = sum(chunks)
        x = torch.randn(b, t, dim, generator=g)
        sizes = {"wq": heads * hd, "wk": kv * hd, "wv": kv * hd}
        state = {
            f"{n}.weight": torch.randn(o, dim, generator=g) / dim**0.5 for n, o in sizes.items()
        }
        state["wo.weight"] = torch.randn(dim, heads * hd, generator=g) / (heads * hd) ** 0.5
        # Each sequence (the tokens between two resets) through full causal attention.
        bounds = [0, *[sum(chunks[:i]) for i in sorted(resets)], t]
        pieces = []
        for lo, hi in itertools.pairwise(bounds):
            seq = x[:, lo:hi]

            def project(n: str, count: int, seq: torch.Tensor = seq) -> torch.Tensor:
                y = F.linear(seq, state[f"{n}.weight"])
                return y.view(b, seq.shape[1], count, hd).transpose(1, 2)

            out = F.scaled_dot_product_attention(
                _rope(project("wq", heads)),
                _rope(project("wk", kv)),
                project("wv", kv),
                is_causal=True,
                enable_gqa=True,
            )
            pieces.append(
                F.linear(out.transpose(1, 2).reshape(b, hi - lo, dim), state["wo.weight"])
            )
        return LocalCase(
            name=name,
            x=x,
            build=lambda cls: _Decoded(cls(dim, heads, kv, b, t), chunks, resets),
            state=state,
            expected=torch.cat(pieces, dim=1),
            forward_only=True,
        )

    return [
        case(
            "prefill 5, then 4 decode steps: 4 heads, 2 kv heads",
            2,
            32,
            4,
            2,
            [5, 1, 1, 1, 1],
            set(),
        ),
        case(
            "prefill in chunks of 3, 3, 2, then a step: 1 kv head", 1, 24, 3, 1, [3, 3, 2, 1], set()
        ),
        case("a sequence, reset(), a shorter one", 2, 16, 2, 2, [4, 1, 1, 2, 1], {3}),
    ]

"""Grading spec for ``kv_cache_memory``, a lab: how much memory a KV cache takes for
multi-head (MHA), grouped-query (GQA) and multi-query (MQA) attention, measured from the cache
tensors the learner allocates, and the longest context that fits a byte budget.

Contract: ``kv_cache_memory(seq_lens, n_layers, n_heads, n_kv_heads, head_dim, dtype,
budget_bytes)`` returns a float tensor of shape ``(2, 3, *seq_lens.shape)`` in ``seq_lens``'s
dtype. Row r of each plane is MHA (n_heads key/value heads), GQA (n_kv_heads) and MQA (1):

- plane 0: the cache of one sequence of each length, in MiB: for every layer a K and a V tensor
  of shape (1, kv_heads, length, head_dim) in ``dtype``, bytes = element_size * numel summed;
- plane 1: the longest context, in tokens, whose cache fits ``budget_bytes`` (the same number
  in every column of a row).

The learner allocates on ``device="meta"`` (shapes and dtypes, no memory), so Llama-sized
configurations cost nothing in the sandbox.
"""

from __future__ import annotations

from typing import Any

import torch

from api.grading.draw import described
from api.grading.phrase import Phrase
from api.grading.spec import Call, Case, ExerciseSpec, KnownMistake, LabChart

MIB = 2**20
DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}
CHART_CASE = "llama2_7b_shapes"


def _bytes_per_token(n_layers: int, kv_heads: int, head_dim: int, dtype: torch.dtype) -> int:
    cache = [
        torch.empty(1, kv_heads, 1, head_dim, dtype=dtype, device="meta")
        for _ in range(2 * n_layers)
    ]
    return sum(t.element_size() * t.numel() for t in cache)


def _answer(
    seq_lens: torch.Tensor,
    per_token: list[int],
    budget_bytes: int,
) -> torch.Tensor:
    mib = torch.stack([seq_lens.double() * b / MIB for b in per_token])
    fits = torch.stack([torch.full_like(seq_lens.double(), budget_bytes // b) for b in per_token])
    return torch.stack([mib, fits]).to(seq_lens.dtype)


def _measure(
    seq_lens: torch.Tensor,
    n_layers: int,
    n_heads: int,
    n_kv_heads: int,
    head_dim: int,
    dtype: str,
    budget_bytes: int,
    *,
    repeat_kv: bool = False,
    tensors_per_layer: int = 2,
    layers: int | None = None,
    element: torch.dtype | None = None,
) -> torch.Tensor:
    heads = [n_heads, n_kv_heads, 1]
    if repeat_kv:
        heads = [n_heads] * 3
    kept = n_layers if layers is None else layers
    per_token = []
    for kv in heads:
        cache = [
            torch.empty(1, kv, 1, head_dim, dtype=element or DTYPES[dtype], device="meta")
            for _ in range(tensors_per_layer * kept)
        ]
        per_token.append(sum(t.element_size() * t.numel() for t in cache))
    return _answer(seq_lens, per_token, budget_bytes)


def kv_cache_memory(
    seq_lens: torch.Tensor,
    n_layers: int,
    n_heads: int,
    n_kv_heads: int,
    head_dim: int,
    dtype: str,
    budget_bytes: int,
) -> torch.Tensor:
    """The reference: caches allocated on the meta device, one token long, scaled by each
    length (a cache's bytes are linear in it; the platform's repeated calls send lengths that
    need not be whole numbers)."""
    return _measure(seq_lens, n_layers, n_heads, n_kv_heads, head_dim, dtype, budget_bytes)


def make_cases(gen: torch.Generator) -> list[Case]:
    f32, f64 = torch.float32, torch.float64
    cases: list[Case] = []
    GIB = 2**30

    def lengths(lo: int, hi: int, n: int) -> list[float]:
        """``n`` whole lengths drawn in [lo, hi], sorted."""
        drawn = torch.randint(lo, hi + 1, (n,), generator=gen).sort().values
        return [float(v) for v in drawn]

    def add(
        name: str,
        seq_lens: list[float],
        layers: int,
        heads: int,
        kv: int,
        head_dim: int,
        dtype: str,
        budget_gib: float,
        *,
        as_dtype: torch.dtype = f64,
        row: bool = False,
    ) -> None:
        x = torch.tensor(seq_lens, dtype=as_dtype)
        if row:
            x = x.unsqueeze(0)
        budget = int(budget_gib * GIB)
        config = Phrase(
            f"seq_lens from {seq_lens[0]:g} to {seq_lens[-1]:g}, n_layers = {layers}, "
            f"n_heads = {heads}, n_kv_heads = {kv}, head_dim = {head_dim}, {dtype}, "
            f"budget {budget_gib:g} GiB",
            f"seq_lens 从 {seq_lens[0]:g} 到 {seq_lens[-1]:g}，n_layers = {layers}，"
            f"n_heads = {heads}，n_kv_heads = {kv}，head_dim = {head_dim}，{dtype}，"
            f"预算 {budget_gib:g} GiB",
        )
        said = described(x, Phrase("sequence lengths", "序列长度"), config)
        cases.append(
            Case(
                name=name,
                description=said.en,
                description_zh=said.zh,
                x=x,
                init_kwargs={
                    "n_layers": layers,
                    "n_heads": heads,
                    "n_kv_heads": kv,
                    "head_dim": head_dim,
                    "dtype": dtype,
                    "budget_bytes": budget,
                },
                steps=(Call((x,), autograd=True),),
            )
        )

    powers = [float(2**k) for k in range(9, 16)]  # 512 to 32768
    # First, lengths close together: the platform's repeated calls copy the first case with
    # fresh lengths of the same mean and spread, which stay positive.
    add("close_lengths", lengths(3000, 3100, 5), 32, 32, 8, 128, "bfloat16", 4)
    # Llama-2-7B's attention shapes (32 layers, 32 heads of 128) with a GQA of 8 KV heads.
    # The lengths are the figure's; the budget is drawn (plane 1 changes with the seed).
    budget = int(torch.randint(8, 25, (1,), generator=gen))
    add(CHART_CASE, powers, 32, 32, 8, 128, "float16", budget)
    add("llama3_8b_bf16", lengths(1, 131072, 3), 32, 32, 8, 128, "bfloat16", 24)
    add("llama2_70b_f32", lengths(1024, 32768, 2), 80, 64, 8, 128, "float32", 80, as_dtype=f32)
    add("mistral_7b_row", lengths(1, 32768, 4), 32, 32, 8, 128, "bfloat16", 8, row=True)
    add("small_float32_cache", lengths(1, 100, 3), 2, 4, 2, 16, "float32", 0.001)
    add("one_layer", lengths(1, 1000, 2), 1, 8, 4, 64, "float16", 0.01)
    add("kv_heads_equal_heads", lengths(1, 4096, 2), 12, 12, 12, 64, "float32", 2, as_dtype=f32)
    add("kv_heads_one", lengths(1, 8192, 2), 24, 16, 1, 128, "bfloat16", 1)
    add("many_lengths", lengths(1, 16384, 200), 4, 8, 2, 32, "float16", 0.5)
    add("odd_head_dim_f32", lengths(1, 3000, 3), 6, 10, 5, 80, "float32", 0.25, as_dtype=f32)
    add("tiny_budget", lengths(1, 9, 2), 3, 6, 3, 8, "bfloat16", 1e-6, row=True, as_dtype=f32)
    return cases


def _mistake(**how: Any):  # type: ignore[no-untyped-def]
    def build(
        seq_lens: torch.Tensor,
        n_layers: int,
        n_heads: int,
        n_kv_heads: int,
        head_dim: int,
        dtype: str,
        budget_bytes: int,
    ) -> torch.Tensor:
        return _measure(
            seq_lens, n_layers, n_heads, n_kv_heads, head_dim, dtype, budget_bytes, **how
        )

    return build


MISTAKES = (
    KnownMistake(
        name="kv_heads_repeated_in_cache",
        title="GQA/MQA cached with every query head's copy of K and V",
        explanation=(
            "Your GQA and MQA rows are the MHA row: the cache holds n_heads key/value heads. "
            "repeat_kv (repeat_interleave over the head axis) belongs after the cache read, "
            "inside the attention; what is stored is (1, n_kv_heads, length, head_dim) per "
            "layer for K and for V. Caching the repeated tensors gives back the saving GQA "
            "exists for: n_heads / n_kv_heads times less memory."
        ),
        title_zh="GQA/MQA 的缓存里存了每个查询头各一份 K 和 V",
        explanation_zh=(
            "你的 GQA 和 MQA 两行与 MHA 一样：缓存里存了 n_heads 个键值头。repeat_kv（沿头维做 "
            "repeat_interleave）应该放在读出缓存之后、注意力内部；缓存里存的是每层 K、V 各一个 "
            "(1, n_kv_heads, length, head_dim)。把复制后的张量存进缓存，就把 GQA 省下的 n_heads / "
            "n_kv_heads 倍显存又还回去了。"
        ),
        build=_mistake(repeat_kv=True),
    ),
    KnownMistake(
        name="keys_only",
        title="Only K cached: V forgotten",
        explanation=(
            "Your cache is half the size: one tensor per layer. Attention needs both the keys "
            "(for the scores) and the values (for the weighted sum) of every past token, so "
            "the cache holds two tensors per layer, hence the 2 in 2 * n_layers * n_kv_heads "
            "* head_dim * bytes per token."
        ),
        title_zh="只缓存了 K，忘了 V",
        explanation_zh=(
            "你的缓存只有一半大：每层一个张量。注意力既需要过去每个 token 的键（算分数）也需要值"
            "（做加权求和），所以每层缓存两个张量，这就是每 token 2 * n_layers * n_kv_heads * "
            "head_dim * 字节数里那个 2 的来历。"
        ),
        build=_mistake(tensors_per_layer=1),
    ),
    KnownMistake(
        name="one_layer_only",
        title="One layer's cache counted instead of all layers'",
        explanation=(
            "Your numbers are one layer's cache. Every decoder layer keeps its own K and V for "
            "every past token, so the model's cache is n_layers times that: allocate (or count) "
            "a K and a V tensor per layer."
        ),
        title_zh="只算了一层的缓存，而不是所有层",
        explanation_zh=(
            "你的结果是一层的缓存。每个解码层都为过去的每个 token 保存自己的 K 和 V，所以整个模型的"
            "缓存是它的 n_layers 倍：每层都要分配（或统计）一个 K 和一个 V 张量。"
        ),
        build=_mistake(layers=1),
    ),
    KnownMistake(
        name="wrong_element_size",
        title="The cache allocated in float32 whatever the dtype asked",
        explanation=(
            "Your bytes are those of float32 elements (4 bytes) where the configuration's "
            "dtype is float16 or bfloat16 (2 bytes): torch.empty without dtype= makes float32. "
            "Allocate with dtype=getattr(torch, dtype) and count element_size() * numel()."
        ),
        title_zh="不管要求什么 dtype，缓存都按 float32 分配",
        explanation_zh=(
            "你的字节数按 float32 元素（4 字节）算，"
            "而配置的 dtype 是 float16 或 bfloat16（2 字节）："
            "torch.empty 不写 dtype= 时得到的是 float32。分配时用 dtype=getattr(torch, dtype)，"
            "再统计 element_size() * numel()。"
        ),
        build=_mistake(element=torch.float32),
    ),
)

SPEC = ExerciseSpec(
    slug="kv_cache_memory",
    class_name="kv_cache_memory",
    reference=kv_cache_memory,
    make_cases=make_cases,
    mistakes=MISTAKES,
    kind="function",
    allowed=None,
    ranks=(1, 2),
    trains=False,
    chart=LabChart(
        case=CHART_CASE,
        series=("MHA (32 KV heads)", "GQA (8 KV heads)", "MQA (1 KV head)"),
        series_zh=("MHA（32 个 KV 头）", "GQA（8 个 KV 头）", "MQA（1 个 KV 头）"),
        x_label="i: sequence length = 2^(i+8) tokens",
        x_label_zh="i：序列长度 = 2^(i+8) 个 token",
        y_label="KV cache of one sequence, MiB",
        y_label_zh="一条序列的 KV 缓存（MiB）",
        title="KV cache of Llama-2-7B's shapes in float16",
        title_zh="Llama-2-7B 形状在 float16 下的 KV 缓存",
        plane=0,
    ),
)

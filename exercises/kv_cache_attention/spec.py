"""Grading spec for ``kv_cache_attention``: ``KVCacheAttention(dim, n_heads, n_kv_heads,
max_batch_size, max_seq_len, rope_base=10000.0)``, causal self-attention with rotary position
embeddings and grouped key/value heads that decodes from a key/value cache, as Meta's LLaMA
``Attention`` does.

Contract: projections ``wq`` (dim -> n_heads * head_dim), ``wk``, ``wv`` (dim -> n_kv_heads *
head_dim), ``wo`` (n_heads * head_dim -> dim), ``nn.Linear`` without bias, ``head_dim = dim //
n_heads``; the constructor raises ``ValueError`` unless ``dim`` is divisible by ``n_heads``,
``n_heads`` by ``n_kv_heads`` and ``head_dim`` is even. The cache is two registered buffers,
``cache_k`` and ``cache_v``, zeros of shape ``(max_batch_size, n_kv_heads, max_seq_len,
head_dim)``: only the kv heads are cached, never their repeats.

``forward(x, start_pos)``: ``x`` of shape (B, T, dim), B <= max_batch_size, holds the tokens at
absolute positions ``start_pos .. start_pos + T - 1`` (``start_pos`` a Python int, start_pos + T
<= max_seq_len) of the sequences whose earlier tokens the cache holds. q and k are rotated by RoPE
(rotate-half, the ``rotary_embedding`` exercise's convention, base ``rope_base``) at those
absolute positions; the rotated keys and the values are written into ``cache_k[:B, :,
start_pos:start_pos + T]`` and ``cache_v[...]``; the queries attend over ``cache[:B, :, :start_pos
+ T]``, query t seeing key j iff ``j <= start_pos + t``, scores scaled by ``1/sqrt(head_dim)``,
query head i reading kv head ``i // (n_heads // n_kv_heads)``; heads merged and projected by
``wo``. ``reset()`` zeros both caches (a new sequence starts at start_pos 0).

Graded in inference mode (``torch.no_grad``, no gradients): a prefill, decode steps of one token
and chunks of several, compared call by call with full causal attention over the whole sequence
so far; a reset and a new sequence; the cache buffers after every call.
"""

from __future__ import annotations

import math
from typing import cast

import torch
import torch.nn.functional as F
from torch import nn

from api.grading.allowlist import ATTENTION_BUILTINS, ELEMENTARY, QUANTIZABLE_ATTENTION
from api.grading.draw import attention_parameters, described, normal, raises, randint
from api.grading.phrase import FORWARD_ONLY_NO_GRAD, Phrase, constructor_raises, same, view_zh
from api.grading.spec import Call, Case, ExerciseSpec, InitValue, KnownMistake, Layout, Step

F32, F64 = torch.float32, torch.float64
NEG_INF = float("-inf")
ROPE_BASE = 10000.0


def _lin(layer: nn.Linear, x: torch.Tensor) -> torch.Tensor:
    # What layer(x) computes, typed: nn.Module.__call__ returns Any.
    return F.linear(x, layer.weight, layer.bias)


def rotate_half(t: torch.Tensor) -> torch.Tensor:
    half = t.shape[-1] // 2
    return torch.cat((-t[..., half:], t[..., :half]), dim=-1)


def rope(t: torch.Tensor, positions: torch.Tensor, base: float) -> torch.Tensor:
    """RoPE on (B, heads, T, hd) at ``positions`` (T,): pairs (i, i + hd/2) rotated by
    position * base^(-2i/hd); angles in float64 for float64 input, float32 otherwise."""
    work = F64 if t.dtype == F64 else F32
    hd = t.shape[-1]
    inv_freq = base ** (-(torch.arange(0, hd, 2, dtype=work) / hd))
    angles = positions.to(work)[:, None] * inv_freq[None, :]
    angles = torch.cat((angles, angles), dim=-1)
    return (t * angles.cos().to(t.dtype) + rotate_half(t) * angles.sin().to(t.dtype)).to(t.dtype)


class KVCacheAttention(nn.Module):
    """The reference, and the base every known mistake overrides one step of."""

    def __init__(
        self,
        dim: int,
        n_heads: int,
        n_kv_heads: int,
        max_batch_size: int,
        max_seq_len: int,
        rope_base: float = ROPE_BASE,
    ) -> None:
        super().__init__()
        if n_heads < 1 or n_kv_heads < 1:
            raise ValueError("n_heads and n_kv_heads must be positive")
        if dim % n_heads:
            raise ValueError(f"dim {dim} is not divisible by n_heads {n_heads}")
        if n_heads % n_kv_heads:
            raise ValueError(f"n_heads {n_heads} is not divisible by n_kv_heads {n_kv_heads}")
        if (dim // n_heads) % 2:
            raise ValueError(f"head_dim {dim // n_heads} is odd: RoPE rotates pairs")
        self.dim, self.n_heads, self.n_kv_heads = dim, n_heads, n_kv_heads
        self.head_dim = dim // n_heads
        self.rope_base = rope_base
        self.wq = nn.Linear(dim, n_heads * self.head_dim, bias=False)
        self.wk = nn.Linear(dim, n_kv_heads * self.head_dim, bias=False)
        self.wv = nn.Linear(dim, n_kv_heads * self.head_dim, bias=False)
        self.wo = nn.Linear(n_heads * self.head_dim, dim, bias=False)
        shape = (max_batch_size, self.cached_heads(), max_seq_len, self.head_dim)
        self.register_buffer("cache_k", torch.zeros(shape))
        self.register_buffer("cache_v", torch.zeros(shape))

    cache_k: torch.Tensor
    cache_v: torch.Tensor

    # The steps, one method each, so that a mistake is the one step it gets wrong.
    def cached_heads(self) -> int:
        return self.n_kv_heads

    def reset(self) -> None:
        self.cache_k.zero_()
        self.cache_v.zero_()

    def split(self, t: torch.Tensor, heads: int) -> torch.Tensor:
        b, n, _ = t.shape
        return t.reshape(b, n, heads, self.head_dim).transpose(1, 2)

    def repeat_kv(self, t: torch.Tensor) -> torch.Tensor:
        return t.repeat_interleave(self.n_heads // self.n_kv_heads, dim=1)

    def positions(self, start_pos: int, n: int) -> torch.Tensor:
        return torch.arange(start_pos, start_pos + n)

    def rotate_new_keys(self, k: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
        return rope(k, pos, self.rope_base)

    def store(self, k: torch.Tensor, v: torch.Tensor, start_pos: int) -> None:
        b, _, n, _ = k.shape
        self.cache_k[:b, :, start_pos : start_pos + n] = k
        self.cache_v[:b, :, start_pos : start_pos + n] = v

    def read(
        self, k: torch.Tensor, v: torch.Tensor, start_pos: int
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """The keys and values attended (B, n_kv_heads, L, hd), L = start_pos + T."""
        b, _, n, _ = k.shape
        end = start_pos + n
        return self.cache_k[:b, :, :end], self.cache_v[:b, :, :end]

    def keep(self, start_pos: int, n: int, length: int) -> torch.Tensor:
        """(T, L): query t (absolute position start_pos + t) sees key j iff j <= start_pos + t."""
        rows = torch.arange(start_pos, start_pos + n)[:, None]
        return torch.arange(length)[None, :] <= rows

    def factor(self) -> float:
        return 1.0 / math.sqrt(self.head_dim)

    def forward(self, x: torch.Tensor, start_pos: int) -> torch.Tensor:
        b, n, _ = x.shape
        pos = self.positions(start_pos, n)
        q = rope(self.split(_lin(self.wq, x), self.n_heads), pos, self.rope_base)
        k = self.rotate_new_keys(self.split(_lin(self.wk, x), self.n_kv_heads), pos)
        v = self.split(_lin(self.wv, x), self.n_kv_heads)
        self.store(k, v, start_pos)
        keys, values = self.read(k, v, start_pos)
        keys, values = self.repeat_kv(keys), self.repeat_kv(values)
        scores = q @ keys.transpose(-2, -1) * self.factor()
        keep = self.keep(start_pos, n, keys.shape[-2])
        w = torch.softmax(scores.masked_fill(~keep, NEG_INF), dim=-1)
        o = (w @ values).transpose(1, 2).reshape(b, n, self.n_heads * self.head_dim)
        return _lin(self.wo, o)


# --- Cases -------------------------------------------------------------------------------------


def _forward(
    x: torch.Tensor, start_pos: int, layout: Layout = "contiguous", *, first: bool
) -> Call:
    n = x.shape[1]
    if first:
        note = Phrase(
            f"prefill of {n} tokens at start_pos 0", f"预填充 {n} 个 token，start_pos 为 0"
        )
    elif n == 1:
        note = Phrase(
            f"decode step: 1 token at start_pos {start_pos}",
            f"解码一步：1 个 token，start_pos 为 {start_pos}",
        )
    else:
        note = Phrase(
            f"a chunk of {n} tokens at start_pos {start_pos}",
            f"一段 {n} 个 token，start_pos 为 {start_pos}",
        )
    return Call((x,), None, layout=layout, args=(start_pos,), note=note.en, note_zh=note.zh)


RESET = Call(
    (),
    None,
    function="reset",
    note="a new sequence follows",
    note_zh="之后开始一条新序列",
)


def _heads(dim: int, heads: int, kv: int, batch: int, max_batch: int, max_len: int) -> Phrase:
    hd = dim // heads
    return Phrase(
        f"dim {dim}, {heads} heads of {hd}, {kv} kv heads, batch {batch} of max_batch_size "
        f"{max_batch}, max_seq_len {max_len}",
        f"dim {dim}，{heads} 个头、每头 {hd} 维，{kv} 个 kv 头，批大小 {batch}（max_batch_size "
        f"{max_batch}），max_seq_len {max_len}",
    )


def _lengths(sequences: list[list[int]]) -> Phrase:
    shown = [" + ".join(str(c) for c in chunks) for chunks in sequences]
    return Phrase(
        "tokens per call " + " then reset() then ".join(shown),
        "每次调用的 token 数 " + "，调用 reset() 后再 ".join(shown),
    )


def make_cases(gen: torch.Generator) -> list[Case]:
    """Scenarios on one module each, drawn fresh from ``gen``: a prefill, then decode steps and
    chunks; the grouped and chunked ones first (they tell the mistakes apart), then the reset,
    the construction cases last."""
    cases: list[Case] = []

    def add(
        name: str,
        dim: int,
        heads: int,
        kv: int,
        batch: int,
        max_batch: int,
        max_len: int,
        sequences: list[list[int]],
        dtype: torch.dtype,
        extra: list[Phrase],
        *,
        layout: Layout = "contiguous",
        base: float | None = None,
    ) -> None:
        """``sequences``: the tokens per call of each sequence, a reset between two."""
        state = attention_parameters(gen, dim, heads, kv, False, dtype)
        steps: list[Step] = []
        for s, chunks in enumerate(sequences):
            if s:
                steps.append(RESET)
            start = 0
            for i, n in enumerate(chunks):
                x = normal(gen, (batch, n, dim), dtype)
                steps.append(_forward(x, start, layout if i == 0 else "contiguous", first=i == 0))
                start += n
            assert start <= max_len
        words = [_heads(dim, heads, kv, batch, max_batch, max_len)]
        words.append(_lengths(sequences))
        init: dict[str, InitValue] = {
            "dim": dim,
            "n_heads": heads,
            "n_kv_heads": kv,
            "max_batch_size": max_batch,
            "max_seq_len": max_len,
        }
        if base is not None:
            init["rope_base"] = base
            words.append(same(f"rope_base={base:g}"))
        words += extra
        if layout != "contiguous":
            words.append(
                Phrase(
                    f"prefill x a non-contiguous ({layout}) view", f"预填充的 x 为{view_zh(layout)}"
                )
            )
        words.append(FORWARD_ONLY_NO_GRAD)
        first = next(s for s in steps if isinstance(s, Call))
        said = described(first.inputs[0], same("N(0,1)"), *words)
        cases.append(
            Case(
                name=name,
                description=said.en,
                description_zh=said.zh,
                x=first.inputs[0],
                init_kwargs=init,
                state=state,
                steps=tuple(steps),
            )
        )

    # Grouped heads (4 query heads share 2 kv heads): a prefill, single-token decode steps,
    # then a chunk of 3 at start_pos > 0 (its causal mask is offset) and one more step.
    t0 = randint(gen, 5, 7)
    add("prefill_decode_gqa", 32, 4, 2, 2, 2, 16, [[t0, 1, 1, 3, 1]], F32, [])
    # Chunked prefill, multi-query (one kv head), float64: chunks at start_pos > 0 only.
    add("chunked_prefill_mqa_f64", 24, 3, 1, 2, 3, 12, [[4, 4, 3, 1]], F64, [])
    # Groups of 4: kv heads repeated in the wrong order read the wrong head.
    add("gqa_groups_f64", 48, 8, 2, 2, 2, 10, [[randint(gen, 4, 6), 1, 2, 1]], F64, [])
    # Far positions and another base: RoPE at the step's own position is far off there.
    t0 = randint(gen, 36, 44)
    add(
        "far_positions",
        32,
        2,
        1,
        1,
        1,
        48,
        [[t0, 1, 1, 2]],
        F32,
        [],
        base=500.0,
    )
    # A reset, then a shorter sequence: the old one's keys must be gone from the cache.
    add("reset_new_sequence_f64", 32, 4, 2, 2, 2, 12, [[7, 1, 1], [3, 1, 2]], F64, [])
    # Plain multi-head (kv heads = heads), batch below max_batch_size, the cache filled to
    # max_seq_len exactly, the prefill a non-contiguous view.
    add("mha_fills_cache", 24, 2, 2, 2, 4, 9, [[6, 1, 2]], F32, [], layout="transposed")
    add("batch_of_one_f64", 16, 2, 1, 1, 2, 8, [[3, 1, 1, 1]], F64, [])
    # A feature size past 128 that is no power of two: 12 heads of 12, 4 kv heads.
    add("wide_dim_144", 144, 12, 4, 2, 2, 8, [[5, 1, 2]], F32, [])
    for label, kwargs, what in (
        (
            "dim_not_divisible_by_heads",
            {"dim": 30, "n_heads": 4, "n_kv_heads": 2},
            "(dim=30, n_heads=4, n_kv_heads=2, ...)",
        ),
        (
            "heads_not_divisible_by_kv_heads",
            {"dim": 24, "n_heads": 6, "n_kv_heads": 4},
            "(dim=24, n_heads=6, n_kv_heads=4, ...)",
        ),
        (
            "odd_head_dim",
            {"dim": 30, "n_heads": 2, "n_kv_heads": 1},
            "(dim=30, n_heads=2, n_kv_heads=1, ...)",
        ),
    ):
        said = constructor_raises(f"KVCacheAttention{what}", "ValueError")
        full = {**kwargs, "max_batch_size": 2, "max_seq_len": 8}
        cases.append(
            raises(
                "ValueError",
                name=label,
                description=said.en,
                description_zh=said.zh,
                init_kwargs=cast(dict[str, InitValue], full),
            )
        )
    return cases


# --- Known mistakes: the contract's constructor, one step wrong each. ---------------------------


class RopeAtStepPositions(KVCacheAttention):
    """Positions 0..T-1 at every call: a decode step's token rotated as if it were the first."""

    def positions(self, start_pos: int, n: int) -> torch.Tensor:
        return torch.arange(n)


class KeysCachedUnrotated(KVCacheAttention):
    """The keys written into the cache before RoPE, and attended as cached."""

    def rotate_new_keys(self, k: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
        return k


class KeysRotatedAtRead(KeysCachedUnrotated):
    """The same cache of unrotated keys, every cached key rotated again at each read: the
    outputs are right, the cache is not what the contract holds, and the past is recomputed."""

    def read(
        self, k: torch.Tensor, v: torch.Tensor, start_pos: int
    ) -> tuple[torch.Tensor, torch.Tensor]:
        keys, values = super().read(k, v, start_pos)
        return rope(keys, torch.arange(keys.shape[-2]), self.rope_base), values


class CachedKeysRotatedTwice(KVCacheAttention):
    def read(
        self, k: torch.Tensor, v: torch.Tensor, start_pos: int
    ) -> tuple[torch.Tensor, torch.Tensor]:
        keys, values = super().read(k, v, start_pos)
        return rope(keys, torch.arange(keys.shape[-2]), self.rope_base), values


class CacheRepeatsKvHeads(KVCacheAttention):
    """The cache sized for n_heads heads: the kv heads repeated before they are cached."""

    def cached_heads(self) -> int:
        return self.n_heads

    def store(self, k: torch.Tensor, v: torch.Tensor, start_pos: int) -> None:
        super().store(
            KVCacheAttention.repeat_kv(self, k), KVCacheAttention.repeat_kv(self, v), start_pos
        )

    def repeat_kv(self, t: torch.Tensor) -> torch.Tensor:
        return t


class CacheNotRead(KVCacheAttention):
    """The new tokens attend only to each other: the cache is written, never read."""

    def read(
        self, k: torch.Tensor, v: torch.Tensor, start_pos: int
    ) -> tuple[torch.Tensor, torch.Tensor]:
        return k, v

    def keep(self, start_pos: int, n: int, length: int) -> torch.Tensor:
        return torch.ones(n, length, dtype=torch.bool).tril()


class CausalMaskNotOffset(KVCacheAttention):
    """tril over (T, L) from the top-left: query t sees keys 0..t, not 0..start_pos + t."""

    def keep(self, start_pos: int, n: int, length: int) -> torch.Tensor:
        return torch.ones(n, length, dtype=torch.bool).tril()


class CausalMaskNotOffsetChunks(CausalMaskNotOffset):
    """No mask for a single token (LLaMA's shortcut), the same unshifted tril for a chunk."""

    def keep(self, start_pos: int, n: int, length: int) -> torch.Tensor:
        if n == 1:
            return torch.ones(n, length, dtype=torch.bool)
        return super().keep(start_pos, n, length)


class CacheWrittenAtZero(KVCacheAttention):
    def store(self, k: torch.Tensor, v: torch.Tensor, start_pos: int) -> None:
        super().store(k, v, 0)


class ResetKeepsCache(KVCacheAttention):
    def reset(self) -> None:
        pass


class ResetClearsKeysOnly(KVCacheAttention):
    def reset(self) -> None:
        self.cache_k.zero_()


class ScaledByModelDim(KVCacheAttention):
    def factor(self) -> float:
        return 1.0 / math.sqrt(self.dim)


class KvHeadsTiled(KVCacheAttention):
    def repeat_kv(self, t: torch.Tensor) -> torch.Tensor:
        return t.repeat(1, self.n_heads // self.n_kv_heads, 1, 1)


MISTAKES = (
    KnownMistake(
        name="rope_at_step_positions",
        title="RoPE applied at positions counted from the call, not at absolute positions",
        explanation=(
            "You rotated q and k by positions 0..T-1 of the tokens handed to this call. A "
            "decode step's token sits at position start_pos, not 0: its query and key must be "
            "rotated by the angle of start_pos + t, or the relative angle between it and every "
            "cached key is wrong. Use positions = torch.arange(start_pos, start_pos + T)."
        ),
        title_zh="RoPE 按本次调用内的位置计算，而不是绝对位置",
        explanation_zh=(
            "你按本次调用传入的 token 的位置 0..T-1 旋转了 q 和 k。解码一步的 token 位于 "
            "start_pos 而不是 0：它的 query 和 key 要按 start_pos + t 的角度旋转，否则它与每个已"
            "缓存 key 之间的相对角度都错了。应使用 positions = torch.arange(start_pos, start_pos "
            "+ T)。"
        ),
        build=RopeAtStepPositions,
    ),
    KnownMistake(
        name="keys_cached_before_rope",
        title="Keys written into the cache before RoPE",
        explanation=(
            "Your cache_k holds the keys as wk produced them, not rotated. The contract (and "
            "LLaMA) caches the rotated keys: each key is rotated once, at its own absolute "
            "position, when it is computed, and read back as it is. Attending to unrotated keys "
            "loses their positions; rotating the whole cache again at every step gives the "
            "right outputs but redoes the past's work at every token. Rotate k first, then "
            "write it into cache_k."
        ),
        title_zh="key 在做 RoPE 之前就写进了缓存",
        explanation_zh=(
            "你的 cache_k 存的是 wk 直接得到的 key，没有旋转。本题（以及 LLaMA）缓存的是旋转后的 "
            "key：每个 key 在算出来时按自己的绝对位置旋转一次，之后原样读回。对未旋转的 key 做"
            "注意力会丢掉它们的位置信息；每一步再把整个缓存重新旋转一遍，输出虽然对，但每个 "
            "token 都在重做过去的工作。应先旋转 k，再写入 cache_k。"
        ),
        build=KeysCachedUnrotated,
        forms=(KeysRotatedAtRead,),
    ),
    KnownMistake(
        name="cached_keys_rotated_twice",
        title="Cached keys rotated again when they are read",
        explanation=(
            "You cached the rotated keys and then applied RoPE to the slice you read back "
            "(positions 0..start_pos + T - 1), so every key is rotated by twice its angle. "
            "The cache already holds rotated keys: read them as they are."
        ),
        title_zh="已缓存的 key 在读出时又旋转了一次",
        explanation_zh=(
            "你缓存了旋转后的 key，读出时又对读出的片段（位置 0..start_pos + T - 1）做了一次 "
            "RoPE，于是每个 key 转了两倍的角度。缓存里已经是旋转过的 key：应原样读出。"
        ),
        build=CachedKeysRotatedTwice,
    ),
    KnownMistake(
        name="cache_repeats_kv_heads",
        title="The cache stores the repeated kv heads (n_heads heads instead of n_kv_heads)",
        explanation=(
            "Your cache_k/cache_v have n_heads heads: you repeated the key/value heads before "
            "caching them. The point of grouped-query attention at decode time is the cache's "
            "size, which the repeat multiplies by n_heads / n_kv_heads (8 times for LLaMA 2 "
            "70B). Cache the n_kv_heads heads of wk and wv, and repeat what you read from the "
            "cache (repeat_interleave, or expand and reshape) only for the score and the "
            "weighted sum."
        ),
        title_zh="缓存里存的是复制后的 kv 头（n_heads 个头而不是 n_kv_heads 个）",
        explanation_zh=(
            "你的 cache_k/cache_v 有 n_heads 个头：你在写缓存之前就复制了 key/value 头。分组查询"
            "注意力在解码时的意义就是缓存的大小，而复制会让它变成 n_heads / n_kv_heads 倍"
            "（LLaMA 2 70B 是 8 倍）。应缓存 wk、wv 得到的 n_kv_heads 个头，只在算分数和加权求和时"
            "复制从缓存读出的部分（repeat_interleave，或 expand 再 reshape）。"
        ),
        build=CacheRepeatsKvHeads,
    ),
    KnownMistake(
        name="cache_not_read",
        title="The cache is never read: the new tokens attend only to each other",
        explanation=(
            "Your decode step attends over the keys and values of the tokens handed to this "
            "call alone. A token at start_pos must see every earlier token of its sequence: "
            "write the new keys and values into the cache, then attend over cache[:B, :, "
            ":start_pos + T]."
        ),
        title_zh="从不读取缓存：新 token 只关注彼此",
        explanation_zh=(
            "你的解码步骤只对本次调用传入的 token 的 key 和 value 做注意力。位于 start_pos 的 "
            "token 必须看到它所在序列里之前的所有 token：应先把新的 key、value 写入缓存，再对 "
            "cache[:B, :, :start_pos + T] 做注意力。"
        ),
        build=CacheNotRead,
    ),
    KnownMistake(
        name="causal_mask_not_offset",
        title="Causal mask not shifted by start_pos",
        explanation=(
            "Your mask over the (T, start_pos + T) scores is a tril from the top-left corner, "
            "so query t sees keys 0..t only, not the start_pos cached keys before it (for a "
            "single token this hides all but key 0; with LLaMA's shortcut of no mask for one "
            "token it shows only on chunks). Query t sits at absolute position start_pos + t: "
            "keep key j iff j <= start_pos + t, i.e. tril(diagonal=start_pos), or LLaMA's "
            "hstack of start_pos visible columns and a (T, T) causal mask."
        ),
        title_zh="因果掩码没有按 start_pos 平移",
        explanation_zh=(
            "你在 (T, start_pos + T) 的分数上用的是从左上角开始的 tril，于是 query t 只能看到 "
            "key 0..t，而看不到它前面的 start_pos 个已缓存 key（单个 token 时只剩 key 0 可见；"
            "若像 LLaMA 那样单个 token 不加掩码，问题只在一段多个 token 时出现）。query t 位于"
            "绝对位置 start_pos + t：应在 j <= start_pos + t 时保留 key j，即 "
            "tril(diagonal=start_pos)，或像 LLaMA 那样把 start_pos 列全可见与 (T, T) 的因果掩码"
            "用 hstack 拼起来。"
        ),
        build=CausalMaskNotOffset,
        forms=(CausalMaskNotOffsetChunks,),
    ),
    KnownMistake(
        name="cache_written_at_zero",
        title="New keys and values written at the cache's start, not at start_pos",
        explanation=(
            "You wrote the new keys and values into cache[:B, :, :T] at every call, "
            "overwriting the first tokens of the sequence; the positions start_pos.. stay "
            "empty. Write them at cache[:B, :, start_pos:start_pos + T]."
        ),
        title_zh="新的 key、value 写在缓存开头，而不是 start_pos 处",
        explanation_zh=(
            "你每次调用都把新的 key 和 value 写进 cache[:B, :, :T]，覆盖了序列最前面的 token，"
            "start_pos 之后的位置一直是空的。应写入 cache[:B, :, start_pos:start_pos + T]。"
        ),
        build=CacheWrittenAtZero,
    ),
    KnownMistake(
        name="reset_keeps_cache",
        title="reset() leaves the old sequence in the cache",
        explanation=(
            "After reset() your cache_k/cache_v still hold the previous sequence's keys and "
            "values. A new sequence overwrites only its own positions, so the old entries "
            "beyond them stay, for the next code that reads the cache's length from it (or a "
            "longer mask) to attend to. reset() must zero both buffers in place: "
            "self.cache_k.zero_(), self.cache_v.zero_() (reassigning them would leave other "
            "references to the old tensors)."
        ),
        title_zh="reset() 之后缓存里还留着上一条序列",
        explanation_zh=(
            "reset() 之后你的 cache_k/cache_v 仍然存着上一条序列的 key 和 value。新序列只会覆盖"
            "它自己用到的位置，更后面的旧内容会留下来，一旦后续代码从缓存推断长度（或掩码更长）"
            "就会关注到它们。reset() 必须原地把两个 buffer 都清零：self.cache_k.zero_()、"
            "self.cache_v.zero_()（重新赋值会让别处对旧张量的引用依然存在）。"
        ),
        build=ResetKeepsCache,
        forms=(ResetClearsKeysOnly,),
    ),
    KnownMistake(
        name="scaled_by_model_dim",
        title="Scores scaled by 1/sqrt(dim) instead of 1/sqrt(head_dim)",
        explanation=(
            "You divided the scores by the square root of the model width. Each head's score "
            "is a dot product over head_dim = dim / n_heads features: use 1 / "
            "math.sqrt(self.head_dim)."
        ),
        title_zh="分数按 1/sqrt(dim) 缩放，而不是 1/sqrt(head_dim)",
        explanation_zh=(
            "你把分数除以了模型宽度的平方根。每个头的分数是 head_dim = dim / n_heads 个特征上的"
            "点积：应使用 1 / math.sqrt(self.head_dim)。"
        ),
        build=ScaledByModelDim,
    ),
    KnownMistake(
        name="kv_heads_repeated_in_wrong_order",
        title="Key/value heads repeated in the wrong order (tiled instead of interleaved)",
        explanation=(
            "Query head i must read key/value head i // (n_heads // n_kv_heads), as LLaMA's "
            "repeat_kv does; you tiled the cached kv heads (repeat or cat), so query head i "
            "reads kv head i % n_kv_heads. Use repeat_interleave(n_heads // n_kv_heads, dim=1) "
            "on what you read from the cache."
        ),
        title_zh="key/value 头的复制顺序错了（平铺而不是交错复制）",
        explanation_zh=(
            "第 i 个 query 头应读取第 i // (n_heads // n_kv_heads) 个 key/value 头，LLaMA 的 "
            "repeat_kv 就是这样做的；你把读出的 kv 头整体平铺了（repeat 或 cat），于是第 i 个 "
            "query 头读到的是第 i % n_kv_heads 个 kv 头。应对从缓存读出的部分使用 "
            "repeat_interleave(n_heads // n_kv_heads, dim=1)。"
        ),
        build=KvHeadsTiled,
    ),
)


SPEC = ExerciseSpec(
    slug="kv_cache_attention",
    class_name="KVCacheAttention",
    reference=KVCacheAttention,
    make_cases=make_cases,
    mistakes=MISTAKES,
    # Four projections, RoPE, two attention matmuls and a softmax: float32 rounding accumulates.
    tolerance_scale=3.0,
    ranks=(3,),
    # Inference only: no train mode, no gradient, no update between calls.
    trains=False,
    inference=True,
    allowed=(*ELEMENTARY, "softmax", "_softmax"),
    banned=(*ATTENTION_BUILTINS, *QUANTIZABLE_ATTENTION),
)

"""Grading spec for ``multi_head_attention``: ``MultiHeadAttention(dim, n_heads, n_kv_heads=None,
bias=False)``, self-attention with grouped key/value heads, as LLaMA 2/3 and Mistral write it.

Contract: projections ``wq`` (dim -> n_heads * head_dim), ``wk`` and ``wv`` (dim -> n_kv_heads *
head_dim), ``wo`` (n_heads * head_dim -> dim), all ``nn.Linear`` with ``bias``; ``head_dim = dim //
n_heads``; ``n_kv_heads`` None means ``n_heads`` (1 is multi-query attention). ``dim`` must be
divisible by ``n_heads`` and ``n_heads`` by ``n_kv_heads``, otherwise the constructor raises
``ValueError``. ``forward(x, mask=None, is_causal=False)``: ``x`` of shape (batch, seq, dim);
``mask`` a boolean key-padding mask of shape (batch, seq), True = this key may be attended;
``is_causal`` lets query i see keys j <= i (top-left ``tril``). Each projection is split into heads
(``view(B, T, H, hd).transpose(1, 2)``), query head i reads key/value head ``i // (n_heads //
n_kv_heads)`` (``repeat_interleave``, LLaMA's ``repeat_kv``), scores scaled by ``1/sqrt(head_dim)``,
softmax over the keys, heads merged back and projected by ``wo``. A query row whose keys are all
masked gives zeros before ``wo`` (the scaled_dot_product_attention exercise's convention, and
torch's since 2.5), never NaN.

The attention core is the learner's: the attention built-ins are banned however reached
(``allowlist.ATTENTION_BUILTINS``, the quantizable module too); softmax and matmul are allowed.
"""

from __future__ import annotations

import math
from typing import cast

import torch
import torch.nn.functional as F
from torch import nn

from api.grading.allowlist import ATTENTION_BUILTINS, ELEMENTARY, QUANTIZABLE_ATTENTION
from api.grading.draw import described, linear_bias, linear_weight, normal, raises, randint, update
from api.grading.phrase import (
    FORWARD_ONLY_NO_GRAD,
    Phrase,
    after_the_update,
    constructor_raises,
    non_contiguous,
    same,
)
from api.grading.spec import Call, Case, ExerciseSpec, InitValue, KnownMistake, Layout, Step

F32, F64 = torch.float32, torch.float64
NEG_INF = float("-inf")


def _lin(layer: nn.Linear, x: torch.Tensor) -> torch.Tensor:
    # What layer(x) computes, typed: nn.Module.__call__ returns Any.
    return F.linear(x, layer.weight, layer.bias)


class MultiHeadAttention(nn.Module):
    """The reference, and the base every known mistake overrides one step of."""

    def __init__(
        self, dim: int, n_heads: int, n_kv_heads: int | None = None, bias: bool = False
    ) -> None:
        super().__init__()
        kv = n_heads if n_kv_heads is None else n_kv_heads
        if n_heads < 1 or kv < 1:
            raise ValueError("n_heads and n_kv_heads must be positive")
        if dim % n_heads:
            raise ValueError(f"dim {dim} is not divisible by n_heads {n_heads}")
        if n_heads % kv:
            raise ValueError(f"n_heads {n_heads} is not divisible by n_kv_heads {kv}")
        self.dim, self.n_heads, self.n_kv_heads = dim, n_heads, kv
        self.head_dim = dim // n_heads
        self.wq = nn.Linear(dim, n_heads * self.head_dim, bias=bias)
        self.wk = nn.Linear(dim, kv * self.head_dim, bias=bias)
        self.wv = nn.Linear(dim, kv * self.head_dim, bias=bias)
        self.wo = nn.Linear(n_heads * self.head_dim, dim, bias=bias)

    # The steps, one method each, so that a mistake is the one step it gets wrong.
    def split(self, t: torch.Tensor, heads: int) -> torch.Tensor:
        """(B, T, heads * hd) -> (B, heads, T, hd)."""
        b, n, _ = t.shape
        return t.reshape(b, n, heads, self.head_dim).transpose(1, 2)

    def merge(self, o: torch.Tensor) -> torch.Tensor:
        """(B, H, T, hd) -> (B, T, H * hd)."""
        b, h, n, hd = o.shape
        return o.transpose(1, 2).reshape(b, n, h * hd)

    def repeat_kv(self, t: torch.Tensor) -> torch.Tensor:
        """Query head i reads kv head i // group (LLaMA's repeat_kv)."""
        return t.repeat_interleave(self.n_heads // self.n_kv_heads, dim=1)

    def factor(self) -> float:
        return 1.0 / math.sqrt(self.head_dim)

    def causal(self, n: int) -> torch.Tensor:
        return torch.ones(n, n, dtype=torch.bool).tril()

    def padding(self, mask: torch.Tensor) -> torch.Tensor:
        return mask[:, None, None, :]  # (B, 1, 1, S): True = may attend

    def keep(self, mask: torch.Tensor | None, is_causal: bool, n: int) -> torch.Tensor | None:
        keep = self.causal(n) if is_causal else None
        if mask is not None:
            pad = self.padding(mask)
            keep = pad if keep is None else keep & pad
        return keep

    def weights(self, scores: torch.Tensor, keep: torch.Tensor | None) -> torch.Tensor:
        """Softmax over the keys; a row with no key left gives zeros and no NaN."""
        if keep is None:
            return torch.softmax(scores, dim=-1)
        scores = scores.masked_fill(~keep, NEG_INF)
        alive = keep.any(-1, keepdim=True)
        p = torch.softmax(scores.masked_fill(~alive, 0.0), dim=-1)
        return p.masked_fill(~alive, 0.0)

    def project_out(self, o: torch.Tensor) -> torch.Tensor:
        return _lin(self.wo, o)

    def forward(
        self, x: torch.Tensor, mask: torch.Tensor | None = None, is_causal: bool = False
    ) -> torch.Tensor:
        q = self.split(_lin(self.wq, x), self.n_heads)
        k = self.repeat_kv(self.split(_lin(self.wk, x), self.n_kv_heads))
        v = self.repeat_kv(self.split(_lin(self.wv, x), self.n_kv_heads))
        scores = q @ k.transpose(-2, -1) * self.factor()
        w = self.weights(scores, self.keep(mask, is_causal, x.shape[1]))
        return self.project_out(self.merge(w @ v))


# --- Cases -------------------------------------------------------------------------------------


def _parameters(
    gen: torch.Generator, dim: int, heads: int, kv: int, bias: bool, dtype: torch.dtype
) -> dict[str, torch.Tensor]:
    """Weights at nn.Linear's scale (scores of unit spread), biases of std 0.1."""
    hd = dim // heads
    sizes = {"wq": (heads * hd, dim), "wk": (kv * hd, dim), "wv": (kv * hd, dim)}
    sizes["wo"] = (dim, heads * hd)
    state: dict[str, torch.Tensor] = {}
    for name, (out, inp) in sizes.items():
        state[f"{name}.weight"] = linear_weight(gen, out, inp, dtype)
        if bias:
            state[f"{name}.bias"] = linear_bias(gen, out, dtype)
    return state


def _call(
    gen: torch.Generator,
    x: torch.Tensor,
    mask: torch.Tensor | None,
    causal: bool,
    *,
    backward: bool = True,
    train: bool = False,
    layout: Layout = "contiguous",
    note: Phrase | None = None,
) -> Call:
    """forward(x, mask, is_causal) as the grader calls it: the tensors are the inputs (x's
    gradient is graded, the boolean mask's is not), is_causal a positional argument after
    them, with mask None in its place when there is no mask."""
    inputs = (x,) if mask is None else (x, mask)
    args: tuple[InitValue | None, ...] = ()
    if causal:
        args = (True,) if mask is not None else (None, True)
    grads = (normal(gen, x.shape, x.dtype),) if backward else None
    return Call(
        inputs,
        grads,
        train=train,
        layout=layout,
        # None stands for mask=None; it crosses to the child as JSON null like any argument.
        args=cast(tuple[InitValue, ...], args),
        note="" if note is None else note.en,
        note_zh=None if note is None else note.zh,
    )


def _heads(dim: int, heads: int, kv: int | None, bias: bool) -> Phrase:
    kv_en = "n_kv_heads None" if kv is None else f"n_kv_heads {kv}"
    hd = dim // heads
    return Phrase(
        f"dim {dim}, {heads} heads of {hd}, {kv_en}, bias={bias}",
        f"dim {dim}，{heads} 个头、每头 {hd} 维，{kv_en}，bias={bias}",
    )


def make_cases(gen: torch.Generator) -> list[Case]:
    """Fifteen families, drawn fresh from ``gen``: the masked and grouped ones first (they tell
    the mistakes apart, and the verdict names a mistake from the first failing cases), the
    construction cases last."""
    cases: list[Case] = []

    def add(
        name: str,
        batch: int,
        seq: int,
        dim: int,
        heads: int,
        kv: int | None,
        dtype: torch.dtype,
        extra: list[Phrase],
        *,
        bias: bool = False,
        mask: torch.Tensor | None = None,
        causal: bool = False,
        backward: bool = True,
        layout: Layout = "contiguous",
        state: dict[str, torch.Tensor] | None = None,
        then: tuple[int, int] | None = None,
    ) -> None:
        x = normal(gen, (batch, seq, dim), dtype)
        if state is None:
            state = _parameters(gen, dim, heads, heads if kv is None else kv, bias, dtype)
        words = [_heads(dim, heads, kv, bias), *extra]
        if mask is not None:
            words.append(Phrase("key-padding mask (B, S)", "key 填充掩码 (B, S)"))
        if causal:
            words.append(same("is_causal=True"))
        if layout != "contiguous":
            words.append(non_contiguous(layout))
        if not backward:
            words.append(FORWARD_ONLY_NO_GRAD)
        steps: list[Step] = [
            _call(gen, x, mask, causal, backward=backward, train=then is not None, layout=layout)
        ]
        if then is not None:
            # Train mode, an update, eval mode on a new batch: no dropout in the contract, so
            # train and eval agree, and a projection cached on the first call must follow.
            b2, t2 = then
            words.append(
                Phrase("train, update, eval", "先以 train 模式调用，更新参数后再以 eval 模式调用")
            )
            steps += [
                update(gen, state),
                _call(
                    gen,
                    normal(gen, (b2, t2, dim), dtype),
                    None,
                    causal,
                    note=after_the_update()
                    if b2 != 1
                    else Phrase("after the update, on a batch of 1", "参数更新之后，批大小为 1"),
                ),
            ]
        init: dict[str, InitValue] = {"dim": dim, "n_heads": heads, "bias": bias}
        if kv is not None:
            init["n_kv_heads"] = kv
        said = described(x, same("N(0,1)"), *words)
        cases.append(
            Case(
                name=name,
                description=said.en,
                description_zh=said.zh,
                x=x,
                init_kwargs=init,
                state=state,
                steps=tuple(steps),
            )
        )

    # Causal grouped-query attention: 4 query heads share 2 kv heads.
    t = randint(gen, 6, 9)
    add("causal_gqa", 2, t, 32, 4, 2, F32, [], causal=True)
    # Left padding under a causal mask: the padded queries see no key at all (zeros), the
    # others only their sequence's real keys. dim 30, 5 heads of 6; n_kv_heads given equal.
    t = randint(gen, 7, 9)
    left = torch.ones(3, t, dtype=torch.bool)
    left[1, :2] = False
    left[2, : randint(gen, 3, t - 2)] = False
    add(
        "causal_left_padding_f64",
        3,
        t,
        30,
        5,
        5,
        F64,
        [
            Phrase(
                "left padding: padded queries see no key",
                "左侧填充：填充位置的 query 看不到任何 key",
            )
        ],
        bias=True,
        mask=left,
        causal=True,
    )
    # Right padding, no causal mask, n_kv_heads left at None.
    t = randint(gen, 6, 9)
    right = torch.ones(3, t, dtype=torch.bool)
    right[0, randint(gen, 2, t - 1) :] = False
    right[2, randint(gen, 1, t - 2) :] = False
    add("padding_mask_f64", 3, t, 24, 4, None, F64, [], mask=right)
    # Multi-query attention with biases: one kv head for all; 3 heads of 7.
    add("multi_query_bias", 2, randint(gen, 5, 8), 21, 3, 1, F32, [], bias=True)
    # Groups of 4: kv heads repeated in the wrong order (tiled) read the wrong head.
    add("gqa_groups_f64", 2, randint(gen, 5, 8), 48, 8, 2, F64, [])
    # Heads kept apart: each query head has its own temperature (its wq rows scaled by
    # 1, 2, 3, 4) and T != n_heads, so a reshape that mixes heads and positions is far off.
    dim, heads = 32, 4
    state = _parameters(gen, dim, heads, heads, False, F64)
    hd = dim // heads
    temps = torch.arange(1, heads + 1, dtype=F64).repeat_interleave(hd)[:, None]
    state["wq.weight"] = state["wq.weight"] * temps
    add(
        "heads_kept_apart_f64",
        2,
        6,
        dim,
        heads,
        heads,
        F64,
        [Phrase("wq of head h scaled by h + 1", "第 h 个头的 wq 乘以 h + 1")],
        state=state,
    )
    # A feature size past 128 that is no power of two: 12 heads of 12, 4 kv heads.
    add("wide_dim_144", 2, 6, 144, 12, 4, F32, [], causal=True)
    add("train_update_eval", 2, 7, 40, 4, 2, F32, [], bias=True, causal=True, then=(1, 5))
    add("batch_of_one_f64", 1, 8, 24, 2, 1, F64, [], causal=True)
    add(
        "sequence_of_one",
        3,
        1,
        16,
        2,
        None,
        F32,
        [Phrase("a sequence of one token", "序列只有一个 token")],
        mask=torch.ones(3, 1, dtype=torch.bool),
        causal=True,
    )
    add("transposed_x", 2, 6, 36, 6, 3, F32, [], layout="transposed")
    add("no_grad", 2, 6, 32, 4, 2, F32, [], causal=True, backward=False)
    for label, kwargs, call in (
        ("dim_not_divisible_by_heads", {"dim": 30, "n_heads": 4}, "(dim=30, n_heads=4)"),
        (
            "heads_not_divisible_by_kv_heads",
            {"dim": 24, "n_heads": 6, "n_kv_heads": 4},
            "(dim=24, n_heads=6, n_kv_heads=4)",
        ),
        (
            "more_kv_heads_than_heads",
            {"dim": 32, "n_heads": 4, "n_kv_heads": 8},
            "(dim=32, n_heads=4, n_kv_heads=8)",
        ),
    ):
        said = constructor_raises(f"MultiHeadAttention{call}", "ValueError")
        cases.append(
            raises(
                "ValueError",
                name=label,
                description=said.en,
                description_zh=said.zh,
                init_kwargs=cast(dict[str, InitValue], kwargs),
            )
        )
    return cases


# --- Known mistakes: the contract's constructor, one step wrong each. ---------------------------


class HeadsMixedByReshape(MultiHeadAttention):
    """view(B, H, T, hd) straight from (B, T, D), and back the same way."""

    def split(self, t: torch.Tensor, heads: int) -> torch.Tensor:
        b, n, _ = t.shape
        return t.reshape(b, heads, n, self.head_dim)

    def merge(self, o: torch.Tensor) -> torch.Tensor:
        b, h, n, hd = o.shape
        return o.reshape(b, n, h * hd)


class SplitMixedMergeRight(HeadsMixedByReshape):
    merge = MultiHeadAttention.merge


class SplitRightMergeMixed(HeadsMixedByReshape):
    split = MultiHeadAttention.split


class ScaledByModelDim(MultiHeadAttention):
    def factor(self) -> float:
        return 1.0 / math.sqrt(self.dim)


class NoScaling(MultiHeadAttention):
    def factor(self) -> float:
        return 1.0


class KvHeadsTiled(MultiHeadAttention):
    def repeat_kv(self, t: torch.Tensor) -> torch.Tensor:
        return t.repeat(1, self.n_heads // self.n_kv_heads, 1, 1)


class MaskAfterSoftmax(MultiHeadAttention):
    def weights(self, scores: torch.Tensor, keep: torch.Tensor | None) -> torch.Tensor:
        p = torch.softmax(scores, dim=-1)
        return p if keep is None else p.masked_fill(~keep, 0.0)


class CausalDiagonalMasked(MultiHeadAttention):
    def causal(self, n: int) -> torch.Tensor:
        return torch.ones(n, n, dtype=torch.bool).tril(-1)


class CausalFutureVisible(MultiHeadAttention):
    def causal(self, n: int) -> torch.Tensor:
        return torch.ones(n, n, dtype=torch.bool).tril(1)


class SoftmaxOverQueries(MultiHeadAttention):
    # A padded key's column is all -inf: NaN there, as the learner's code gives (the verdict
    # sets NaN-only differences aside and names the mistake from the other checks).
    def weights(self, scores: torch.Tensor, keep: torch.Tensor | None) -> torch.Tensor:
        if keep is not None:
            scores = scores.masked_fill(~keep, NEG_INF)
        return torch.softmax(scores, dim=-2)


class PaddingMaskInverted(MultiHeadAttention):
    def padding(self, mask: torch.Tensor) -> torch.Tensor:
        return ~mask[:, None, None, :]


class OutputProjectionMissing(MultiHeadAttention):
    def project_out(self, o: torch.Tensor) -> torch.Tensor:
        return o


class FullyMaskedRowsNan(MultiHeadAttention):
    def weights(self, scores: torch.Tensor, keep: torch.Tensor | None) -> torch.Tensor:
        if keep is not None:
            scores = scores.masked_fill(~keep, NEG_INF)
        return torch.softmax(scores, dim=-1)


class FiniteMaskFill(MultiHeadAttention):
    def weights(self, scores: torch.Tensor, keep: torch.Tensor | None) -> torch.Tensor:
        if keep is not None:
            scores = scores.masked_fill(~keep, -1e9)
        return torch.softmax(scores, dim=-1)


MISTAKES = (
    KnownMistake(
        name="heads_mixed_by_reshape",
        title="Heads split by a reshape without the transpose: heads and positions mixed",
        explanation=(
            "You turned the (B, T, H * hd) projection into (B, H, T, hd) with one view/reshape "
            "(or merged the heads back that way). Memory holds each token's features together, "
            "so that reshape cuts across tokens: a 'head' then holds pieces of several "
            "positions and several heads. Split as view(B, T, H, hd).transpose(1, 2), and merge "
            "as transpose(1, 2).reshape(B, T, H * hd)."
        ),
        title_zh="拆分多头时只做了 reshape 没有 transpose：头和位置混在了一起",
        explanation_zh=(
            "你用一次 view/reshape 把 (B, T, H * hd) 的投影变成了 (B, H, T, hd)（或者合并多头时这样"
            "变回去）。内存里每个 token 的特征是连在一起的，这样 reshape 会跨 token 切分：一个“头”"
            "里装的是几个位置、几个头的碎片。应先 view(B, T, H, hd) 再 transpose(1, 2)；合并时先 "
            "transpose(1, 2) 再 reshape(B, T, H * hd)。"
        ),
        build=HeadsMixedByReshape,
        forms=(SplitMixedMergeRight, SplitRightMergeMixed),
    ),
    KnownMistake(
        name="scaled_by_model_dim",
        title="Scores scaled by 1/sqrt(dim) instead of 1/sqrt(head_dim)",
        explanation=(
            "You divided the scores by the square root of the model width. Each head's score "
            "is a dot product over head_dim = dim / n_heads features, so its spread is "
            "sqrt(head_dim): dividing by sqrt(dim) makes every head's softmax flatter by "
            "sqrt(n_heads). Use 1 / math.sqrt(self.head_dim)."
        ),
        title_zh="分数按 1/sqrt(dim) 缩放，而不是 1/sqrt(head_dim)",
        explanation_zh=(
            "你把分数除以了模型宽度的平方根。每个头的分数是 head_dim = dim / n_heads 个特征上的"
            "点积，标准差是 sqrt(head_dim)：除以 sqrt(dim) 会让每个头的 softmax 平坦 sqrt(n_heads) "
            "倍。应使用 1 / math.sqrt(self.head_dim)。"
        ),
        build=ScaledByModelDim,
    ),
    KnownMistake(
        name="no_scaling",
        title="Scores not scaled",
        explanation=(
            "You used q @ k^T as the scores. Their spread grows like sqrt(head_dim), the "
            "softmax saturates towards one key and its gradient vanishes. Multiply the scores "
            "by 1 / math.sqrt(head_dim)."
        ),
        title_zh="分数没有缩放",
        explanation_zh=(
            "你直接用 q @ k^T 作为分数。分数的标准差随 sqrt(head_dim) 增长，softmax 会饱和到某个 "
            "key 上，梯度随之消失。应把分数乘以 1 / math.sqrt(head_dim)。"
        ),
        build=NoScaling,
    ),
    KnownMistake(
        name="kv_heads_repeated_in_wrong_order",
        title="Key/value heads repeated in the wrong order (tiled instead of interleaved)",
        explanation=(
            "With n_kv_heads < n_heads, query head i must read key/value head "
            "i // (n_heads // n_kv_heads): heads 0..g-1 share kv head 0, the next g share kv "
            "head 1, as LLaMA's repeat_kv does. You tiled the kv heads (repeat, cat or expand "
            "on the wrong axis), so query head i reads kv head i % n_kv_heads. Use "
            "k.repeat_interleave(n_heads // n_kv_heads, dim=1), or k[:, :, None].expand(B, "
            "n_kv, g, T, hd).reshape(B, n_heads, T, hd)."
        ),
        title_zh="key/value 头的复制顺序错了（平铺而不是交错复制）",
        explanation_zh=(
            "当 n_kv_heads < n_heads 时，第 i 个 query 头应读取第 i // (n_heads // n_kv_heads) 个 "
            "key/value 头：前 g 个头共用 kv 头 0，接下来 g 个共用 kv 头 1，LLaMA 的 repeat_kv 就是"
            "这样做的。你把 kv 头整体平铺了（repeat、cat 或在错误的维度上 expand），于是第 i 个 "
            "query 头读到的是第 i % n_kv_heads 个 kv 头。应使用 k.repeat_interleave(n_heads // "
            "n_kv_heads, dim=1)，或 k[:, :, None].expand(B, n_kv, g, T, hd).reshape(B, n_heads, "
            "T, hd)。"
        ),
        build=KvHeadsTiled,
    ),
    KnownMistake(
        name="mask_after_softmax",
        title="Mask applied after the softmax",
        explanation=(
            "You took the softmax of the unmasked scores and then zeroed the masked weights. "
            "The masked keys kept their share of the normaliser, so the remaining weights no "
            "longer sum to 1 and every masked row shrinks. Fill the masked scores with -inf "
            "before the softmax."
        ),
        title_zh="在 softmax 之后才施加掩码",
        explanation_zh=(
            "你先对未掩码的分数做 softmax，再把被掩码的权重清零。被掩码的 key 仍然占着"
            "归一化的份额，剩下的权重之和不再是 1，所有受掩码影响的行都偏小。应在 softmax "
            "之前把被掩码的分数填成 -inf。"
        ),
        build=MaskAfterSoftmax,
    ),
    KnownMistake(
        name="causal_diagonal_masked",
        title="Causal mask off by one: the diagonal masked too",
        explanation=(
            "Your causal mask hides key j >= i instead of j > i (triu with diagonal=0, or "
            "tril(-1) kept). A token must see itself: query 0 then has no key at all, and "
            "every other query loses its own position. Hide triu(diagonal=1), or keep "
            "tril(diagonal=0)."
        ),
        title_zh="因果掩码差一位：把对角线也遮住了",
        explanation_zh=(
            "你的因果掩码遮住了 j >= i 的 key，而应是 j > i（用了 diagonal=0 的 triu，或保留了 "
            "tril(-1)）。一个 token 必须能看到自己：这样 query 0 一个 key 都没有，其余 query 也看"
            "不到自己的位置。应遮住 triu(diagonal=1)，或保留 tril(diagonal=0)。"
        ),
        build=CausalDiagonalMasked,
    ),
    KnownMistake(
        name="causal_future_visible",
        title="Causal mask off by one: the next token visible",
        explanation=(
            "Your causal mask lets query i see key i + 1 (tril(diagonal=1) kept, or "
            "triu(diagonal=2) hidden). During training that leaks the very token the model is "
            "asked to predict. Keep tril(diagonal=0): key j is visible only when j <= i."
        ),
        title_zh="因果掩码差一位：能看到下一个 token",
        explanation_zh=(
            "你的因果掩码让 query i 看到了 key i + 1（保留了 tril(diagonal=1)，或遮住的是 "
            "triu(diagonal=2)）。训练时这会把模型要预测的那个 token 泄露给它。应保留 "
            "tril(diagonal=0)：只有 j <= i 时 key j 才可见。"
        ),
        build=CausalFutureVisible,
    ),
    KnownMistake(
        name="softmax_over_queries",
        title="Softmax taken over the queries instead of the keys",
        explanation=(
            "You normalised the (T, T) score matrix along dim -2, the queries. Each query's "
            "weights over the keys must sum to 1, so the softmax goes along the last axis: "
            "softmax(scores, dim=-1)."
        ),
        title_zh="softmax 沿 query 方向而不是 key 方向",
        explanation_zh=(
            "你沿 dim -2（query 方向）对 (T, T) 的分数矩阵做了归一化。每个 query 对所有 key 的权重"
            "之和应为 1，所以 softmax 要沿最后一维：softmax(scores, dim=-1)。"
        ),
        build=SoftmaxOverQueries,
    ),
    KnownMistake(
        name="padding_mask_inverted",
        title="Key-padding mask read the wrong way round",
        explanation=(
            "You treated True in the key-padding mask as 'padding, hide it'. In this contract, "
            "as in F.scaled_dot_product_attention and Hugging Face's attention_mask, True (1) "
            "means 'a real token, may attend'; nn.MultiheadAttention's key_padding_mask is the "
            "opposite. Hide the keys where the mask is False: masked_fill(~mask[:, None, None, "
            ":], -inf)."
        ),
        title_zh="key 填充掩码的含义读反了",
        explanation_zh=(
            "你把 key 填充掩码里的 True 当成了“填充位置，要遮住”。本题与 "
            "F.scaled_dot_product_attention、Hugging Face 的 attention_mask 一样，True（1）表示"
            "“真实 token，可以关注”；nn.MultiheadAttention 的 key_padding_mask 正好相反。应遮住掩码"
            "为 False 的 key：masked_fill(~mask[:, None, None, :], -inf)。"
        ),
        build=PaddingMaskInverted,
    ),
    KnownMistake(
        name="output_projection_missing",
        title="The output projection wo not applied",
        explanation=(
            "You returned the merged heads (B, T, n_heads * head_dim) as they are. Multi-head "
            "attention ends with wo: it is what mixes the heads' outputs into the model's "
            "features (each head alone only sees its own slice). Return self.wo(merged)."
        ),
        title_zh="没有做输出投影 wo",
        explanation_zh=(
            "你把合并后的多头输出 (B, T, n_heads * head_dim) 原样返回了。多头注意力的最后一步是 "
            "wo：正是它把各个头的输出混合成模型的特征（每个头只看到自己那一段）。应返回 "
            "self.wo(merged)。"
        ),
        build=OutputProjectionMissing,
    ),
    KnownMistake(
        name="fully_masked_rows_nan",
        title="A query with no key left gives NaN",
        explanation=(
            "A query whose keys are all masked (a padded position under left padding and a "
            "causal mask) has a row of -inf scores; its softmax is 0 / 0 = NaN, which wo then "
            "spreads over the features and backward into every gradient. The contract returns "
            "zeros for such a row before wo: find the rows with no key left, softmax the "
            "others, and set those rows' weights to 0 (masked_fill or torch.where)."
        ),
        title_zh="没有任何可见 key 的 query 得到 NaN",
        explanation_zh=(
            "如果一个 query 的所有 key 都被掩码（左侧填充再加因果掩码时，填充位置的 query "
            "就是这样），它的分数整行都是 -inf，softmax 得到 0 / 0 = NaN，经过 wo 会扩散到"
            "所有特征，反向传播时进入所有梯度。本题约定这样的行在 wo 之前输出 0：找出没有"
            "可见 key 的行，对其余行做 softmax，把这些行的权重设为 0（masked_fill 或 "
            "torch.where）。"
        ),
        build=FullyMaskedRowsNan,
    ),
    KnownMistake(
        name="finite_mask_fill",
        title="Masked scores filled with a large finite number, rows with no key not zeroed",
        explanation=(
            "You filled the masked scores with a large negative number (-1e9, finfo.min). On a "
            "row with some key left this is the same as -inf, but a row with none becomes a row "
            "of equal scores: the softmax spreads it evenly and the query returns the mean of "
            "the values instead of zeros. Zero the weights of rows with no key left."
        ),
        title_zh="被掩码的分数填成了很大的有限负数，没有可见 key 的行没有清零",
        explanation_zh=(
            "你用一个很大的负数（-1e9、finfo.min）填充被掩码的分数。还剩可见 key 的行与填 -inf "
            "结果相同，但一个 key 都不剩的行会变成分数全相等的一行：softmax 把权重平均分配，这个 "
            "query 返回 value 的平均值而不是 0。应把没有可见 key 的行的权重清零。"
        ),
        build=FiniteMaskFill,
    ),
)


SPEC = ExerciseSpec(
    slug="multi_head_attention",
    class_name="MultiHeadAttention",
    reference=MultiHeadAttention,
    make_cases=make_cases,
    mistakes=MISTAKES,
    # Four projections, two attention matmuls and a softmax: float32 rounding accumulates.
    tolerance_scale=3.0,
    ranks=(3,),
    # What a solution is made of, softmax included (the exercise is attention, not softmax);
    # anything else it runs is refused (api/grading/allowlist.py).
    allowed=(*ELEMENTARY, "softmax", "_softmax", "_softmax_backward_data"),
    banned=(*ATTENTION_BUILTINS, *QUANTIZABLE_ATTENTION),
)

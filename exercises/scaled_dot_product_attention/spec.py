"""Grading spec for ``scaled_dot_product_attention``: ``scaled_dot_product_attention(q, k, v,
mask=None, is_causal=False, scale=None)``, graded against the contract PyTorch's
``F.scaled_dot_product_attention`` (torch >= 2.5) implements on the CPU.

Contract: ``q`` of shape ``(..., L, E)``, ``k`` and ``v`` of shape ``(..., S, E)`` (the same
leading dims; rank 2, 3 or 4). Scores ``q @ k^T * scale``, ``scale = 1 / sqrt(E)`` unless given.
``mask`` is boolean (``True`` = attend, broadcastable to ``(..., L, S)``) or floating (added to
the scores: ``-inf`` masks, a finite value biases; its gradient is graded, as for a learned
bias). ``is_causal=True`` lets query ``i`` see keys ``j <= i`` (``tril`` of an ``(L, S)`` matrix
of ones, top-left aligned), never together with ``mask``. A query row whose keys are *all*
masked returns zeros, and no gradient flows through it (what torch's math backend does since
2.5: its "safe softmax"); no NaN anywhere. Softmax along the keys, then ``@ v``.

The reference is written with elementary ops (an independent crosscheck calls torch's own
``F.scaled_dot_product_attention``).

What a solution legitimately needs (for the per-exercise allow-list): matmul / einsum / bmm /
transpose, softmax (allowed here: the point is attention, not softmax), masked_fill / where,
tril / triu / ones, any / all / isinf, exp / amax / sum for those who write the softmax.
"""

from __future__ import annotations

import math

import torch

from api.grading.allowlist import ATTENTION_BUILTINS, ELEMENTARY
from api.grading.draw import described, normal, randint
from api.grading.phrase import FORWARD_ONLY_NO_GRAD, Phrase, same, view_zh
from api.grading.spec import Call, Case, ExerciseSpec, InitValue, KnownMistake, Layout

F32, F64, BF16 = torch.float32, torch.float64, torch.bfloat16
NEG_INF = float("-inf")


def _scale(q: torch.Tensor, scale: float | None) -> float:
    return 1.0 / math.sqrt(q.shape[-1]) if scale is None else float(scale)


def _keep(scores: torch.Tensor, mask: torch.Tensor | None, is_causal: bool) -> torch.Tensor | None:
    """The boolean mask of the pairs that may attend (None: all of them)."""
    keep = None
    if is_causal:
        length, source = scores.shape[-2:]
        keep = torch.ones(length, source, dtype=torch.bool).tril()
    if mask is not None and mask.dtype == torch.bool:
        keep = mask if keep is None else keep & mask
    return keep


def _safe_softmax(scores: torch.Tensor) -> torch.Tensor:
    """Softmax along the keys; a row of only -inf gives zeros, and no NaN in its gradient."""
    alive = (scores > NEG_INF).any(-1, keepdim=True)
    p = torch.softmax(scores.masked_fill(~alive, 0.0), dim=-1)
    return p.masked_fill(~alive, 0.0)


def _masked_scores(
    q: torch.Tensor,
    k: torch.Tensor,
    mask: torch.Tensor | None,
    is_causal: bool,
    factor: float,
    fill: float = NEG_INF,
) -> torch.Tensor:
    scores = (q @ k.transpose(-2, -1)) * factor
    if mask is not None and mask.dtype != torch.bool:
        scores = scores + mask
    keep = _keep(scores, mask, is_causal)
    return scores if keep is None else scores.masked_fill(~keep, fill)


def reference(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    mask: torch.Tensor | None = None,
    is_causal: bool = False,
    scale: float | None = None,
) -> torch.Tensor:
    scores = _masked_scores(q, k, mask, is_causal, _scale(q, scale))
    return _safe_softmax(scores) @ v


def make_cases(gen: torch.Generator) -> list[Case]:
    """Fifteen families, drawn fresh from ``gen``. The causal and masked families come first:
    they tell the masking mistakes apart, and the verdict names a mistake from the first
    failing cases."""
    cases: list[Case] = []

    def add(
        name: str,
        lead: tuple[int, ...],
        length: int,
        source: int,
        dim: int,
        dtype: torch.dtype,
        extra: list[Phrase],
        *,
        mask: torch.Tensor | None = None,
        causal: bool = False,
        scale: float | None = None,
        std: float = 1.0,
        backward: bool = True,
        layout: Layout = "contiguous",
    ) -> None:
        q = normal(gen, (*lead, length, dim), F32, std=std).to(dtype)
        k = normal(gen, (*lead, source, dim), F32, std=std).to(dtype)
        v = normal(gen, (*lead, source, dim), F32).to(dtype)
        inputs = (q, k, v) if mask is None else (q, k, v, mask)
        kwargs: dict[str, InitValue] = {}
        keys = Phrase(f"{source} key" + ("s" if source != 1 else ""), f"{source} 个 key")
        words = [keys, *extra]
        if causal:
            kwargs["is_causal"] = True
            words.append(same("is_causal=True"))
        if scale is not None:
            kwargs["scale"] = scale
            words.append(same(f"scale={scale:g}"))
        else:
            words.append(Phrase("default scale 1/sqrt(E)", "默认 scale 为 1/sqrt(E)"))
        if layout != "contiguous":
            words.append(Phrase(f"q a non-contiguous ({layout}) view", f"q 为{view_zh(layout)}"))
        if not backward:
            words.append(FORWARD_ONLY_NO_GRAD)
        grads = (normal(gen, (*lead, length, dim), dtype),) if backward else None
        what = "N(0,1)" if std == 1.0 else f"{std:g} * N(0,1)"
        said = described(q, same(what), *words)
        cases.append(
            Case(
                name=name,
                description=said.en,
                description_zh=said.zh,
                x=q,
                init_kwargs=kwargs,
                steps=(Call(inputs, grads, layout=layout),),
            )
        )

    # Causal self-attention, 4-D (batch, heads, L, E).
    t = randint(gen, 6, 9)
    add("causal_4d", (2, 3), t, t, 16, F32, [], causal=True)
    # A key-padding mask (B, 1, S), True = attend; every sequence keeps at least one key.
    b, s = 3, randint(gen, 7, 10)
    keep = torch.rand(b, 1, s, generator=gen) < 0.6
    keep[:, :, 0] = True
    add(
        "bool_padding_mask",
        (b,),
        6,
        s,
        8,
        F64,
        [Phrase("boolean key-padding mask (B, 1, S)", "布尔 key 填充掩码 (B, 1, S)")],
        mask=keep,
    )
    # Rows whose keys are all masked: the contract's zeros (torch's safe softmax), no NaN.
    s = randint(gen, 6, 9)
    full = torch.rand(6, s, generator=gen) < 0.7
    full[:, 0] = True
    full[1] = False
    full[4] = False
    add(
        "fully_masked_rows",
        (),
        6,
        s,
        12,
        F64,
        [
            Phrase("boolean mask (L, S)", "布尔掩码 (L, S)"),
            Phrase("rows 1 and 4 fully masked", "第 1 行和第 4 行整行被掩码"),
        ],
        mask=full,
    )
    # An additive float mask (a bias with -inf entries, one row all -inf), broadcast over the
    # batch; its gradient is graded like the others'.
    s = randint(gen, 7, 11)
    bias = normal(gen, (5, s), F32)
    bias = bias.masked_fill(torch.rand(5, s, generator=gen) < 0.3, NEG_INF)
    bias[:, 0] = 0.5
    bias[2] = NEG_INF
    add(
        "additive_mask",
        (2,),
        5,
        s,
        16,
        F32,
        [
            Phrase(
                "additive mask (L, S): N(0,1) with -inf entries",
                "加性掩码 (L, S)：N(0,1)，部分位置为 -inf",
            ),
            Phrase("row 2 all -inf", "第 2 行全为 -inf"),
        ],
        mask=bias,
    )
    # A finite additive bias (ALiBi-like), no -inf: the mask is added, not thresholded.
    s = randint(gen, 5, 9)
    slopes = -0.5 * (torch.arange(5).view(5, 1) - torch.arange(s).view(1, s)).abs().double()
    add(
        "additive_bias_f64",
        (2,),
        5,
        s,
        8,
        F64,
        [Phrase("additive mask (L, S): -|i - j| / 2", "加性掩码 (L, S)：-|i - j| / 2")],
        mask=slopes,
    )
    add("custom_scale", (2,), 5, 7, 24, F64, [], scale=0.3, causal=False)
    # The edge of the scale argument: 0.0 is a legal multiplier (uniform attention over the
    # keys), and falsy, so `scale or 1/sqrt(E)` replaces it by the default.
    add(
        "scale_zero",
        (2,),
        4,
        6,
        8,
        F64,
        [Phrase("uniform attention: the mean of v", "均匀注意力：v 的平均")],
        scale=0.0,
    )
    # Rectangular causal attention (L < S): top-left aligned like torch's is_causal.
    add("causal_rectangular", (2,), 4, 7, 16, F64, [], causal=True)
    # A head dimension past 128 that is no power of two: 1/E and 1/sqrt(E) far apart.
    add("head_dim_160", (2,), 5, 6, 160, F32, [])
    # Scores with a large spread: a softmax written without its max subtracted overflows.
    add("sharp_scores", (2,), 6, 6, 32, F32, [], std=4.0)
    add("transposed_q", (3,), 7, 7, 10, F32, [], layout="transposed")
    add("batch_of_one_4d", (1, 2), 8, 8, 24, F32, [], causal=True)
    add("single_key", (3,), 5, 1, 8, F64, [])
    add("no_grad", (2,), 6, 6, 16, F32, [], causal=True, backward=False)
    add("bfloat16", (2,), 6, 6, 32, BF16, [], causal=True, backward=False)
    return cases


# --- Known mistakes: the contract's signature, one error each, all else as the reference.


def _attend(scores: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    return _safe_softmax(scores) @ v


def no_scaling(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    mask: torch.Tensor | None = None,
    is_causal: bool = False,
    scale: float | None = None,
) -> torch.Tensor:
    return _attend(_masked_scores(q, k, mask, is_causal, 1.0 if scale is None else scale), v)


def scaled_by_dim(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    mask: torch.Tensor | None = None,
    is_causal: bool = False,
    scale: float | None = None,
) -> torch.Tensor:
    factor = 1.0 / q.shape[-1] if scale is None else scale
    return _attend(_masked_scores(q, k, mask, is_causal, factor), v)


def scale_zero_as_default(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    mask: torch.Tensor | None = None,
    is_causal: bool = False,
    scale: float | None = None,
) -> torch.Tensor:
    # `scale or 1 / sqrt(E)`: a given 0.0 is falsy and taken for "not given".
    return reference(q, k, v, mask, is_causal, scale or None)


def scale_ignored(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    mask: torch.Tensor | None = None,
    is_causal: bool = False,
    scale: float | None = None,
) -> torch.Tensor:
    return reference(q, k, v, mask, is_causal)


def softmax_over_queries(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    mask: torch.Tensor | None = None,
    is_causal: bool = False,
    scale: float | None = None,
) -> torch.Tensor:
    scores = _masked_scores(q, k, mask, is_causal, _scale(q, scale))
    return _safe_softmax(scores.transpose(-2, -1)).transpose(-2, -1) @ v


def mask_after_softmax(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    mask: torch.Tensor | None = None,
    is_causal: bool = False,
    scale: float | None = None,
) -> torch.Tensor:
    scores = (q @ k.transpose(-2, -1)) * _scale(q, scale)
    if mask is not None and mask.dtype != torch.bool:
        scores = scores + mask
        p = _safe_softmax(scores)
    else:
        p = torch.softmax(scores, dim=-1)
    keep = _keep(scores, mask, is_causal)
    return (p if keep is None else p.masked_fill(~keep, 0.0)) @ v


def causal_diagonal_masked(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    mask: torch.Tensor | None = None,
    is_causal: bool = False,
    scale: float | None = None,
) -> torch.Tensor:
    scores = _masked_scores(q, k, mask, False, _scale(q, scale))
    if is_causal:
        length, source = scores.shape[-2:]
        scores = scores.masked_fill(torch.ones(length, source, dtype=torch.bool).triu(), NEG_INF)
    return _attend(scores, v)


def causal_mask_inverted(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    mask: torch.Tensor | None = None,
    is_causal: bool = False,
    scale: float | None = None,
) -> torch.Tensor:
    scores = _masked_scores(q, k, mask, False, _scale(q, scale))
    if is_causal:
        length, source = scores.shape[-2:]
        scores = scores.masked_fill(torch.ones(length, source, dtype=torch.bool).tril(-1), NEG_INF)
    return _attend(scores, v)


def bool_mask_inverted(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    mask: torch.Tensor | None = None,
    is_causal: bool = False,
    scale: float | None = None,
) -> torch.Tensor:
    flipped = ~mask if mask is not None and mask.dtype == torch.bool else mask
    return reference(q, k, v, flipped, is_causal, scale)


def fully_masked_rows_nan(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    mask: torch.Tensor | None = None,
    is_causal: bool = False,
    scale: float | None = None,
) -> torch.Tensor:
    scores = _masked_scores(q, k, mask, is_causal, _scale(q, scale))
    return torch.softmax(scores, dim=-1) @ v


def finite_mask_fill(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    mask: torch.Tensor | None = None,
    is_causal: bool = False,
    scale: float | None = None,
) -> torch.Tensor:
    scores = _masked_scores(q, k, mask, is_causal, _scale(q, scale), fill=-1e9)
    return torch.softmax(scores, dim=-1) @ v


MISTAKES = (
    KnownMistake(
        name="no_scaling",
        title="Scores not scaled by 1/sqrt(E)",
        explanation=(
            "You used q @ k^T as the scores. Each score is a sum of E products, so its spread "
            "grows like sqrt(E); the softmax then saturates towards one key and its gradient "
            "vanishes. Multiply the scores by scale = 1/sqrt(E) (E = q.shape[-1]) unless a "
            "scale is given."
        ),
        title_zh="分数没有乘以 1/sqrt(E)",
        explanation_zh=(
            "你直接用 q @ k^T 作为分数。每个分数是 E 个乘积之和，标准差随 sqrt(E) 增长，softmax "
            "会饱和到某一个 key 上，梯度随之消失。除非给定了 scale，分数应乘以 "
            "scale = 1/sqrt(E)（E = q.shape[-1]）。"
        ),
        build=no_scaling,
    ),
    KnownMistake(
        name="scaled_by_dim",
        title="Scores divided by E instead of sqrt(E)",
        explanation=(
            "You divided the scores by the head dimension E itself. The variance of q.k is E "
            "(unit-variance entries), so its standard deviation is sqrt(E): dividing by E "
            "flattens the attention towards a uniform average, more so the larger E. Use "
            "1/math.sqrt(q.shape[-1])."
        ),
        title_zh="分数除以 E 而不是 sqrt(E)",
        explanation_zh=(
            "你把分数除以了 head 维度 E 本身。q.k 的方差是 E（各元素方差为 1），标准差是 "
            "sqrt(E)：除以 E 会把注意力压平成接近均匀的平均，E 越大越明显。应使用 "
            "1/math.sqrt(q.shape[-1])。"
        ),
        build=scaled_by_dim,
    ),
    KnownMistake(
        name="scale_zero_as_default",
        title="scale=0.0 replaced by the default 1/sqrt(E)",
        explanation=(
            "You tested the scale for truth (`scale or 1 / math.sqrt(E)`, `if not scale`), so "
            "a given scale of 0.0, which is falsy, is taken for 'not given' and replaced by "
            "1/sqrt(E). Zero is a legal multiplier (every key weighted alike). Test for the "
            "absence of the argument: `1 / math.sqrt(E) if scale is None else scale`."
        ),
        title_zh="把 scale=0.0 换成了默认的 1/sqrt(E)",
        explanation_zh=(
            "你用真值判断 scale（`scale or 1 / math.sqrt(E)`、`if not scale`），于是给定的 "
            "0.0 因为是假值而被当成“没有给”，换成了 1/sqrt(E)。0 是合法的乘数"
            "（所有 key 权重相同）。"
            "应当判断参数是否缺省：`scale is None` 时才用 `1 / math.sqrt(E)`，否则用给定的 scale。"
        ),
        build=scale_zero_as_default,
    ),
    KnownMistake(
        name="scale_ignored",
        title="The scale argument ignored",
        explanation=(
            "Your function always scales by 1/sqrt(E), whatever scale says. When scale is "
            "given (a model trained with another temperature, or a scale folded into q), the "
            "scores must be multiplied by it instead."
        ),
        title_zh="忽略了 scale 参数",
        explanation_zh=(
            "无论 scale 取什么值，你的函数都按 1/sqrt(E) 缩放。给定了 scale 时（模型用别的温度"
            "训练，或者缩放已折算进 q），分数应改为乘以这个 scale。"
        ),
        build=scale_ignored,
    ),
    KnownMistake(
        name="softmax_over_queries",
        title="Softmax taken over the queries instead of the keys",
        explanation=(
            "You normalised the (L, S) score matrix along dim -2, the queries. Each query's "
            "weights over the keys must sum to 1, so the softmax goes along the last axis "
            "(the keys): softmax(scores, dim=-1)."
        ),
        title_zh="softmax 沿 query 方向而不是 key 方向",
        explanation_zh=(
            "你沿 dim -2（query 方向）对 (L, S) 的分数矩阵做了归一化。每个 query 对所有 key 的"
            "权重之和应为 1，所以 softmax 要沿最后一维（key 方向）：softmax(scores, dim=-1)。"
        ),
        build=softmax_over_queries,
    ),
    KnownMistake(
        name="mask_after_softmax",
        title="Mask applied after the softmax",
        explanation=(
            "You took the softmax of the unmasked scores and then zeroed the masked weights. "
            "The remaining weights no longer sum to 1 (the masked keys still took their share "
            "of the normaliser), so every output shrinks. Fill the masked scores with -inf "
            "before the softmax."
        ),
        title_zh="在 softmax 之后才施加掩码",
        explanation_zh=(
            "你先对未掩码的分数做 softmax，再把被掩码的权重清零。剩下的权重之和不再是 1（被掩码"
            "的 key 仍然占用了归一化的份额），所有输出都偏小。应在 softmax 之前把被掩码的分数"
            "填成 -inf。"
        ),
        build=mask_after_softmax,
    ),
    KnownMistake(
        name="causal_diagonal_masked",
        title="Causal mask off by one: the diagonal masked too",
        explanation=(
            "Your causal mask hides key j >= i (triu with diagonal=0) instead of j > i. A "
            "token must see itself: query 0 then has no key left at all, and every other "
            "query loses its own position. Mask triu(diagonal=1), or keep tril(diagonal=0)."
        ),
        title_zh="因果掩码差一位：把对角线也遮住了",
        explanation_zh=(
            "你的因果掩码遮住了 j >= i 的 key（triu 且 diagonal=0），而应是 j > i。一个 token "
            "必须能看到自己：这样 query 0 一个 key 都不剩，其余每个 query 也看不到自己的位置。"
            "应遮住 triu(diagonal=1)，或保留 tril(diagonal=0)。"
        ),
        build=causal_diagonal_masked,
    ),
    KnownMistake(
        name="causal_mask_inverted",
        title="Causal mask inverted: the past hidden, the future visible",
        explanation=(
            "Your causal mask hides the keys before each query and keeps those after it "
            "(the lower triangle masked instead of the upper one). Query i may attend key j "
            "only when j <= i: keep torch.ones(L, S).tril(), mask what lies above it."
        ),
        title_zh="因果掩码方向反了：遮住过去，看到未来",
        explanation_zh=(
            "你的因果掩码遮住了每个 query 之前的 key，保留了之后的（遮住的是下三角而不是上三角）。"
            "只有 j <= i 时 query i 才能关注 key j：保留 torch.ones(L, S).tril()，遮住它上方的"
            "部分。"
        ),
        build=causal_mask_inverted,
    ),
    KnownMistake(
        name="bool_mask_inverted",
        title="Boolean mask read the wrong way round",
        explanation=(
            "You treated True in the boolean mask as 'masked out'. In this contract, as in "
            "F.scaled_dot_product_attention, True means 'may attend' (nn.MultiheadAttention's "
            "key_padding_mask uses the opposite convention, which is where the confusion "
            "comes from). Fill the scores where the mask is False: masked_fill(~mask, -inf)."
        ),
        title_zh="布尔掩码的含义读反了",
        explanation_zh=(
            "你把布尔掩码里的 True 当成了“被遮住”。本题与 F.scaled_dot_product_attention 一样，"
            "True 表示“可以关注”（nn.MultiheadAttention 的 key_padding_mask 正好相反，混淆就来自"
            "这里）。应在掩码为 False 的位置填充分数：masked_fill(~mask, -inf)。"
        ),
        build=bool_mask_inverted,
    ),
    KnownMistake(
        name="fully_masked_rows_nan",
        title="A fully masked row gives NaN",
        explanation=(
            "A query whose keys are all masked has a row of -inf scores; softmax of it is "
            "0 / 0 = NaN, and the NaN spreads to the gradients of q, k and v. The contract "
            "(torch's since 2.5) returns zeros for such a row: find the rows with no finite "
            "score, softmax the others, and set the weights of those rows to 0 (torch.where "
            "or masked_fill), so that no NaN is ever computed."
        ),
        title_zh="整行被掩码时得到 NaN",
        explanation_zh=(
            "如果一个 query 的所有 key 都被掩码，它的分数整行都是 -inf，softmax 得到 0 / 0 = "
            "NaN，NaN 还会传到 q、k、v 的梯度里。本题的约定（也是 torch 2.5 起的行为）是这样的"
            "行输出 0：找出没有任何有限分数的行，对其余行做 softmax，把这些行的权重设为 0"
            "（torch.where 或 masked_fill），让 NaN 根本不会被算出来。"
        ),
        build=fully_masked_rows_nan,
    ),
    KnownMistake(
        name="finite_mask_fill",
        title="Masked scores filled with a large finite number",
        explanation=(
            "You filled the masked scores with a large negative number (-1e9, finfo.min) "
            "instead of -inf. On a partly masked row this is the same, but a fully masked row "
            "becomes a row of equal scores: softmax spreads the weight evenly and the query "
            "returns the mean of v instead of zeros (and an additive -inf mask still gives "
            "NaN). Fill with -inf and handle the rows that have no finite score."
        ),
        title_zh="被掩码的分数填成了很大的有限负数",
        explanation_zh=(
            "你用一个很大的负数（-1e9、finfo.min）而不是 -inf 填充被掩码的分数。部分被掩码的行"
            "结果相同，但整行被掩码时分数全都相等：softmax 把权重平均分配，这个 query 返回 v 的"
            "平均值而不是 0（加性 -inf 掩码仍会得到 NaN）。应填 -inf，并单独处理没有任何有限"
            "分数的行。"
        ),
        build=finite_mask_fill,
    ),
)


SPEC = ExerciseSpec(
    slug="scaled_dot_product_attention",
    class_name="scaled_dot_product_attention",
    kind="function",
    reference=reference,
    make_cases=make_cases,
    mistakes=MISTAKES,
    # Two matmuls and a softmax: float32 rounding accumulates over E and S.
    tolerance_scale=2.0,
    ranks=(2, 3, 4),
    trains=False,
    # The built-in and every route to it: its private and fused entry points, and the modules
    # built on it. softmax stays allowed (the exercise is about attention, not softmax).
    # What a solution is made of, softmax included (the point here is attention): anything
    # else it runs is refused (api/grading/allowlist.py).
    allowed=(*ELEMENTARY, "softmax", "_softmax", "_softmax_backward_data"),
    banned=ATTENTION_BUILTINS,
)

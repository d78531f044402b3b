"""Grading spec for ``softmax``: ``softmax(x, dim=-1)`` and ``log_softmax(x, dim=-1)``, one
exercise, two functions, graded against ``torch.softmax`` and ``torch.log_softmax``.

Contract: any shape, any ``dim`` in ``[-x.ndim, x.ndim)``, same shape and dtype as ``x``, the
same outputs and gradient of ``x`` as PyTorch, including logits of 1e4 and ``-inf`` entries
(masks: ``-inf`` must come back exactly), on slices along ``dim`` that hold at least one finite
value (a slice of only ``-inf`` is left undefined and not graded).

Every case calls ``softmax`` and then ``log_softmax`` on the same input, so one drawn family
exposes a mistake in either function, and the verdict's checks say which one a failure called.
"""

from __future__ import annotations

from collections.abc import Mapping

import torch

from api.grading.allowlist import ELEMENTARY
from api.grading.draw import choice, described, normal, randint
from api.grading.phrase import FORWARD_ONLY_NO_GRAD, Phrase, non_contiguous, same
from api.grading.spec import Call, Case, ExerciseSpec, InitValue, KnownMistake, Layout

FUNCTIONS = ("softmax", "log_softmax")
F32, F64, BF16, F16 = torch.float32, torch.float64, torch.bfloat16, torch.float16


def _softmax_ref(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    return torch.softmax(x, dim)


def _log_softmax_ref(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    return torch.log_softmax(x, dim)


REFERENCE = {"softmax": _softmax_ref, "log_softmax": _log_softmax_ref}


def make_cases(gen: torch.Generator) -> list[Case]:
    """Seventeen families, each a case that calls both functions, drawn fresh from ``gen``.

    Order matters: the verdict names a known mistake from the first failing cases, so the
    families that tell the mistakes apart (the square causal mask, 1e4 logits, rows far apart,
    a spread of 1e3) come first.
    """
    cases: list[Case] = []

    def add(
        name: str,
        what: Phrase | str,
        x: torch.Tensor,
        dim: int | None,
        *,
        backward: bool = True,
        layout: Layout = "contiguous",
    ) -> None:
        kwargs: dict[str, InitValue] = {} if dim is None else {"dim": dim}
        extra = [
            Phrase("default dim = -1", "默认 dim = -1") if dim is None else same(f"dim = {dim}")
        ]
        if layout != "contiguous":
            extra.append(non_contiguous(layout))
        if not backward:
            extra.append(FORWARD_ONLY_NO_GRAD)
        # A formula reads the same in both languages.
        words = described(x, what if isinstance(what, Phrase) else same(what), *extra)
        steps = tuple(
            Call(
                (x,),
                (normal(gen, x.shape, x.dtype),) if backward else None,
                layout=layout,
                function=fn,
            )
            for fn in FUNCTIONS
        )
        cases.append(
            Case(
                name=name,
                description=words.en + "; softmax, then log_softmax",
                description_zh=words.zh + "；先调用 softmax，再调用 log_softmax",
                x=x,
                init_kwargs=kwargs,
                steps=steps,
            )
        )

    # Causal attention scores: a square (T, T) matrix with -inf above the diagonal. Square on
    # purpose: a max taken without keepdim broadcasts silently here instead of raising. First,
    # because the child stops after three cases that raise.
    t = randint(gen, 5, 12)
    scores = normal(gen, (t, t), F32, std=4.0)
    causal = scores.masked_fill(torch.ones(t, t, dtype=torch.bool).triu(1), float("-inf"))
    add(
        "causal_mask",
        Phrase(
            "4 * N(0,1) scores, -inf above the diagonal (a causal mask)",
            "4 * N(0,1) 的注意力分数，对角线以上为 -inf（因果掩码）",
        ),
        causal,
        -1,
    )
    # Logits of 1e4: exp overflows in any dtype unless the max is subtracted first.
    rows = randint(gen, 2, 6)
    # float64: exp overflows there too (above 709), and x - (m + log(sum)), the log-sum-exp form
    # of log_softmax, keeps its precision (in float32 m + log(sum) rounds to 5e-4 at 1e4).
    add("logits_1e4", "N(0,1) + 1e4", normal(gen, (rows, 33), F64).add(1e4), -1)
    # Rows far apart: one near +1e4, one near -1e4. One max over the whole tensor leaves the low
    # row with exp(-2e4) = 0 everywhere.
    apart = normal(gen, (2, randint(gen, 9, 14)), F64)
    apart[0] += 1e4
    apart[1] -= 1e4
    add(
        "rows_apart",
        Phrase("N(0,1), row 0 + 1e4, row 1 - 1e4", "N(0,1)，第 0 行 + 1e4，第 1 行 - 1e4"),
        apart,
        -1,
    )
    # A spread of 1e3 within a row: log_softmax values near -2000 are finite, while the
    # probabilities behind them underflow to 0 (log 0 = -inf).
    add("spread_1e3", "N(0,1) * 1e3", normal(gen, (randint(gen, 3, 7), 17), F32, std=1e3), -1)
    add("standard_normal", "3 * N(0,1)", normal(gen, _shape(gen, 3, 40), F32, std=3.0), None)
    # Every axis, by a positive or a negative index, on a shape with no two sizes equal.
    shape4 = (2, 3, 5, 7)
    add("axis_0", "2 * N(0,1)", normal(gen, shape4, F64, std=2.0), 0)
    add("axis_1", "2 * N(0,1)", normal(gen, shape4, F64, std=2.0), 1)
    add("axis_minus_2", "2 * N(0,1)", normal(gen, shape4, F64, std=2.0), -2)
    # A random padding mask, each row keeping at least one finite logit.
    pad = normal(gen, (6, 10), F32, std=2.0)
    masked = torch.rand(6, 10, generator=gen) < 0.5
    masked[:, randint(gen, 0, 9)] = False
    add(
        "padding_mask",
        Phrase("2 * N(0,1), random -inf entries", "2 * N(0,1)，随机若干位置为 -inf"),
        pad.masked_fill(masked, -torch.inf),
        -1,
    )
    # Rows of equal values: uniform probabilities, log n; a large constant as well.
    equal = torch.full((3, 8), 2.5)
    equal[1] = 1e4
    equal[2] = -7.0
    add(
        "equal_rows",
        Phrase("rows of 2.5, of 1e4 and of -7", "各行分别取常数 2.5、1e4 和 -7"),
        equal,
        1,
    )
    # A non-contiguous view reduced over its first axis.
    add("transposed", "N(0,1)", normal(gen, (randint(gen, 5, 12), 4), F32), 0, layout="transposed")
    add(
        "single_class",
        Phrase("N(0,1) (softmax is 1, log_softmax 0)", "N(0,1)（softmax 为 1，log_softmax 为 0）"),
        normal(gen, (5, 1), F64),
        -1,
    )
    # One long vector with a feature size that is no power of two, and a batch of one.
    add(
        "vector_1d",
        "N(0,1) * 5",
        normal(gen, (choice(gen, [150, 200, 300, 389]),), F32, std=5.0),
        -1,
    )
    add("batch_of_one", "N(0,1)", normal(gen, (1, randint(gen, 2, 5), 200), F32), -1)
    add("bfloat16", "3 * N(0,1)", normal(gen, (4, 64), BF16, std=3.0), -1)
    add("float16", "2 * N(0,1)", normal(gen, (3, 50), F16, std=2.0), -1, backward=False)
    # Forward alone under no_grad, where an in-place change of x is looked for.
    add("no_grad", "N(0,1) + 3", normal(gen, (4, 6), F32).add(3.0), -1, backward=False)
    return cases


def _shape(gen: torch.Generator, rank: int, max_dim: int) -> tuple[int, ...]:
    return (*(randint(gen, 2, 6) for _ in range(rank - 1)), randint(gen, 10, max_dim))


# --- Known mistakes: each maps the functions it gets wrong; the other keeps the reference. ---
# Half-precision inputs are widened first in every mistake, so each carries one error only.


def _wide(x: torch.Tensor) -> torch.Tensor:
    return x.float() if x.dtype in (torch.float16, torch.bfloat16) else x


def _softmax_no_max(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    e = torch.exp(_wide(x))
    return (e / e.sum(dim, keepdim=True)).to(x.dtype)


def _log_softmax_no_max(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    xf = _wide(x)
    return (xf - torch.log(torch.exp(xf).sum(dim, keepdim=True))).to(x.dtype)


def _softmax_max_no_keepdim(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    xf = _wide(x)
    e = torch.exp(xf - xf.max(dim).values)  # broadcasts against the last axes, not along dim
    return (e / e.sum(dim, keepdim=True)).to(x.dtype)


def _log_softmax_max_no_keepdim(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    xf = _wide(x)
    z = xf - xf.max(dim).values
    return (z - torch.log(torch.exp(z).sum(dim, keepdim=True))).to(x.dtype)


def _softmax_last_dim(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    return _softmax_ref(x, -1)


def _log_softmax_last_dim(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    return _log_softmax_ref(x, -1)


def _softmax_global_max(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    xf = _wide(x)
    e = torch.exp(xf - xf.max())
    return (e / e.sum(dim, keepdim=True)).to(x.dtype)


def _log_softmax_global_max(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    xf = _wide(x)
    z = xf - xf.max()
    return (z - torch.log(torch.exp(z).sum(dim, keepdim=True))).to(x.dtype)


def _softmax_whole_tensor(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    xf = _wide(x)
    e = torch.exp(xf - xf.amax(dim, keepdim=True))
    return (e / e.sum()).to(x.dtype)


def _log_softmax_whole_tensor(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    xf = _wide(x)
    z = xf - xf.max()
    return (z - torch.log(torch.exp(z).sum())).to(x.dtype)


def _log_of_softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    return torch.log(_softmax_ref(_wide(x), dim)).to(x.dtype)


def _log_softmax_lse_missing_max(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    xf = _wide(x)
    m = xf.amax(dim, keepdim=True)
    return (xf - torch.log(torch.exp(xf - m).sum(dim, keepdim=True))).to(x.dtype)


MISTAKES = (
    KnownMistake(
        name="no_max_subtraction",
        title="exp(x) without subtracting the max: overflow",
        explanation=(
            "You exponentiated the raw logits. exp overflows to inf above 88.7 in float32 (709 "
            "in float64), so logits of 1e4 give inf / inf = NaN (and log(inf) in log_softmax). "
            "softmax(x) = softmax(x - c) for any c constant along dim: subtract "
            "m = x.amax(dim, keepdim=True) first, so every exponent is <= 0."
        ),
        title_zh="没有先减去最大值就取 exp：上溢",
        explanation_zh=(
            "你直接对原始 logits 取了 exp。float32 中 exp 的输入超过 88.7（float64 中超过 709）"
            "就会溢出成 inf，所以 1e4 的 logits 得到 inf / inf = NaN（log_softmax 中则是 "
            "log(inf)）。对沿 dim 不变的任意常数 c 都有 softmax(x) = softmax(x - c)：先减去 "
            "m = x.amax(dim, keepdim=True)，让所有指数都 <= 0。"
        ),
        build={"softmax": _softmax_no_max, "log_softmax": _log_softmax_no_max},
    ),
    KnownMistake(
        name="max_without_keepdim",
        title="max taken without keepdim=True",
        explanation=(
            "You subtracted x.max(dim).values, whose reduced axis is gone. Broadcasting then "
            "lines it up with the last axes of x instead of along dim: on most shapes it "
            "raises a size mismatch, but on a square (T, T) attention-score matrix it silently "
            "subtracts row j's max from column j, a different constant for each entry of a "
            "row, and the result is no longer softmax. Fix: x.amax(dim, keepdim=True) "
            "(or x.max(dim, keepdim=True).values)."
        ),
        title_zh="取最大值时没有 keepdim=True",
        explanation_zh=(
            "你减去的是 x.max(dim).values，被归约的那个维度已经消失了。广播会把它对齐到 x 的最后"
            "几个维度，而不是沿着 dim：大多数形状下会报尺寸不匹配，但在方阵形状的 (T, T) 注意力"
            "分数上不会报错，而是给同一行的每个元素减去了不同的常数，结果就不再是 softmax。"
            "改法：x.amax(dim, keepdim=True)（或 x.max(dim, keepdim=True).values）。"
        ),
        build={"softmax": _softmax_max_no_keepdim, "log_softmax": _log_softmax_max_no_keepdim},
    ),
    KnownMistake(
        name="dim_ignored",
        title="dim ignored: always normalised over the last axis",
        explanation=(
            "Your function normalises over the last axis whatever dim says (a hard-coded -1 "
            "somewhere, in the max, the sum or both). With dim=0 or dim=1 the probabilities "
            "must sum to 1 along that axis instead. Fix: pass dim to every reduction."
        ),
        title_zh="忽略了 dim：总是沿最后一维归一化",
        explanation_zh=(
            "无论 dim 取什么值，你的函数都沿最后一维做归一化（在 max、sum 或两处都写死了 -1）。"
            "dim=0 或 dim=1 时，概率应当沿那个维度求和为 1。改法：每一次归约都传入 dim。"
        ),
        build={"softmax": _softmax_last_dim, "log_softmax": _log_softmax_last_dim},
    ),
    KnownMistake(
        name="global_max",
        title="One max over the whole tensor instead of one per slice",
        explanation=(
            "You subtracted x.max(), a single number for the whole tensor. The shift is still "
            "constant along dim, so it is right in exact arithmetic, but a row whose logits "
            "sit far below the global max (a row near -1e4 next to one near +1e4) has every "
            "exp underflow to 0: 0 / 0 = NaN, log 0 = -inf. Fix: one max per slice, "
            "x.amax(dim, keepdim=True)."
        ),
        title_zh="对整个张量只取了一个最大值，而不是每个切片各取一个",
        explanation_zh=(
            "你减去的是 x.max()，整个张量只有一个数。它沿 dim 仍是常数，所以在精确算术下没有错；"
            "但如果某一行的 logits 远低于全局最大值（一行约为 -1e4，另一行约为 +1e4），这一行的 "
            "exp 全部下溢为 0：0 / 0 = NaN，log 0 = -inf。改法：每个切片各取一个最大值，"
            "x.amax(dim, keepdim=True)。"
        ),
        build={"softmax": _softmax_global_max, "log_softmax": _log_softmax_global_max},
    ),
    KnownMistake(
        name="normalised_over_whole_tensor",
        title="Sum over the whole tensor instead of along dim",
        explanation=(
            "You divided by e.sum() with no dim, so the probabilities of the whole tensor sum "
            "to 1 instead of each slice along dim. With one row it looks right; with a batch "
            "every probability is too small. Fix: e.sum(dim, keepdim=True)."
        ),
        title_zh="对整个张量求和，而不是沿 dim 求和",
        explanation_zh=(
            "你除以的是不带 dim 的 e.sum()，于是整个张量的概率加起来为 1，而不是沿 dim 的每个切片"
            "各自为 1。只有一行时看起来是对的；有 batch 时每个概率都偏小。改法："
            "e.sum(dim, keepdim=True)。"
        ),
        build={"softmax": _softmax_whole_tensor, "log_softmax": _log_softmax_whole_tensor},
    ),
    KnownMistake(
        name="log_of_softmax",
        title="log_softmax as log(softmax(x)): underflow",
        explanation=(
            "You computed torch.log(softmax(x)). A probability below about 1e-45 (a logit 104 "
            "below the max in float32) underflows to 0, and log 0 = -inf where the true value "
            "is a finite -2000; its gradient becomes NaN. Fix: stay in log space, "
            "z - log(sum(exp(z))) with z = x - x.amax(dim, keepdim=True)."
        ),
        title_zh="把 log_softmax 写成 log(softmax(x))：下溢",
        explanation_zh=(
            "你算的是 torch.log(softmax(x))。小于约 1e-45 的概率（float32 中比最大值低 104 的 "
            "logit）会下溢为 0，而 log 0 = -inf，真实值却是有限的 -2000，梯度也会变成 NaN。"
            "改法：始终在对数域里计算，z - log(sum(exp(z)))，其中 z = x - x.amax(dim, "
            "keepdim=True)。"
        ),
        build={"log_softmax": _log_of_softmax},
    ),
    KnownMistake(
        name="logsumexp_missing_max",
        title="log_softmax: the max subtracted inside the log but not outside",
        explanation=(
            "You returned x - log(sum(exp(x - m))). log-sum-exp is m + log(sum(exp(x - m))): "
            "the max you took out inside the exp must come back, so every output is m too "
            "large (and not <= 0, which a log-probability must be). Fix: (x - m) - "
            "log(sum(exp(x - m)))."
        ),
        title_zh="log_softmax：在 log 里减去了最大值，外面却没有补回",
        explanation_zh=(
            "你返回的是 x - log(sum(exp(x - m)))。log-sum-exp 等于 m + log(sum(exp(x - m)))："
            "在 exp 里减掉的最大值必须加回来，否则每个输出都大了 m（对数概率本该 <= 0）。"
            "改法：(x - m) - log(sum(exp(x - m)))。"
        ),
        build={"log_softmax": _log_softmax_lse_missing_max},
    ),
)


def along_axis(
    function: str, x: torch.Tensor, axis: int, state: Mapping[str, torch.Tensor] | None
) -> torch.Tensor:
    """The called function along ``axis`` (the axis finding)."""
    return torch.log_softmax(x, axis) if function == "log_softmax" else torch.softmax(x, axis)


SPEC = ExerciseSpec(
    slug="softmax",
    reduces_rows=True,
    reduction=along_axis,
    class_name="softmax",
    functions=FUNCTIONS,
    kind="function",
    reference=REFERENCE,
    make_cases=make_cases,
    mistakes=MISTAKES,
    # Whatever normalises in one call, however it is reached. logsumexp is banned too: it is the
    # stability trick this exercise asks for (torch.distributions' Categorical reaches it).
    # exp, log, amax/max and sum stay allowed.
    # What a solution is made of: anything else it runs is refused (api/grading/allowlist.py).
    allowed=ELEMENTARY,
    banned=(
        "torch.softmax",
        "torch.log_softmax",
        "torch.Tensor.softmax",
        "torch.Tensor.log_softmax",
        "torch.nn.functional.softmax",
        "torch.nn.functional.log_softmax",
        "torch.nn.functional.softmin",
        "torch.nn.functional.gumbel_softmax",
        "torch.nn.Softmax",
        "torch.nn.LogSoftmax",
        "torch.nn.Softmin",
        "torch.nn.Softmax2d",
        "torch.special.softmax",
        "torch.special.log_softmax",
        "torch.logsumexp",
        "torch.Tensor.logsumexp",
        "torch.special.logsumexp",
        "aten._softmax",
        "aten._log_softmax",
        "aten.softmax",
        "aten.log_softmax",
        "aten.logsumexp",
        "aten._softmax_backward_data",
        "aten._log_softmax_backward_data",
    ),
)

"""Grading spec for ``cross_entropy``: ``cross_entropy(logits, target, ignore_index=-100,
label_smoothing=0.0)`` graded against ``F.cross_entropy`` with its mean reduction.

Contract: ``logits`` is ``(N, C)`` or ``(N, C, d1, ...)`` (the classes on dim 1), float32,
float64 or bfloat16; ``target`` is int64 class indices shaped like ``logits`` without dim 1,
each in ``[0, C)`` or equal to ``ignore_index``. The result is a 0-d tensor in the logits'
dtype: the mean, over the positions whose target is not ignored, of
``(1 - eps) * (-log p_t) + eps * mean_c(-log p_c)``. Every target ignored gives NaN (what
``F.cross_entropy`` returns; graded forward only, its gradient is not). Logits of 1e4 and
``-inf`` logits (masked classes, graded with ``label_smoothing = 0`` only, where the loss is
finite) must not give NaN or inf. Graded on the loss and the gradient of the logits.

The first cases tell the mistakes apart: smoothing with ignored targets, the ``(N, C, d)``
layout, logits of 1e4, and a target far below its row's max (a probability that underflows).
"""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.nn.functional as F

from api.grading.allowlist import ELEMENTARY
from api.grading.draw import described, normal, randint
from api.grading.phrase import FORWARD_ONLY_NO_GRAD, Phrase, non_contiguous, same
from api.grading.spec import Call, Case, ExerciseSpec, InitValue, KnownMistake, Layout

F32, F64, BF16 = torch.float32, torch.float64, torch.bfloat16
IGNORE = -100


def cross_entropy_reference(
    logits: torch.Tensor,
    target: torch.Tensor,
    ignore_index: int = IGNORE,
    label_smoothing: float = 0.0,
) -> torch.Tensor:
    return F.cross_entropy(
        logits, target, ignore_index=ignore_index, label_smoothing=label_smoothing
    )


def _targets(
    gen: torch.Generator, shape: tuple[int, ...], classes: int, *, ignored: float = 0.0
) -> torch.Tensor:
    """Class indices in [0, classes), a fraction ``ignored`` of them -100 (at least one kept)."""
    t = torch.randint(0, classes, shape, generator=gen, dtype=torch.int64)
    if ignored > 0.0:
        drop = torch.rand(shape, generator=gen) < ignored
        drop.view(-1)[0] = False
        drop.view(-1)[-1] = True
        t = t.masked_fill(drop, IGNORE)
    return t


def _said(what: Phrase, target: Phrase, kwargs: dict[str, InitValue]) -> list[Phrase]:
    parts = [target]
    if "ignore_index" in kwargs:
        parts.append(same(f"ignore_index = {kwargs['ignore_index']}"))
    if "label_smoothing" in kwargs:
        parts.append(same(f"label_smoothing = {kwargs['label_smoothing']}"))
    if not kwargs:
        parts.append(Phrase("default arguments", "参数取默认值"))
    del what
    return parts


_SOME_IGNORED = Phrase("some targets -100 (ignored)", "部分 target 为 -100（被忽略）")
_NONE_IGNORED = Phrase("no target ignored", "没有被忽略的 target")


def make_cases(gen: torch.Generator) -> list[Case]:
    """Seventeen cases, each one call of ``cross_entropy`` (all but two with backward)."""
    cases: list[Case] = []

    def add(
        name: str,
        what: Phrase | str,
        x: torch.Tensor,
        target: torch.Tensor,
        target_words: Phrase,
        kwargs: dict[str, InitValue],
        *,
        backward: bool = True,
        layout: Layout = "contiguous",
    ) -> None:
        extra = _said(what if isinstance(what, Phrase) else same(what), target_words, kwargs)
        if layout != "contiguous":
            extra.append(non_contiguous(layout))
        if not backward:
            extra.append(FORWARD_ONLY_NO_GRAD)
        words = described(x, what if isinstance(what, Phrase) else same(what), *extra)
        grads = (normal(gen, (), x.dtype),) if backward else None
        cases.append(
            Case(
                name=name,
                description=words.en,
                description_zh=words.zh,
                x=x,
                init_kwargs=kwargs,
                steps=(Call((x, target), grads, layout=layout),),
            )
        )

    def eps() -> float:
        return round(0.05 * randint(gen, 2, 8), 2)  # 0.1 ... 0.4

    # Smoothing with ignored targets: the mean's count, the smoothing's C, the smoothing over
    # the ignored rows and the missing uniform term all show here at once.
    n, c = randint(gen, 10, 16), randint(gen, 5, 9)
    add(
        "smoothing_with_ignored",
        "2 * N(0,1)",
        normal(gen, (n, c), F64, std=2.0),
        _targets(gen, (n,), c, ignored=0.3),
        _SOME_IGNORED,
        {"label_smoothing": eps()},
    )
    # (N, C, d): the classes on dim 1, the positions on the last dim (d != C).
    c, d = randint(gen, 4, 6), randint(gen, 7, 11)
    n = randint(gen, 2, 4)
    add(
        "spatial_3d",
        "2 * N(0,1)",
        normal(gen, (n, c, d), F32, std=2.0),
        _targets(gen, (n, d), c, ignored=0.2),
        _SOME_IGNORED,
        {},
    )
    # Logits around 1e4: exp overflows unless the max is subtracted first.
    n, c = randint(gen, 4, 8), randint(gen, 6, 12)
    add(
        "logits_1e4",
        "N(0,1) + 1e4",
        normal(gen, (n, c), F32).add(1e4),
        _targets(gen, (n,), c),
        _NONE_IGNORED,
        {},
    )
    # Each row's target logit 110 to 150 below the row's max, the others around 250: p_t =
    # exp(-110) underflows float32 to 0 and log 0 = -inf, while exp of every logit overflows (so the
    # probabilities of a softmax without its max are NaN, not 0: the two mistakes differ).
    n, c = randint(gen, 4, 7), randint(gen, 5, 9)
    far = normal(gen, (n, c), F32, std=3.0).add(250.0)
    far_t = _targets(gen, (n,), c)
    below = 110.0 + 40.0 * torch.rand(n, generator=gen)
    far[torch.arange(n), far_t] = 250.0 - below
    add(
        "target_far_below_max",
        Phrase(
            "3 * N(0,1) + 250 (each target's logit 110 to 150 below 250)",
            "3 * N(0,1) + 250（每行 target 的 logit 比 250 低 110 到 150）",
        ),
        far,
        far_t,
        _NONE_IGNORED,
        {},
    )
    # The same gap at moderate magnitudes (the others around 30): exp overflows nowhere, so
    # only the probabilities' underflow shows.
    n, c = randint(gen, 4, 7), randint(gen, 5, 9)
    mid = normal(gen, (n, c), F32, std=3.0).add(30.0)
    mid_t = _targets(gen, (n,), c)
    mid[torch.arange(n), mid_t] = 30.0 - 110.0 - 40.0 * torch.rand(n, generator=gen)
    add(
        "target_far_below_moderate",
        Phrase(
            "3 * N(0,1) + 30 (each target's logit 110 to 150 below 30)",
            "3 * N(0,1) + 30（每行 target 的 logit 比 30 低 110 到 150）",
        ),
        mid,
        mid_t,
        _NONE_IGNORED,
        {},
    )
    # (N, C, d1, d2) with smoothing and ignored targets.
    c = randint(gen, 3, 5)
    x4 = normal(gen, (2, c, randint(gen, 3, 5), randint(gen, 6, 8)), F64, std=2.0)
    add(
        "spatial_4d_smoothing",
        "2 * N(0,1)",
        x4,
        _targets(gen, (2, *x4.shape[2:]), c, ignored=0.25),
        _SOME_IGNORED,
        {"label_smoothing": eps()},
    )
    # ignore_index a valid class: targets equal to 0 drop out of the mean.
    n, c = randint(gen, 8, 12), randint(gen, 4, 6)
    t0 = _targets(gen, (n,), c)
    t0[0], t0[1] = 0, 1
    add(
        "ignore_class_0",
        "2 * N(0,1)",
        normal(gen, (n, c), F64, std=2.0),
        t0,
        Phrase("some targets 0 (class 0 ignored here)", "部分 target 为 0（此处 0 号类别被忽略）"),
        {"ignore_index": 0, "label_smoothing": eps()},
    )
    # Full smoothing: the target does not matter, every class weighs 1 / C.
    n, c = randint(gen, 5, 9), randint(gen, 4, 7)
    add(
        "full_smoothing",
        "2 * N(0,1)",
        normal(gen, (n, c), F64, std=2.0),
        _targets(gen, (n,), c, ignored=0.3),
        _SOME_IGNORED,
        {"label_smoothing": 1.0},
    )
    # Masked classes (-inf logits, a padded vocabulary), smoothing off: the loss is finite.
    n, c = randint(gen, 5, 8), randint(gen, 8, 12)
    masked = normal(gen, (n, c), F32, std=2.0)
    mt = _targets(gen, (n,), c)
    hole = torch.rand(n, c, generator=gen) < 0.4
    hole[torch.arange(n), mt] = False
    add(
        "masked_classes",
        Phrase(
            "2 * N(0,1) (random non-target logits -inf)",
            "2 * N(0,1)（随机若干非 target 的 logit 为 -inf）",
        ),
        masked.masked_fill(hole, float("-inf")),
        mt,
        _NONE_IGNORED,
        {"label_smoothing": 0.0},
    )
    # One row over a large vocabulary (no power of two): a batch of one.
    c = int(torch.tensor([1000, 1003, 1536, 2000])[randint(gen, 0, 3)])
    add(
        "single_row_vocab",
        "3 * N(0,1)",
        normal(gen, (1, c), F32, std=3.0),
        _targets(gen, (1,), c),
        _NONE_IGNORED,
        {"label_smoothing": eps()},
    )
    # A single class: log p = 0 whatever the logit, the loss 0, smoothing or not.
    n = randint(gen, 3, 6)
    add(
        "single_class",
        Phrase("N(0,1) (C = 1: the loss is 0)", "N(0,1)（C = 1：损失为 0）"),
        normal(gen, (n, 1), F64),
        torch.zeros(n, dtype=torch.int64),
        _NONE_IGNORED,
        {"label_smoothing": 0.5},
    )
    # A non-contiguous view of the logits.
    n, c = randint(gen, 6, 10), randint(gen, 5, 8)
    add(
        "transposed",
        "N(0,1)",
        normal(gen, (n, c), F32),
        _targets(gen, (n,), c, ignored=0.2),
        _SOME_IGNORED,
        {"ignore_index": IGNORE},
        layout="transposed",
    )
    n, c = randint(gen, 6, 10), randint(gen, 10, 40)
    add(
        "bfloat16",
        "2 * N(0,1)",
        normal(gen, (n, c), BF16, std=2.0),
        _targets(gen, (n,), c, ignored=0.2),
        _SOME_IGNORED,
        {"label_smoothing": eps()},
    )
    # Every target ignored: 0 / 0 = NaN, as F.cross_entropy returns (forward only).
    n, c = randint(gen, 3, 6), randint(gen, 3, 6)
    add(
        "all_ignored",
        Phrase(
            "N(0,1) (every target -100: the loss is NaN)",
            "N(0,1)（所有 target 均为 -100：损失为 NaN）",
        ),
        normal(gen, (n, c), F32),
        torch.full((n,), IGNORE, dtype=torch.int64),
        Phrase("every target ignored", "所有 target 都被忽略"),
        {},
        backward=False,
    )
    n, c = randint(gen, 4, 8), randint(gen, 3, 6)
    add(
        "no_grad",
        "N(0,1) + 3",
        normal(gen, (n, c), F32).add(3.0),
        _targets(gen, (n,), c, ignored=0.3),
        _SOME_IGNORED,
        {},
        backward=False,
    )
    # Defaults, nothing ignored, a wide spread of logits.
    n, c = randint(gen, 20, 40), randint(gen, 10, 30)
    add(
        "defaults_spread_20",
        "20 * N(0,1)",
        normal(gen, (n, c), F64, std=20.0),
        _targets(gen, (n,), c),
        _NONE_IGNORED,
        {},
    )
    return cases


# --- Known mistakes ---------------------------------------------------------------------------
# Each is one change to the same computation (rows of C logits, a mask of kept targets), with
# half-precision logits widened first so that each carries one error only.

Loss = Callable[..., torch.Tensor]


def _rows(
    logits: torch.Tensor, target: torch.Tensor, ignore_index: int
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    x = logits.float() if logits.dtype in (torch.float16, torch.bfloat16) else logits
    rows = x.movedim(1, -1).reshape(-1, x.shape[1])
    t = target.reshape(-1)
    keep = t != ignore_index
    return rows, torch.where(keep, t, torch.zeros_like(t)), keep


def _log_probs(rows: torch.Tensor) -> torch.Tensor:
    z = rows - rows.amax(1, keepdim=True)
    return z - torch.log(torch.exp(z).sum(1, keepdim=True))


def _finish(per_row: torch.Tensor, keep: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    per_row = torch.where(keep, per_row, torch.zeros_like(per_row))
    return (per_row.sum() / keep.sum()).to(dtype)


def _mix(log_p: torch.Tensor, safe: torch.Tensor, eps: float) -> torch.Tensor:
    nll = -log_p.gather(1, safe[:, None]).squeeze(1)
    if eps == 0.0:
        return nll
    return (1.0 - eps) * nll + eps * (-log_p.mean(1))


def _from_log_probs(make: Callable[[torch.Tensor], torch.Tensor]) -> Loss:
    def loss(
        logits: torch.Tensor,
        target: torch.Tensor,
        ignore_index: int = IGNORE,
        label_smoothing: float = 0.0,
    ) -> torch.Tensor:
        rows, safe, keep = _rows(logits, target, ignore_index)
        return _finish(_mix(make(rows), safe, label_smoothing), keep, logits.dtype)

    return loss


def _no_max_log_space(rows: torch.Tensor) -> torch.Tensor:
    return rows - torch.log(torch.exp(rows).sum(1, keepdim=True))


def _no_max_probabilities(rows: torch.Tensor) -> torch.Tensor:
    e = torch.exp(rows)
    return torch.log(e / e.sum(1, keepdim=True))


def _log_of_stable_softmax(rows: torch.Tensor) -> torch.Tensor:
    e = torch.exp(rows - rows.amax(1, keepdim=True))
    return torch.log(e / e.sum(1, keepdim=True))


def _mean_over_all(
    logits: torch.Tensor,
    target: torch.Tensor,
    ignore_index: int = IGNORE,
    label_smoothing: float = 0.0,
) -> torch.Tensor:
    rows, safe, keep = _rows(logits, target, ignore_index)
    per_row = _mix(_log_probs(rows), safe, label_smoothing)
    per_row = torch.where(keep, per_row, torch.zeros_like(per_row))
    return (per_row.sum() / keep.numel()).to(logits.dtype)


def _sum_not_mean(
    logits: torch.Tensor,
    target: torch.Tensor,
    ignore_index: int = IGNORE,
    label_smoothing: float = 0.0,
) -> torch.Tensor:
    rows, safe, keep = _rows(logits, target, ignore_index)
    per_row = _mix(_log_probs(rows), safe, label_smoothing)
    return torch.where(keep, per_row, torch.zeros_like(per_row)).sum().to(logits.dtype)


def _smoothing_c_minus_1(
    logits: torch.Tensor,
    target: torch.Tensor,
    ignore_index: int = IGNORE,
    label_smoothing: float = 0.0,
) -> torch.Tensor:
    rows, safe, keep = _rows(logits, target, ignore_index)
    log_p = _log_probs(rows)
    nll = -log_p.gather(1, safe[:, None]).squeeze(1)
    if label_smoothing == 0.0:
        return _finish(nll, keep, logits.dtype)
    others = -log_p.sum(1) - nll  # the C - 1 classes that are not the target
    classes = rows.shape[1]
    per_row = (1.0 - label_smoothing) * nll + label_smoothing * others / (classes - 1)
    return _finish(per_row, keep, logits.dtype)


def _smoothing_over_ignored(
    logits: torch.Tensor,
    target: torch.Tensor,
    ignore_index: int = IGNORE,
    label_smoothing: float = 0.0,
) -> torch.Tensor:
    rows, safe, keep = _rows(logits, target, ignore_index)
    log_p = _log_probs(rows)
    nll = -log_p.gather(1, safe[:, None]).squeeze(1)
    nll = torch.where(keep, nll, torch.zeros_like(nll))
    count = keep.sum()
    loss = (1.0 - label_smoothing) * nll.sum() / count
    if label_smoothing > 0.0:
        loss = loss + label_smoothing * (-log_p.mean(1)).sum() / count  # every row, ignored too
    return loss.to(logits.dtype)


def _smoothing_without_uniform(
    logits: torch.Tensor,
    target: torch.Tensor,
    ignore_index: int = IGNORE,
    label_smoothing: float = 0.0,
) -> torch.Tensor:
    rows, safe, keep = _rows(logits, target, ignore_index)
    nll = -_log_probs(rows).gather(1, safe[:, None]).squeeze(1)
    return _finish((1.0 - label_smoothing) * nll, keep, logits.dtype)


def _classes_on_last_dim(
    logits: torch.Tensor,
    target: torch.Tensor,
    ignore_index: int = IGNORE,
    label_smoothing: float = 0.0,
) -> torch.Tensor:
    """The log-softmax taken along the last dim; the target still picked along dim 1."""
    x = logits.float() if logits.dtype in (torch.float16, torch.bfloat16) else logits
    z = x - x.amax(-1, keepdim=True)
    log_p = z - torch.log(torch.exp(z).sum(-1, keepdim=True))
    keep = target != ignore_index
    safe = torch.where(keep, target, torch.zeros_like(target))
    nll = -log_p.gather(1, safe.unsqueeze(1)).squeeze(1)
    per = (
        nll
        if label_smoothing == 0.0
        else ((1.0 - label_smoothing) * nll + label_smoothing * (-log_p.mean(1)))
    )
    return _finish(per.reshape(-1), keep.reshape(-1), logits.dtype)


def _classes_flattened_without_move(
    logits: torch.Tensor,
    target: torch.Tensor,
    ignore_index: int = IGNORE,
    label_smoothing: float = 0.0,
) -> torch.Tensor:
    """``logits.reshape(-1, C)`` on the original layout: rows that mix classes and positions."""
    x = logits.float() if logits.dtype in (torch.float16, torch.bfloat16) else logits
    rows = x.reshape(-1, x.shape[1])
    t = target.reshape(-1)
    keep = t != ignore_index
    safe = torch.where(keep, t, torch.zeros_like(t))
    return _finish(_mix(_log_probs(rows), safe, label_smoothing), keep, logits.dtype)


MISTAKES = (
    KnownMistake(
        name="no_max_subtraction",
        title="exp of the raw logits: overflow at large logits",
        explanation=(
            "You exponentiated the logits without subtracting their max first. exp overflows "
            "to inf above 88.7 in float32 (709 in float64), so logits of 1e4 give log(inf) or "
            "inf / inf = NaN. log-sum-exp is m + log(sum(exp(x - m))) with m the row's max: "
            "every exponent is then <= 0 and the sum lies between 1 and C."
        ),
        title_zh="直接对原始 logits 取 exp：大 logits 下溢出",
        explanation_zh=(
            "你没有先减去最大值就对 logits 取了 exp。float32 中 exp 的输入超过 88.7（float64 中"
            "超过 709）就会溢出成 inf，所以 1e4 的 logits 得到 log(inf) 或 inf / inf = NaN。"
            "log-sum-exp 应写成 m + log(sum(exp(x - m)))，m 为该行的最大值：这样所有指数都 <= 0，"
            "求和结果介于 1 和 C 之间。"
        ),
        build=_from_log_probs(_no_max_log_space),
        forms=(_from_log_probs(_no_max_probabilities),),
    ),
    KnownMistake(
        name="log_of_softmax",
        title="Probabilities first, then their log: underflow to log 0",
        explanation=(
            "You computed the softmax probabilities and took their log. A probability below "
            "about 1e-45 in float32 (a target logit 104 below its row's max) is already 0 when "
            "the log sees it: log 0 = -inf, the loss is inf and its gradient NaN, where the "
            "true loss is a finite 110 or so. Stay in log space: -log p_t = log(sum(exp(x - "
            "m))) - (x_t - m)."
        ),
        title_zh="先算概率再取对数：下溢成 log 0",
        explanation_zh=(
            "你先算出 softmax 概率，再对它取对数。float32 中小于约 1e-45 的概率（target 的 logit "
            "比该行最大值低 104 以上）在取 log 之前就已经是 0 了：log 0 = -inf，损失为 inf，梯度为 "
            "NaN，而真实损失只是 110 左右的有限值。应始终在对数域计算：-log p_t = "
            "log(sum(exp(x - m))) - (x_t - m)。"
        ),
        build=_from_log_probs(_log_of_stable_softmax),
    ),
    KnownMistake(
        name="mean_over_ignored_targets",
        title="The mean divided by every target, ignored ones included",
        explanation=(
            "You zeroed the ignored positions' losses but divided by the number of all "
            "positions (N, or N * d1 * ...) instead of the number of targets that count. "
            "F.cross_entropy's mean is sum over kept targets / count of kept targets, so with "
            "padding your loss is too small by the fraction ignored, and changes with the "
            "amount of padding in a batch."
        ),
        title_zh="求均值时分母包含了被忽略的 target",
        explanation_zh=(
            "你把被忽略位置的损失置零了，但分母用的是全部位置的个数（N 或 N * d1 * ...），而不是"
            "参与计算的 target 个数。F.cross_entropy 的均值是：未被忽略的损失之和除以未被忽略的 "
            "target 个数。所以有 padding 时你的损失按被忽略的比例偏小，而且会随 batch 里 padding "
            "的多少而变化。"
        ),
        build=_mean_over_all,
    ),
    KnownMistake(
        name="smoothing_over_c_minus_1",
        title="Label smoothing spread over the C - 1 other classes instead of all C",
        explanation=(
            "You gave the target 1 - eps and each other class eps / (C - 1). F.cross_entropy "
            "(following Szegedy et al.) mixes the one-hot target with the uniform distribution "
            "over all C classes: the target gets 1 - eps + eps / C and every other class "
            "eps / C, so the loss is (1 - eps) * nll + eps * mean_c(-log p_c)."
        ),
        title_zh="标签平滑分给了其余 C - 1 个类别，而不是全部 C 个类别",
        explanation_zh=(
            "你让 target 取 1 - eps，其余每个类别取 eps / (C - 1)。F.cross_entropy（沿用 "
            "Szegedy 等人的定义）是把 one-hot 目标与全部 C 个类别上的均匀分布混合：target 得到 "
            "1 - eps + eps / C，其余每个类别 eps / C，所以损失为 (1 - eps) * nll + eps * "
            "mean_c(-log p_c)。"
        ),
        build=_smoothing_c_minus_1,
    ),
    KnownMistake(
        name="smoothing_over_ignored_targets",
        title="The smoothing term summed over the ignored positions too",
        explanation=(
            "Your negative log-likelihood leaves the ignored positions out, but the smoothing "
            "term eps * mean_c(-log p_c) is summed over every position, ignored ones included. "
            "An ignored position (padding) must contribute nothing at all: mask the whole "
            "per-position loss, both terms, before summing."
        ),
        title_zh="平滑项把被忽略的位置也加了进去",
        explanation_zh=(
            "你的负对数似然排除了被忽略的位置，但平滑项 eps * mean_c(-log p_c) 却对所有位置求和，"
            "包括被忽略的位置。被忽略的位置（padding）不应有任何贡献：先把每个位置的整个损失（两项"
            "都算上）按掩码置零，再求和。"
        ),
        build=_smoothing_over_ignored,
    ),
    KnownMistake(
        name="smoothing_without_uniform_term",
        title="Label smoothing as (1 - eps) * nll, without the uniform term",
        explanation=(
            "You scaled the negative log-likelihood by 1 - eps and stopped there. Label "
            "smoothing trains against the mixture (1 - eps) * one_hot + eps / C, whose cross-"
            "entropy adds eps * mean_c(-log p_c): that term is what pulls every class's "
            "log-probability up and keeps the logits from growing without bound. Without it "
            "the loss is only a rescaled nll, and with eps = 1 it is 0."
        ),
        title_zh="把标签平滑写成 (1 - eps) * nll，漏掉了均匀分布那一项",
        explanation_zh=(
            "你只把负对数似然乘了 1 - eps。标签平滑的目标分布是 (1 - eps) * one_hot + eps / C，"
            "它的交叉熵还要加上 eps * mean_c(-log p_c)：正是这一项把每个类别的对数概率往上拉，防止 "
            "logits 无限增大。少了它，损失只是缩放过的 nll，eps = 1 时直接为 0。"
        ),
        build=_smoothing_without_uniform,
    ),
    KnownMistake(
        name="classes_on_last_dim",
        title="The classes taken on the last dim of an (N, C, d1, ...) input",
        explanation=(
            "F.cross_entropy reads the classes on dim 1 whatever the rank. Your code treats "
            "the last dim as the class axis (the log-sum-exp along dim -1, or reshape(-1, C) "
            "on the original layout, which mixes positions and classes). For an (N, C) input "
            "both are the same, so it only shows on (N, C, d1, ...). Move the classes last "
            "first: logits.movedim(1, -1).reshape(-1, C), and target.reshape(-1)."
        ),
        title_zh="对 (N, C, d1, ...) 输入把最后一维当成了类别维",
        explanation_zh=(
            "无论输入是几维，F.cross_entropy 都把 dim 1 当作类别维。你的代码却把最后一维当作类别"
            "维（沿 dim -1 做 log-sum-exp，或者在原始布局上直接 reshape(-1, C)，把位置和类别混在了"
            "一起）。对 (N, C) 输入两者相同，所以只在 (N, C, d1, ...) 上暴露出来。应先把类别维移到"
            "最后：logits.movedim(1, -1).reshape(-1, C)，target.reshape(-1)。"
        ),
        build=_classes_on_last_dim,
        forms=(_classes_flattened_without_move,),
    ),
    KnownMistake(
        name="sum_instead_of_mean",
        title="The losses summed instead of averaged",
        explanation=(
            "You returned the sum of the per-position losses. F.cross_entropy's default "
            "reduction is the mean over the targets that count, so your loss (and its "
            "gradient, and with it the effective learning rate) grows with the batch size and "
            "the sequence length. Divide by the number of targets that are not ignored."
        ),
        title_zh="对损失求和而不是求均值",
        explanation_zh=(
            "你返回的是各位置损失之和。F.cross_entropy 默认的 reduction 是对参与计算的 target 求"
            "均值，所以你的损失（以及梯度，也就是等效学习率）会随 batch 大小和序列长度一起变大。应"
            "除以未被忽略的 target 个数。"
        ),
        build=_sum_not_mean,
    ),
)


SPEC = ExerciseSpec(
    slug="cross_entropy",
    class_name="cross_entropy",
    kind="function",
    reference=cross_entropy_reference,
    make_cases=make_cases,
    mistakes=MISTAKES,
    feature_axis=1,
    ranks=(2, 3, 4),
    trains=False,
    # The log-sum-exp is the exercise: every built-in that computes a cross-entropy, a
    # negative log-likelihood, a (log-)softmax or a log-sum-exp is refused, however reached.
    # exp, log, amax/max, sum, gather, one_hot, masked_select and where stay allowed.
    allowed=ELEMENTARY,
    banned=(
        "torch.nn.functional.cross_entropy",
        "torch.nn.functional.nll_loss",
        "torch.nn.CrossEntropyLoss",
        "torch.nn.NLLLoss",
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
        "torch.logaddexp",
        "torch.Tensor.logaddexp",
        "aten.cross_entropy_loss",
        "aten.nll_loss",
        "aten.nll_loss_nd",
        "aten.nll_loss2d",
        "aten.nll_loss_forward",
        "aten.nll_loss2d_forward",
        "aten._softmax",
        "aten._log_softmax",
        "aten.softmax",
        "aten.log_softmax",
        "aten.logsumexp",
        "aten.logaddexp",
        "aten._softmax_backward_data",
        "aten._log_softmax_backward_data",
    ),
)

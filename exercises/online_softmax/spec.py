"""Grading spec for ``online_softmax``: softmax over the last axis computed chunk by chunk with a
running max and a running sum (the normaliser of FlashAttention), as two functions:

- ``online_softmax_update(x, m, s) -> (m_new, s_new)`` folds one chunk ``x`` (``(..., c)``) into
  the running statistics of its rows (``m``, ``s``: ``(..., 1)``): ``m_new = max(m, max(x))``,
  ``s_new = s * exp(m - m_new) + sum(exp(x - m_new))``. The empty state is ``(-inf, 0)``; a
  chunk of only ``-inf`` leaves a row's state as it is (no NaN, also from the empty state).
- ``online_softmax(x, chunk_size=128)`` is ``softmax(x, dim=-1)``: the statistics in one pass
  over the chunks of ``chunk_size`` entries (the last chunk may be shorter), then the
  normalising pass ``exp(x - m) / s``. Graded on its output and the gradient of ``x``.

What the grader can see, and says so in the prompt: the update is graded directly on running
states it chooses (the empty state, a max that grows, a max 1e4 above the chunk, chunks of
``-inf``), which is what streaming needs; ``online_softmax`` is graded on its results (the same
as softmax, at 1e4 logits, with leading chunks of ``-inf``, a chunk size that does not divide
the row), not on how many times it reads ``x``.

What a solution legitimately needs (for the per-exercise allow-list): amax / max / maximum,
exp, sum, split / slicing / narrow, where / masked_fill / isneginf, cat, division. The softmax,
log_softmax and logsumexp families are banned: they are what the exercise builds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from api.grading.allowlist import ELEMENTARY
from api.grading.draw import described, normal, randint
from api.grading.phrase import FORWARD_ONLY_NO_GRAD, Phrase, non_contiguous, same
from api.grading.spec import Call, Case, ExerciseSpec, InitValue, KnownMistake, Layout

FUNCTIONS = ("online_softmax", "online_softmax_update")
F32, F64 = torch.float32, torch.float64
NEG_INF = float("-inf")
Pair = tuple[torch.Tensor, torch.Tensor]


def _update_ref(x: torch.Tensor, m: torch.Tensor, s: torch.Tensor) -> Pair:
    m_new = torch.maximum(m, x.amax(-1, keepdim=True))
    # A row still at -inf after this chunk (nothing finite seen yet) keeps s = 0: shift by 0.
    shift = torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), m_new)
    return m_new, s * torch.exp(m - shift) + torch.exp(x - shift).sum(-1, keepdim=True)


def _empty(x: torch.Tensor) -> Pair:
    """The state of rows that have read nothing: m = -inf, s = 0."""
    m = x.new_full((*x.shape[:-1], 1), NEG_INF)
    return m, torch.zeros_like(m)


def _online_softmax_ref(x: torch.Tensor, chunk_size: int = 128) -> torch.Tensor:
    del chunk_size  # the contract: the same result as softmax, whatever the chunking
    return torch.softmax(x, dim=-1)


REFERENCE: dict[str, Callable[..., Any]] = {
    "online_softmax": _online_softmax_ref,
    "online_softmax_update": _update_ref,
}


def _calls(function: str) -> Phrase:
    return Phrase(f"calls {function}", f"调用 {function}")


def _first_entries_inf(n: int) -> Phrase:
    return Phrase(f"the first {n} entries -inf", f"前 {n} 个元素为 -inf")


_RANDOM_INF = Phrase("random -inf entries", "随机若干位置为 -inf")
_THEN_UPDATE = Phrase(
    "then online_softmax_update on chunk 2 from chunk 1's state",
    "再从第 1 块留下的状态出发，对第 2 块调用 online_softmax_update",
)


def make_cases(gen: torch.Generator) -> list[Case]:
    """Sixteen families: eleven call ``online_softmax`` (all but one with backward), two of them
    then ``online_softmax_update`` on the row's second chunk from the state its first chunk
    left; five call ``online_softmax_update`` alone, on chosen running states (forward only:
    the statistics are not what a model backpropagates through)."""
    cases: list[Case] = []

    def soft(
        name: str,
        what: Phrase | str,
        x: torch.Tensor,
        chunk: int,
        *extra: Phrase,
        backward: bool = True,
        layout: Layout = "contiguous",
        then_update: bool = False,
    ) -> None:
        words = [*extra, same(f"chunk_size = {chunk}")]
        if layout != "contiguous":
            words.append(non_contiguous(layout))
        if not backward:
            words.append(FORWARD_ONLY_NO_GRAD)
        words.append(_calls("online_softmax"))
        grads = (normal(gen, x.shape, x.dtype),) if backward else None
        steps = [Call((x,), grads, layout=layout, args=(chunk,), function="online_softmax")]
        if then_update:
            # The same row streamed by hand: chunk 2 folded into the state chunk 1 left.
            first = x[..., :chunk]
            m, s = _update_ref(first, _empty(first)[0], _empty(first)[1])
            second = x[..., chunk : 2 * chunk].contiguous()
            steps.append(Call((second, m, s), None, function="online_softmax_update"))
            words.append(_THEN_UPDATE)
        said = described(x, what if isinstance(what, Phrase) else same(what), *words)
        cases.append(
            Case(
                name=name,
                description=said.en,
                description_zh=said.zh,
                x=x,
                steps=tuple(steps),
            )
        )

    def update(
        name: str, what: str, x: torch.Tensor, m: torch.Tensor, s: torch.Tensor, *extra: Phrase
    ) -> None:
        said = described(x, same(what), *extra, _calls("online_softmax_update"))
        step = Call((x, m, s), None, function="online_softmax_update")
        kwargs: dict[str, InitValue] = {}
        cases.append(
            Case(
                name=name,
                description=said.en,
                description_zh=said.zh,
                x=x,
                init_kwargs=kwargs,
                steps=(step,),
            )
        )

    # A row whose max rises chunk after chunk: the old sum must be rescaled every time.
    n = randint(gen, 480, 560)
    rising = normal(gen, (3, n), F32) + torch.linspace(0.0, 40.0, n)
    soft(
        "rising_row",
        Phrase("N(0,1) + a ramp", "N(0,1) + 沿行递增的斜坡"),
        rising,
        100,
        Phrase("rising 0 to 40 along the row", "沿行从 0 递增到 40"),
        then_update=True,
    )
    soft("logits_1e4", "3 * N(0,1) + 1e4", normal(gen, (4, 600), F32, std=3.0) + 1e4, 128)
    # The first chunk of every row entirely -inf (a padded or causally masked block).
    head = normal(gen, (3, 400), F64, std=2.0)
    head[:, :150] = NEG_INF
    # Chunks of 64: the first two are -inf, so the update meets the empty state with -inf.
    soft("masked_head", "2 * N(0,1)", head, 64, _first_entries_inf(150), then_update=True)
    # A chunk size that does not divide the row: the last chunk is shorter.
    soft("tail_chunk", "2 * N(0,1)", normal(gen, (3, 389), F64, std=2.0), 128)
    soft("chunk_of_one", "N(0,1)", normal(gen, (2, 150), F64), 1)
    soft("single_chunk", "N(0,1)", normal(gen, (5, 40), F32), 128)
    pad = normal(gen, (4, 300), F32, std=2.0)
    pad = pad.masked_fill(torch.rand(4, 300, generator=gen) < 0.3, NEG_INF)
    pad[:, 0] = 1.0
    soft("transposed_masked", "2 * N(0,1)", pad, 64, _RANDOM_INF, layout="transposed")
    soft("vector_1d", "5 * N(0,1)", normal(gen, (1000,), F32, std=5.0), 128)
    soft("batch_of_one_3d", "N(0,1)", normal(gen, (1, 2, 260), F32), 64)
    soft("spread_1e3", "N(0,1) * 1e3", normal(gen, (3, 200), F64, std=1e3), 32)
    soft("no_grad", "N(0,1) + 3", normal(gen, (4, 130), F32) + 3.0, 50, backward=False)

    rows = randint(gen, 3, 6)
    empty_m = torch.full((rows, 1), NEG_INF, dtype=F64)
    update(
        "update_from_empty",
        "3 * N(0,1)",
        normal(gen, (rows, 64), F64, std=3.0),
        empty_m,
        torch.zeros(rows, 1, dtype=F64),
        Phrase("the empty state (m = -inf, s = 0)", "空状态（m = -inf，s = 0）"),
    )
    m = normal(gen, (4, 1), F64)
    s = 1.0 + 4.0 * torch.rand(4, 1, generator=gen, dtype=F64)
    update(
        "update_max_grows",
        "N(0,1) + 10",
        normal(gen, (4, 48), F64) + 10.0,
        m,
        s,
        Phrase(
            "running max m = N(0,1) below the chunk's", "滚动最大值 m = N(0,1)，低于该块的最大值"
        ),
    )
    m = normal(gen, (3, 1), F32) + 1e4
    s = 1.0 + 4.0 * torch.rand(3, 1, generator=gen)
    update(
        "update_max_stays",
        "N(0,1)",
        normal(gen, (3, 40), F32),
        m,
        s,
        Phrase(
            "running max m = N(0,1) + 1e4 above the chunk's",
            "滚动最大值 m = N(0,1) + 1e4，高于该块的最大值",
        ),
    )
    # Rows of only -inf: from the empty state (row 0), and into a row already running (row 1).
    x = normal(gen, (4, 32), F64)
    x[0] = NEG_INF
    x[1] = NEG_INF
    m = normal(gen, (4, 1), F64)
    m[0] = NEG_INF
    s = 1.0 + torch.rand(4, 1, generator=gen, dtype=F64)
    s[0] = 0.0
    update(
        "update_empty_chunk",
        "N(0,1)",
        x,
        m,
        s,
        Phrase("rows 0 and 1 all -inf", "第 0 行和第 1 行全为 -inf"),
        Phrase(
            "row 0 in the empty state (m = -inf, s = 0)", "第 0 行处于空状态（m = -inf，s = 0）"
        ),
    )
    x3 = normal(gen, (2, 3, 50), F32, std=2.0)
    update(
        "update_3d",
        "2 * N(0,1)",
        x3,
        normal(gen, (2, 3, 1), F32),
        1.0 + torch.rand(2, 3, 1, generator=gen),
        Phrase("running max m = N(0,1)", "滚动最大值 m = N(0,1)"),
    )
    return cases


# --- Known mistakes: the update got wrong and the softmax built on it, or the softmax alone.


def _chunks(x: torch.Tensor, chunk_size: int) -> list[torch.Tensor]:
    return list(torch.split(x, chunk_size, dim=-1))


Update = Callable[[torch.Tensor, torch.Tensor, torch.Tensor], Pair]


def _stats(x: torch.Tensor, chunk_size: int, update: Update) -> Pair:
    m = x.new_full((*x.shape[:-1], 1), NEG_INF)
    s = x.new_zeros((*x.shape[:-1], 1))
    for chunk in _chunks(x, chunk_size):
        m, s = update(chunk, m, s)
    return m, s


def _softmax_from(update: Update) -> Callable[..., torch.Tensor]:
    def online_softmax(x: torch.Tensor, chunk_size: int = 128) -> torch.Tensor:
        m, s = _stats(x, chunk_size, update)
        return torch.exp(x - m) / s

    return online_softmax


def _update_no_rescale(x: torch.Tensor, m: torch.Tensor, s: torch.Tensor) -> Pair:
    m_new = torch.maximum(m, x.amax(-1, keepdim=True))
    shift = torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), m_new)
    return m_new, s + torch.exp(x - shift).sum(-1, keepdim=True)


def _update_rescale_inverted(x: torch.Tensor, m: torch.Tensor, s: torch.Tensor) -> Pair:
    m_new = torch.maximum(m, x.amax(-1, keepdim=True))
    shift = torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), m_new)
    old = torch.where(torch.isneginf(m), torch.zeros_like(m), m)
    return m_new, s * torch.exp(shift - old) + torch.exp(x - shift).sum(-1, keepdim=True)


def _update_empty_nan(x: torch.Tensor, m: torch.Tensor, s: torch.Tensor) -> Pair:
    m_new = torch.maximum(m, x.amax(-1, keepdim=True))
    return m_new, s * torch.exp(m - m_new) + torch.exp(x - m_new).sum(-1, keepdim=True)


def _update_empty_counted(x: torch.Tensor, m: torch.Tensor, s: torch.Tensor) -> Pair:
    # exp(-inf - -inf) = exp(NaN) patched to exp(0) = 1: a chunk of only -inf folded into the
    # empty state adds its width to the running sum.
    m_new = torch.maximum(m, x.amax(-1, keepdim=True))
    scale = torch.exp(torch.nan_to_num(m - m_new, nan=0.0))
    terms = torch.exp(torch.nan_to_num(x - m_new, nan=0.0))
    return m_new, s * scale + terms.sum(-1, keepdim=True)


def _softmax_no_max(x: torch.Tensor, chunk_size: int = 128) -> torch.Tensor:
    s = sum(torch.exp(c).sum(-1, keepdim=True) for c in _chunks(x, chunk_size))
    return torch.exp(x) / s


def _softmax_tail_dropped(x: torch.Tensor, chunk_size: int = 128) -> torch.Tensor:
    n = x.shape[-1]
    full = (n // chunk_size) * chunk_size
    head = x[..., :full] if full > 0 else x
    m, s = _stats(head, chunk_size, _update_ref)
    return torch.exp(x - m) / s


def _softmax_not_renormalised(x: torch.Tensor, chunk_size: int = 128) -> torch.Tensor:
    # Each chunk normalised with the statistics seen so far, and never corrected.
    m = x.new_full((*x.shape[:-1], 1), NEG_INF)
    s = x.new_zeros((*x.shape[:-1], 1))
    out = []
    for chunk in _chunks(x, chunk_size):
        m, s = _update_ref(chunk, m, s)
        out.append(torch.exp(chunk - m) / s)
    return torch.cat(out, dim=-1)


MISTAKES = (
    KnownMistake(
        name="sum_not_rescaled",
        title="The running sum not rescaled when the max grows",
        explanation=(
            "When a chunk raises the running max from m to m_new, the sum kept so far holds "
            "exp(x - m) terms: it must be multiplied by exp(m - m_new) before the chunk's "
            "exp(x - m_new) terms are added. You added them to the old sum as it was, so the "
            "normaliser is too large as soon as the max grows after the first chunk."
        ),
        title_zh="最大值变大时没有重新缩放滚动求和",
        explanation_zh=(
            "当某个块把滚动最大值从 m 提高到 m_new 时，已有的求和里是 exp(x - m) 这样的项：必须先"
            "乘以 exp(m - m_new)，再加上这个块的 exp(x - m_new)。你直接加到了原来的求和上，所以只要"
            "最大值在第一个块之后变大，归一化因子就偏大。"
        ),
        build={
            "online_softmax_update": _update_no_rescale,
            "online_softmax": _softmax_from(_update_no_rescale),
        },
    ),
    KnownMistake(
        name="rescale_inverted",
        title="The running sum rescaled by exp(m_new - m) instead of exp(m - m_new)",
        explanation=(
            "The old sum is a sum of exp(x - m); to express it against the new max it becomes "
            "sum exp(x - m_new) = s * exp(m - m_new), a factor <= 1. You multiplied by "
            "exp(m_new - m), which grows the old sum instead (and overflows when the max "
            "jumps)."
        ),
        title_zh="滚动求和乘的是 exp(m_new - m) 而不是 exp(m - m_new)",
        explanation_zh=(
            "旧的求和是 exp(x - m) 之和；换成以新最大值为基准时，它变为 sum exp(x - m_new) = "
            "s * exp(m - m_new)，这个因子 <= 1。你乘的是 exp(m_new - m)，反而把旧的求和放大了"
            "（最大值跳变时还会溢出）。"
        ),
        build={
            "online_softmax_update": _update_rescale_inverted,
            "online_softmax": _softmax_from(_update_rescale_inverted),
        },
    ),
    KnownMistake(
        name="nan_from_empty_state",
        title="NaN when a chunk of -inf meets the empty state",
        explanation=(
            "Starting from m = -inf (nothing seen yet), a chunk of only -inf (a masked block) "
            "leaves m_new = -inf, and exp(m - m_new) = exp(-inf + inf) = NaN, which then "
            "spreads to every later chunk of that row. Shift by 0 where m_new is still -inf "
            "(torch.where(torch.isneginf(m_new), 0, m_new)): the state stays (-inf, 0)."
        ),
        title_zh="-inf 的块遇到空状态时得到 NaN",
        explanation_zh=(
            "从 m = -inf（还什么都没看到）开始，一个全是 -inf 的块（被掩码的块）会让 m_new 仍为 "
            "-inf，于是 exp(m - m_new) = exp(-inf + inf) = NaN，并传给这一行后面的每个块。在 "
            "m_new 仍为 -inf 的地方改用 0 作为平移量（torch.where(torch.isneginf(m_new), 0, "
            "m_new)）：状态保持为 (-inf, 0)。"
        ),
        build={
            "online_softmax_update": _update_empty_nan,
            "online_softmax": _softmax_from(_update_empty_nan),
        },
    ),
    KnownMistake(
        name="empty_chunk_counted",
        title="A chunk of only -inf folded into the empty state counts its width",
        explanation=(
            "From the empty state (m = -inf, s = 0), a chunk of only -inf leaves m_new = -inf, "
            "and x - m_new = -inf - (-inf) is NaN. You replaced that NaN by 0, so each masked "
            "element adds exp(0) = 1: the running sum becomes the chunk's width where it must "
            "stay 0. A later finite chunk happens to wipe it out (s * exp(-inf) = 0), which "
            "hides it in the softmax, but the state itself is wrong. Shift by 0 where m_new "
            "is still -inf, so that exp(x - 0) = exp(-inf) = 0."
        ),
        title_zh="全为 -inf 的块并入空状态时，把块的宽度计入了求和",
        explanation_zh=(
            "从空状态（m = -inf，s = 0）出发，一个全为 -inf 的块会让 m_new 仍为 -inf，"
            "而 x - m_new = -inf - (-inf) 是 NaN。你把这个 NaN 换成了 0，于是每个被掩码的元素"
            "都加上 exp(0) = 1：滚动求和变成了块的宽度，而它本应保持为 0。之后的有限块恰好会把它"
            "乘以 exp(-inf) = 0 抹掉，所以在 softmax 里看不出来，但状态本身是错的。应当在 m_new "
            "仍为 -inf 的地方用 0 作为平移量，这样 exp(x - 0) = exp(-inf) = 0。"
        ),
        build={"online_softmax_update": _update_empty_counted},
    ),
    KnownMistake(
        name="no_running_max",
        title="Chunks summed as exp(x) without a running max",
        explanation=(
            "You accumulated exp(x) chunk by chunk with no max subtracted. exp overflows above "
            "88.7 in float32 (709 in float64), so logits of 1e4 give inf / inf = NaN. Keep a "
            "running max and a sum of exp(x - m), rescaled whenever the max grows."
        ),
        title_zh="逐块累加 exp(x)，没有滚动最大值",
        explanation_zh=(
            "你逐块累加 exp(x)，没有减去任何最大值。float32 中 exp 的输入超过 88.7（float64 中"
            "超过 709）就会溢出，所以 1e4 的 logits 得到 inf / inf = NaN。要维护一个滚动最大值和 "
            "exp(x - m) 的求和，最大值变大时重新缩放。"
        ),
        build={"online_softmax": _softmax_no_max},
    ),
    KnownMistake(
        name="tail_chunk_dropped",
        title="The last, shorter chunk left out of the statistics",
        explanation=(
            "Your loop runs over n // chunk_size full chunks, so when chunk_size does not "
            "divide the row its last entries never reach the running max and sum: the "
            "probabilities no longer sum to 1 (and a max in the tail overflows). Iterate over "
            "range(0, n, chunk_size), or torch.split(x, chunk_size, dim=-1)."
        ),
        title_zh="最后那个较短的块没有计入统计量",
        explanation_zh=(
            "你的循环只遍历了 n // chunk_size 个完整的块，所以 chunk_size 不能整除行长时，最后几个"
            "元素从未进入滚动最大值和求和：概率之和不再是 1（如果最大值在尾部还会溢出）。应遍历 "
            "range(0, n, chunk_size)，或使用 torch.split(x, chunk_size, dim=-1)。"
        ),
        build={"online_softmax": _softmax_tail_dropped},
    ),
    KnownMistake(
        name="chunks_not_renormalised",
        title="Each chunk normalised with the statistics seen so far",
        explanation=(
            "You wrote each chunk's probabilities as soon as its statistics were updated: "
            "exp(x - m_k) / s_k, with the max and sum of the chunks read so far. Those are "
            "final only after the last chunk; earlier chunks need the final m and s (rescale "
            "them by exp(m_k - m) * s_k / s, or normalise in a second pass). This is the step "
            "FlashAttention does on its accumulated output, not on stored probabilities."
        ),
        title_zh="每个块都用当时已看到的统计量做归一化",
        explanation_zh=(
            "你在更新完某个块的统计量后立刻写出了它的概率：exp(x - m_k) / s_k，用的是到目前为止"
            "所读块的最大值和求和。这些量要到最后一个块之后才是最终值；前面的块需要最终的 m 和 s"
            "（乘以 exp(m_k - m) * s_k / s 来修正，或者在第二遍里归一化）。FlashAttention 是在"
            "累积的输出上做这一步，而不是在保存下来的概率上。"
        ),
        build={"online_softmax": _softmax_not_renormalised},
    ),
)


SPEC = ExerciseSpec(
    slug="online_softmax",
    class_name="online_softmax",
    functions=FUNCTIONS,
    kind="function",
    reference=REFERENCE,
    make_cases=make_cases,
    mistakes=MISTAKES,
    ranks=(1, 2, 3),
    trains=False,
    # Whatever normalises, or takes log-sum-exp, in one call: the running max and sum are the
    # exercise. exp, amax/max/maximum, sum and split stay allowed.
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
        "torch.logaddexp",
        "torch.Tensor.logaddexp",
        "torch.nn.functional.scaled_dot_product_attention",
        "aten._softmax",
        "aten._log_softmax",
        "aten.softmax",
        "aten.log_softmax",
        "aten.logsumexp",
        "aten.logaddexp",
        "aten._softmax_backward_data",
        "aten._log_softmax_backward_data",
        "aten._safe_softmax",
    ),
)

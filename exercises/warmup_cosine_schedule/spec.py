"""Grading spec for ``warmup_cosine_schedule``: the learning-rate multiplier of a linear warm-up
followed by a cosine decay to a floor, at every step, as a function ``LambdaLR`` can call.

Contract: ``warmup_cosine_schedule(step, warmup_steps, total_steps, min_ratio=0.0)`` with
``step`` a float32 or float64 tensor of any shape (0-d included) holding steps ``>= 0``,
integer or fractional; ``0 <= warmup_steps < total_steps`` ints; ``0 <= min_ratio <= 1``.
It returns the multiplier of the base learning rate, elementwise, in ``step``'s shape and dtype:

- ``step < warmup_steps``: ``step / warmup_steps`` (0 at step 0, Hugging Face's convention);
- otherwise, with ``progress = min((step - warmup_steps) / (total_steps - warmup_steps), 1)``:
  ``min_ratio + (1 - min_ratio) * 0.5 * (1 + cos(pi * progress))``, so 1 at the end of the
  warm-up, ``min_ratio`` at ``total_steps`` and after it (the decay does not rise again).

``warmup_steps = 0`` means no warm-up: the multiplier at step 0 is 1. Graded on the value and
on its gradient with respect to ``step`` (the slope: ``1 / warmup_steps`` in the warm-up, the
cosine's derivative in the decay, 0 past the end); at ``step == warmup_steps`` exactly the
slope has a corner and the upstream gradient there is 0, and the cases without warm-up are
graded forward only (a ``torch.where`` over ``step / 0`` has a NaN gradient in the branch it
does not take). A Python number need not be accepted: ``LambdaLR`` is given
``lambda s: float(warmup_cosine_schedule(torch.tensor(float(s)), W, T, m))``.

The first cases tell the mistakes apart: single steps as ``LambdaLR`` asks for them (0, the last
warm-up step, the end, past it), every integer step, fractional steps, no warm-up, far past the
end.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch

from api.grading.allowlist import ELEMENTARY
from api.grading.draw import choice, described, normal, randint
from api.grading.phrase import FORWARD_ONLY_NO_GRAD, Phrase, non_contiguous
from api.grading.spec import Call, Case, ExerciseSpec, InitValue, KnownMistake, Layout
from api.grading.verdict_zh import SCHEDULE_MARKS

F32, F64 = torch.float32, torch.float64


def warmup_cosine_schedule(
    step: torch.Tensor, warmup_steps: int, total_steps: int, min_ratio: float = 0.0
) -> torch.Tensor:
    progress = ((step - warmup_steps) / (total_steps - warmup_steps)).clamp(0.0, 1.0)
    decay = min_ratio + (1.0 - min_ratio) * 0.5 * (1.0 + torch.cos(math.pi * progress))
    if warmup_steps == 0:
        return decay
    return torch.where(step < warmup_steps, step / warmup_steps, decay)


# --- cases ------------------------------------------------------------------------------------


def _floor(gen: torch.Generator) -> float:
    return float(choice(gen, (0.05, 0.1, 0.15, 0.2, 0.25)))


def _settings(w: int, t: int, m: float | None) -> Phrase:
    floor = "min_ratio omitted (default 0.0)" if m is None else f"min_ratio = {m:g}"
    floor_zh = "不传 min_ratio（默认 0.0）" if m is None else f"min_ratio = {m:g}"
    return Phrase(
        f"warmup_steps = {w}, total_steps = {t}, {floor}",
        f"warmup_steps = {w}，total_steps = {t}，{floor_zh}",
    )


def _every(end: int, *, start: int = 0, plus: int = 0) -> Phrase:
    if plus:
        return Phrase(
            f"every step {start} to {end} plus {plus} fractional ones",
            f"{start} 到 {end} 的每一步，外加 {plus} 个非整数步",
        )
    return Phrase(f"every step {start} to {end}", f"{start} 到 {end} 的每一步")


def _quarters(start: int, end: int) -> Phrase:
    return Phrase(f"quarter steps {start} to {end}", f"{start} 到 {end} 的每个四分之一步")


def _fractional(n: int, end: int) -> Phrase:
    return Phrase(f"{n} fractional steps in [0, {end}]", f"[0, {end}] 内的 {n} 个非整数步")


def _upstream(gen: torch.Generator, step: torch.Tensor, w: int) -> torch.Tensor:
    """A random upstream gradient, 0 where ``step == warmup_steps`` (the slope's corner, where
    the left and right derivatives differ and either is a correct answer)."""
    g = normal(gen, step.shape, step.dtype)
    return torch.where(step == w, torch.zeros_like(g), g)


def make_cases(gen: torch.Generator) -> list[Case]:
    """Fourteen cases: one of single 0-d calls, the rest one call each."""
    cases: list[Case] = []

    def add(
        name: str,
        what: Phrase,
        step: torch.Tensor,
        w: int,
        t: int,
        m: float | None,
        *,
        keywords: bool = False,
        backward: bool = True,
        layout: Layout = "contiguous",
    ) -> None:
        extra = [_settings(w, t, m)]
        if keywords:
            extra.append(Phrase("passed by keyword", "以关键字参数传入"))
        if layout != "contiguous":
            extra.append(non_contiguous(layout))
        if not backward:
            extra.append(FORWARD_ONLY_NO_GRAD)
        words = described(step, what, *extra)
        kwargs: dict[str, InitValue] = {}
        args: tuple[InitValue, ...] = ()
        if keywords:
            kwargs = {"warmup_steps": w, "total_steps": t}
            if m is not None:
                kwargs["min_ratio"] = m
        else:
            args = (w, t) if m is None else (w, t, m)
        grads = (_upstream(gen, step, w),) if backward else None
        cases.append(
            Case(
                name=name,
                description=words.en,
                description_zh=words.zh,
                x=step,
                init_kwargs=kwargs,
                steps=(Call((step,), grads, layout=layout, args=args),),
            )
        )

    # Quarter steps around the end of the warm-up, where the ramp hands over to the cosine. First:
    # the platform's repeated calls redraw its steps around warmup_steps (all of them > 0).
    w = randint(gen, 20, 40)
    t = w + randint(gen, 30, 60)
    add(
        "around_warmup_end",
        _quarters(w - 4, w + 4),
        torch.arange(4 * (w - 4), 4 * (w + 4) + 1, dtype=F32) / 4,
        w,
        t,
        _floor(gen),
    )
    # LambdaLR's way: one 0-d step per call, at the steps that matter. The corner step ==
    # warmup_steps is a forward alone.
    w, m = randint(gen, 6, 16), _floor(gen)
    t = w + randint(gen, 30, 60)
    marks = [
        (0, "step 0"),
        (1, "step 1"),
        (w - 1, "the last warm-up step"),
        (w, "step == warmup_steps"),
        (w + 1, "the first step after it"),
        ((w + t) // 2 + 0.5, "halfway through the decay"),
        (t - 1, "the step before total_steps"),
        (t, "step == total_steps"),
        (t + 1, "one step past the end"),
        (2 * t, "twice total_steps"),
    ]
    calls = []
    for s, note in marks:
        x = torch.tensor(float(s), dtype=F32)
        grads = None if s == w else (normal(gen, (), F32),)
        calls.append(
            Call(
                (x,),
                grads,
                args=(w, t, m),
                note=f"step = {s:g}, {note}",
                note_zh=f"step = {s:g}，{SCHEDULE_MARKS[note]}",
            )
        )
    said = described(
        calls[0].inputs[0],
        Phrase("one step per call as LambdaLR asks", "每次调用一步，与 LambdaLR 的调用方式相同"),
        _settings(w, t, m),
        Phrase(f"{len(calls)} calls", f"共 {len(calls)} 次调用"),
    )
    cases.append(
        Case(
            name="lambda_lr_steps",
            description=said.en,
            description_zh=said.zh,
            x=calls[0].inputs[0],
            steps=tuple(calls),
        )
    )

    def every_step(t: int, past: int, dtype: torch.dtype) -> torch.Tensor:
        return torch.arange(0, t + past + 1, dtype=dtype)

    # Every integer step from 0 to past the end; the length past 128 and no power of two.
    w = randint(gen, 5, 20)
    t = w + randint(gen, 120, 200)
    past = randint(gen, 10, 30)
    if ((t + past + 1) & (t + past)) == 0:
        past += 1
    add(
        "every_step",
        _every(t + past),
        every_step(t, past, F32),
        w,
        t,
        _floor(gen),
    )
    # Fractional steps: a schedule right on the integers only (a staircase) fails between.
    w = randint(gen, 8, 24)
    t = w + randint(gen, 40, 90)
    frac = torch.rand(400, generator=gen, dtype=F64).mul(t + 10).sort().values
    frac[0] = 0.0
    add(
        "fractional_steps",
        _fractional(400, t + 10),
        frac,
        w,
        t,
        _floor(gen),
    )
    # No warm-up: step 0 is already the top of the cosine (forward only, see the docstring).
    t = randint(gen, 40, 100)
    no_w = torch.cat([every_step(t, 5, F32), torch.tensor([0.25, 0.5, 1.5], dtype=F32)])
    add(
        "no_warmup",
        _every(t + 5, plus=3),
        no_w,
        0,
        t,
        _floor(gen),
        keywords=True,
        backward=False,
    )
    # Far past the end: the cosine without a clamp rises again, back to 1 at 3 * total - 2 * W.
    w = randint(gen, 4, 12)
    t = w + randint(gen, 20, 50)
    far = torch.linspace(float(t), float(4 * t), 3 * t + 1, dtype=F64)
    add(
        "far_past_the_end",
        _every(4 * t, start=t),
        far,
        w,
        t,
        _floor(gen),
    )
    # The default floor (0.0), every argument by keyword.
    w = randint(gen, 5, 15)
    t = w + randint(gen, 30, 80)
    add(
        "default_floor",
        _every(t + 8),
        every_step(t, 8, F64),
        w,
        t,
        None,
        keywords=True,
    )
    # A floor of 1: constant after the warm-up.
    w = randint(gen, 3, 10)
    t = w + randint(gen, 10, 30)
    add(
        "floor_one",
        _every(t + 5),
        every_step(t, 5, F32),
        w,
        t,
        1.0,
    )
    # One warm-up step: the multiplier is 0 at step 0 and 1 at step 1.
    t = randint(gen, 10, 30)
    one = torch.cat([every_step(t, 4, F64), torch.tensor([0.5, 0.75, 1.25], dtype=F64)])
    add(
        "warmup_of_one",
        _every(t + 4, plus=3),
        one,
        1,
        t,
        _floor(gen),
    )
    # One decay step: total_steps = warmup_steps + 1.
    w = randint(gen, 3, 9)
    quarter = torch.arange(0, 4 * (w + 4) + 1, dtype=F64) / 4
    add(
        "one_decay_step",
        _quarters(0, w + 4),
        quarter,
        w,
        w + 1,
        _floor(gen),
    )
    # A language model's run, shaped (1, n): float32 holds these integers exactly.
    w = choice(gen, (500, 1000, 2000))
    t = choice(gen, (50_000, 100_000, 120_000))
    points = torch.randint(0, t + t // 5, (300,), generator=gen).to(F32)
    marks_ = torch.tensor([0.0, w - 1.0, w, w + 1.0, t - 1.0, t, t + 1.0], dtype=F32)
    run = torch.cat([marks_, points]).sort().values.reshape(1, -1)
    add(
        "long_run",
        Phrase(
            f"{run.numel()} steps up to {t + t // 5} (the edges among them)",
            f"不超过 {t + t // 5} 的 {run.numel()} 个步（包括各个边界）",
        ),
        run,
        w,
        t,
        _floor(gen),
    )
    # Steps in a 2-D tensor, shuffled and transposed: elementwise, whatever the layout.
    w = randint(gen, 6, 14)
    t = w + randint(gen, 30, 60)
    grid = torch.randperm(6 * 9, generator=gen).to(F64).mul((t + 8) / 53.0).reshape(6, 9)
    grid[0, 0], grid[1, 1], grid[2, 2] = 0.0, float(w), float(t)
    add(
        "shuffled_grid",
        Phrase(
            f"shuffled steps in [0, {t + 8}] (the edges among them)",
            f"[0, {t + 8}] 内打乱顺序的步（包括各个边界）",
        ),
        grid,
        w,
        t,
        _floor(gen),
        layout="transposed",
    )
    # A forward under no_grad on float64: where the inputs must come back unchanged.
    w = randint(gen, 4, 12)
    t = w + randint(gen, 20, 40)
    add(
        "no_grad",
        _every(t + 3),
        every_step(t, 3, F64),
        w,
        t,
        _floor(gen),
        backward=False,
    )
    # Fractional steps inside the warm-up only, float32.
    w = randint(gen, 20, 60)
    inside = torch.rand(200, generator=gen).mul(w)
    add(
        "inside_warmup",
        _fractional(200, w),
        inside,
        w,
        w + randint(gen, 50, 100),
        _floor(gen),
    )
    return cases


# --- known mistakes ---------------------------------------------------------------------------
# Each is one change to the reference's computation.

Schedule = Callable[..., torch.Tensor]


def _schedule(
    step: torch.Tensor,
    w: int,
    t: int,
    m: float,
    *,
    warm: Callable[[torch.Tensor, int], torch.Tensor] | None = None,
    progress_of: Callable[[torch.Tensor, int, int], torch.Tensor] | None = None,
    clamp: bool = True,
    shape: Callable[[torch.Tensor], torch.Tensor] | None = None,
    floor: Callable[[torch.Tensor, float], torch.Tensor] | None = None,
    truncate: bool = False,
) -> torch.Tensor:
    if truncate:
        step = torch.floor(step)
    p = progress_of(step, w, t) if progress_of else (step - w) / (t - w)
    p = p.clamp(0.0, 1.0) if clamp else p.clamp(min=0.0)
    cosine = shape(p) if shape else 0.5 * (1.0 + torch.cos(math.pi * p))
    decay = floor(cosine, m) if floor else m + (1.0 - m) * cosine
    if w == 0:
        return decay
    ramp = warm(step, w) if warm else step / w
    return torch.where(step < w, ramp, decay)


def _mistake(**how: object) -> Schedule:
    def build(
        step: torch.Tensor, warmup_steps: int, total_steps: int, min_ratio: float = 0.0
    ) -> torch.Tensor:
        return _schedule(step, warmup_steps, total_steps, min_ratio, **how)  # type: ignore[arg-type]

    return build


def _zero_warmup_nan(
    step: torch.Tensor, warmup_steps: int, total_steps: int, min_ratio: float = 0.0
) -> torch.Tensor:
    """The warm-up as a minimum of the ramp and the decay, with no case for warmup_steps = 0:
    0 / 0 is NaN at step 0 (the ramp is inf elsewhere, and the minimum the decay)."""
    decay = _schedule(step, warmup_steps, total_steps, min_ratio)
    if warmup_steps == 0:
        return torch.minimum(step / 0.0, decay)
    return decay


def _zero_warmup_ramp_of_one(
    step: torch.Tensor, warmup_steps: int, total_steps: int, min_ratio: float = 0.0
) -> torch.Tensor:
    """The same minimum with the division guarded by max(1, warmup_steps): a one-step ramp
    where no warm-up was asked for (0 at step 0)."""
    decay = _schedule(step, warmup_steps, total_steps, min_ratio)
    return torch.minimum(step / max(1, warmup_steps), decay)


def _known(
    name: str,
    title: str,
    explanation: str,
    title_zh: str,
    explanation_zh: str,
    build: Schedule,
    *forms: Schedule,
) -> KnownMistake:
    return KnownMistake(
        name=name,
        title=title,
        explanation=explanation,
        title_zh=title_zh,
        explanation_zh=explanation_zh,
        build=build,
        forms=forms,
    )


MISTAKES = (
    _known(
        "warmup_off_by_one",
        "The warm-up ramp one step ahead: (step + 1) / warmup_steps",
        "Your warm-up gives (step + 1) / warmup_steps, so the multiplier is 1 / warmup_steps at "
        "step 0 and already 1 at the last warm-up step. The contract (Hugging Face's "
        "get_cosine_schedule_with_warmup) is step / warmup_steps: 0 at step 0, reaching 1 "
        "exactly at step == warmup_steps, where the decay takes over without a jump.",
        "预热斜坡提前了一步：(step + 1) / warmup_steps",
        "你的预热写成了 (step + 1) / warmup_steps，于是第 0 步的系数是 1 / warmup_steps，"
        "预热的最后一步就已经到了 1。本题约定（与 Hugging Face 的 "
        "get_cosine_schedule_with_warmup 相同）是 step / warmup_steps：第 0 步为 0，"
        "恰好在 step == warmup_steps 时到达 1，衰减从那里无跳变地接上。",
        _mistake(warm=lambda s, w: (s + 1) / w),
        _mistake(warm=lambda s, w: (s + 1) / (w + 1)),
    ),
    _known(
        "warmup_integer_division",
        "The warm-up ramp rounded down to whole numbers",
        "Your warm-up divides with floor division (step // warmup_steps, or int(step / "
        "warmup_steps)), which is 0 for every step below warmup_steps: the learning rate stays "
        "0 for the whole warm-up and jumps to the base rate at its end. Use true division: "
        "step / warmup_steps.",
        "预热斜坡被向下取整成了整数",
        "你的预热用了整除（step // warmup_steps，或 int(step / warmup_steps)），"
        "step 小于 warmup_steps 时结果都是 0：整个预热期学习率都是 0，"
        "到结束时才一下跳到基础学习率。请用真除法：step / warmup_steps。",
        _mistake(warm=lambda s, w: torch.floor(s / w)),
    ),
    _known(
        "steps_truncated",
        "The step rounded to a whole number first: a staircase",
        "Your schedule floors (or truncates) the step before using it, so it is right on the "
        "integers and flat between them: its slope is 0 everywhere and a fractional step (a "
        "schedule stepped per sample, or per micro-batch) gets the previous step's value. "
        "The multiplier is a continuous function of the step: use the step as given.",
        "先把步数取整再计算：成了阶梯",
        "你的调度先对步数做了向下取整（或截断），所以只在整数点上正确，整数之间是平的："
        "处处斜率为 0，非整数步（按样本或按 micro-batch 推进的调度）拿到的是前一步的值。"
        "系数是步数的连续函数：请直接使用传入的步数。",
        _mistake(truncate=True),
    ),
    _known(
        "decays_to_zero",
        "The cosine decays to 0: min_ratio ignored",
        "Your decay is 0.5 * (1 + cos(pi * progress)), which ends at 0 whatever min_ratio says. "
        "The floor is the point of min_ratio: the multiplier goes from 1 down to min_ratio, "
        "min_ratio + (1 - min_ratio) * 0.5 * (1 + cos(pi * progress)).",
        "余弦衰减到了 0：忽略了 min_ratio",
        "你的衰减写成了 0.5 * (1 + cos(pi * progress))，无论 min_ratio 是多少都衰减到 0。"
        "min_ratio 就是下限：系数应从 1 降到 min_ratio，即 "
        "min_ratio + (1 - min_ratio) * 0.5 * (1 + cos(pi * progress))。",
        _mistake(floor=lambda c, m: c),
    ),
    _known(
        "floor_clipped",
        "The floor applied by clipping: max(min_ratio, cosine)",
        "You cut the unscaled cosine at the floor: max(min_ratio, 0.5 * (1 + cos(pi * "
        "progress))). It follows the cosine to 0 and meets the floor with a kink before the "
        "end, then stays flat, so the decay is steeper than asked and ends early. Scale the "
        "cosine into [min_ratio, 1] instead: min_ratio + (1 - min_ratio) * cosine.",
        "用截断来施加下限：max(min_ratio, cosine)",
        "你把未缩放的余弦在下限处截断了：max(min_ratio, 0.5 * (1 + cos(pi * progress)))。"
        "它沿着衰减到 0 的余弦走，在终点之前折一下碰到下限，之后一直持平，"
        "衰减比要求的更陡、结束得更早。应把余弦缩放到 [min_ratio, 1] 区间："
        "min_ratio + (1 - min_ratio) * cosine。",
        _mistake(floor=lambda c, m: c.clamp(min=m)),
    ),
    _known(
        "floor_not_rescaled",
        "The floor added to the cosine without rescaling it",
        "You added min_ratio to 0.5 * (1 + cos(pi * progress)) without multiplying the cosine "
        "by 1 - min_ratio: the decay starts at 1 + min_ratio (a jump above the base rate right "
        "after the warm-up) and only its end is right. The multiplier is min_ratio + "
        "(1 - min_ratio) * 0.5 * (1 + cos(pi * progress)).",
        "加上了下限，却没有把余弦缩放",
        "你把 min_ratio 加到 0.5 * (1 + cos(pi * progress)) 上，却没有把余弦乘以 "
        "1 - min_ratio：衰减从 1 + min_ratio 开始（预热一结束就跳到基础学习率之上），"
        "只有终点是对的。系数应为 min_ratio + (1 - min_ratio) * 0.5 * (1 + cos(pi * progress))。",
        _mistake(floor=lambda c, m: m + c),
    ),
    _known(
        "progress_not_shifted",
        "The cosine's clock started at step 0, not at the end of the warm-up",
        "Your progress is step / total_steps: the cosine has already run warmup_steps / "
        "total_steps of its course when the warm-up ends, so the multiplier drops below 1 "
        "with a jump at step == warmup_steps. The decay starts where the warm-up ends: "
        "progress = (step - warmup_steps) / (total_steps - warmup_steps).",
        "余弦的进度从第 0 步开始计，而不是从预热结束开始",
        "你的进度写成了 step / total_steps：预热结束时余弦已经走完了 "
        "warmup_steps / total_steps，系数在 step == warmup_steps 处跳到 1 以下。"
        "衰减应从预热结束的地方开始："
        "progress = (step - warmup_steps) / (total_steps - warmup_steps)。",
        _mistake(progress_of=lambda s, w, t: s / t),
    ),
    _known(
        "progress_over_total",
        "The decay stretched over total_steps instead of total_steps - warmup_steps",
        "Your progress is (step - warmup_steps) / total_steps: it starts at the right step but "
        "runs too slowly, and at total_steps it has only reached 1 - warmup_steps / "
        "total_steps, so the floor is never reached on time. Divide by the decay's length, "
        "total_steps - warmup_steps.",
        "衰减被拉长到 total_steps，而不是 total_steps - warmup_steps",
        "你的进度写成了 (step - warmup_steps) / total_steps：起点对了，但走得太慢，"
        "到 total_steps 时只走到 1 - warmup_steps / total_steps，按时到不了下限。"
        "请除以衰减段的长度 total_steps - warmup_steps。",
        _mistake(progress_of=lambda s, w, t: (s - w) / t),
    ),
    _known(
        "no_clamp_past_end",
        "No clamp past total_steps: the cosine rises again",
        "Your progress is not capped at 1, so past total_steps cos(pi * progress) climbs back "
        "from -1: the learning rate rises again, and is back at the base rate by progress 2. "
        "A run resumed or extended past its planned length warms up a second time. Clamp the "
        "progress to [0, 1] (or return min_ratio once step >= total_steps).",
        "超过 total_steps 后没有截断：余弦又升了回去",
        "你的进度没有截断到 1，所以超过 total_steps 之后 cos(pi * progress) 又从 -1 往上走："
        "学习率重新升高，到进度为 2 时回到基础学习率。训练一旦续跑或超出计划长度，"
        "就会再“预热”一次。请把进度截断到 [0, 1]"
        "（或者 step >= total_steps 时直接返回 min_ratio）。",
        _mistake(clamp=False),
    ),
    _known(
        "full_cosine_period",
        "A whole cosine period: cos(2 * pi * progress)",
        "Your decay uses cos(2 * pi * progress): over the decay it goes down to the floor at "
        "the halfway point and back up to 1 at total_steps. Half a period is the schedule: "
        "cos(pi * progress) goes from 1 to -1 exactly once, so 0.5 * (1 + cos) goes from 1 to 0.",
        "用了一个完整的余弦周期：cos(2 * pi * progress)",
        "你的衰减用了 cos(2 * pi * progress)：它在衰减过半时就降到下限，"
        "到 total_steps 又回到 1。调度只需要半个周期：cos(pi * progress) 从 1 到 -1 只走一遍，"
        "所以 0.5 * (1 + cos) 从 1 降到 0。",
        _mistake(shape=lambda p: 0.5 * (1.0 + torch.cos(2.0 * math.pi * p))),
    ),
    _known(
        "cosine_not_halved",
        "The cosine term without its 0.5: (1 + cos) goes from 2 to 0",
        "Your decay uses 1 + cos(pi * progress) without the factor 0.5: it starts at 2, twice "
        "the base learning rate right after the warm-up, a jump the warm-up was meant to "
        "avoid. 0.5 * (1 + cos(pi * progress)) maps the cosine's [-1, 1] onto [0, 1].",
        "余弦项漏了 0.5：(1 + cos) 从 2 降到 0",
        "你的衰减用了 1 + cos(pi * progress)，漏掉了系数 0.5：它从 2 开始，"
        "预热一结束学习率就变成基础值的两倍，而预热正是为了避免这种跳变。"
        "0.5 * (1 + cos(pi * progress)) 才把余弦的 [-1, 1] 映射到 [0, 1]。",
        _mistake(shape=lambda p: 1.0 + torch.cos(math.pi * p)),
    ),
    _known(
        "zero_warmup_mishandled",
        "warmup_steps = 0 not handled: NaN or 0 at step 0",
        "With warmup_steps = 0 there is no warm-up and the multiplier at step 0 is 1, the top "
        "of the cosine. Your code divides step by warmup_steps there anyway: 0 / 0 is NaN (a "
        "minimum of the ramp and the decay then returns NaN), and a division guarded with "
        "max(1, warmup_steps) makes a one-step ramp that starts at 0. Take the warm-up branch "
        "only where step < warmup_steps, which no step is when warmup_steps = 0.",
        "没有处理 warmup_steps = 0：第 0 步得到 NaN 或 0",
        "warmup_steps = 0 表示没有预热，第 0 步的系数应为 1，即余弦的顶点。"
        "你的代码在这里仍然用 step 除以 warmup_steps：0 / 0 是 NaN（再对斜坡和衰减取最小值就返回 "
        "NaN）；而用 max(1, warmup_steps) 保护除法，又会凭空多出一个从 0 开始的一步斜坡。"
        "只在 step < warmup_steps 的地方走预热分支；warmup_steps = 0 时没有任何一步满足。",
        _zero_warmup_nan,
        _zero_warmup_ramp_of_one,
    ),
)


SPEC = ExerciseSpec(
    slug="warmup_cosine_schedule",
    class_name="warmup_cosine_schedule",
    kind="function",
    reference=warmup_cosine_schedule,
    make_cases=make_cases,
    mistakes=MISTAKES,
    ranks=(0, 1, 2),
    trains=False,
    # The schedule is the exercise: PyTorch's schedulers (which need an optimiser and integer
    # epochs anyway) are refused by name; the arithmetic, cos, clamp, where and minimum that
    # build it stay allowed.
    allowed=ELEMENTARY,
    banned=(
        "torch.optim.lr_scheduler.LambdaLR",
        "torch.optim.lr_scheduler.MultiplicativeLR",
        "torch.optim.lr_scheduler.LinearLR",
        "torch.optim.lr_scheduler.CosineAnnealingLR",
        "torch.optim.lr_scheduler.CosineAnnealingWarmRestarts",
        "torch.optim.lr_scheduler.SequentialLR",
        "torch.optim.lr_scheduler.ChainedScheduler",
        "torch.optim.lr_scheduler.OneCycleLR",
        "torch.optim.lr_scheduler.PolynomialLR",
    ),
)

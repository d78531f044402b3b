"""The cases every exercise meets after its own, and the prompt paragraph that says so.

An exercise's ``make_cases`` draws the scenarios its contract needs. Some wrong code passes any
such table unless the platform adds what no single spec thinks of, so ``cases`` appends, drawn
from the same generator (a verdict stays reproducible from its seed):

- **repeated calls**: three calls with the shapes of one of the spec's cases and fresh data,
  the first two forwards before one backward of both, then, where the case loads parameters,
  an update and two more calls. A module that caches what it computed once "warmed up", or
  changes behaviour from its third call on, shows; so does one that keeps one mask or saved
  tensor and overwrites it in place on the second forward (the first call's gradient is wrong).
- **the given sublayer kept**: for every value of every constructor option (a ``placement``, a
  ``norm_first``), a case that keeps the default initialisation of the module it was given. A
  block that re-initialises the sublayer under one option only, or builds its own, shows: a
  case that loads random parameters overwrites the change.
- **bfloat16 rows that show rounding**, for an exercise that reduces along its rows
  (``ExerciseSpec.reduces_rows``) and takes bfloat16: rows whose entries are one value with a
  full bfloat16 mantissa, and rows with a spread of 1 around 8. A sum rounded to bfloat16 before
  the division is not the constant times the size, and the row no longer cancels.

Appended after the spec's own calls (its construction cases stay last): the verdict names a
known mistake from the first failing cases, which are the spec's own, ordered for that.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import replace

import torch

from api.grading import draw, harness, verdict_zh
from api.grading.phrase import Phrase
from api.grading.spec import Call, Case, ExerciseSpec, InitValue, Step

# Around 8 bfloat16 keeps four bits below the point: a mean kept in bfloat16 is off by up to
# 1/32 there, a quarter of what the tolerance allows, so statistics computed directly in
# bfloat16 by torch's reductions (which accumulate in float32) still pass (around 16 they miss
# by up to 10% on some draws), while E[x^2] - E[x]^2 does not. (``mixed_precision_norm``, whose
# contract is the rounding, grades bfloat16 around 100, where the first fail at twice the
# tolerance.)
BF16_OFFSET = 8.0


def cases(spec: ExerciseSpec, gen: torch.Generator) -> list[Case]:
    """The spec's cases, then the platform's (see the module's docstring)."""
    own = list(spec.make_cases(gen))
    added = [*_repeated_calls(spec, own, gen), *_given_kept(own), *_bf16_rows(spec, own, gen)]
    names = {c.name for c in own}
    # Construction cases stay last, as the spec orders them: they carry no tensors.
    calls = [c for c in own if c.raises is None]
    constructions = [c for c in own if c.raises is not None]
    return calls + [c for c in added if c.name not in names] + constructions


def _plain(case: Case) -> bool:
    """A case to derive others from: it calls something, deterministically."""
    return case.raises is None and not case.stochastic and not (case.train and not case.steps)


def _calls(case: Case) -> list[Call]:
    return [s for s in case.scenario if isinstance(s, Call)]


def _like(gen: torch.Generator, t: torch.Tensor) -> torch.Tensor:
    """Fresh data shaped and scaled like ``t``: a floating tensor's finite entries are drawn
    anew with their mean and spread, its infinities (a causal mask's -inf) and NaN kept where
    they are; anything else (a boolean mask, an index) is kept whole."""
    if not t.is_floating_point() or t.numel() < 2:
        return t
    wide = t.detach().double()
    finite = wide.isfinite()
    values = wide[finite]
    if values.numel() < 2:
        return t
    mean, std = float(values.mean()), float(values.std())
    if not (math.isfinite(mean) and math.isfinite(std)) or std == 0.0:
        return t
    fresh = draw.normal(gen, t.shape, torch.float64) * std + mean
    return torch.where(finite, fresh, wide).to(t.dtype)


def _parameters(spec: ExerciseSpec, case: Case) -> set[str]:
    """The names of the reference's parameters (not its buffers: an update moves weights, and a
    running variance moved by a random delta could turn negative)."""
    if spec.kind != "module":
        return set()
    subject = harness.instantiate(spec.reference, case, spec.kind)
    module = subject.module
    return {name for name, _ in module.named_parameters()} if module is not None else set()


def _repeated_calls(spec: ExerciseSpec, own: list[Case], gen: torch.Generator) -> Iterator[Case]:
    # Parameters loaded (an update can then move them) and a backward, where a case has both.
    # A stochastic case (dropout, a lab's seeded experiment) serves too: its calls keep their
    # seeds, and the case is compared as drawn.
    ranked = sorted(
        (c for c in own if c.raises is None and _calls(c)),
        key=lambda c: (
            not _plain(c),
            c.state is None,
            not any(s.backward for s in _calls(c)),
        ),
    )
    if not ranked:
        return
    template = ranked[0]
    calls = _calls(template)
    first = next((s for s in calls if s.backward), calls[0])

    def again(note: Phrase) -> Call:
        grads = None
        if first.grad_outputs is not None:
            grads = tuple(draw.normal(gen, g.shape, g.dtype) for g in first.grad_outputs)
        return replace(
            first,
            inputs=tuple(_like(gen, t) for t in first.inputs),
            grad_outputs=grads,
            note=note.en,
            note_zh=note.zh,
        )

    # The first two forwards run before one backward of both (two micro-batches, a module
    # used twice): a module that keeps one mask or saved tensor and overwrites it on the
    # second call gives the first call's gradient from the second's (``Call.defer``).
    held = first.grad_outputs is not None
    steps: list[Step] = [
        replace(
            again(
                Phrase(
                    "the first of three calls with these shapes and fresh data",
                    "同一形状、新数据的三次调用中的第一次",
                )
            ),
            defer=held,
        ),
        again(
            Phrase(
                "the second call with fresh data, one backward for both calls",
                "第二次调用，新数据，两次调用合做一次反向传播",
            )
            if held
            else Phrase("the second call with fresh data", "第二次调用，新数据")
        ),
        again(Phrase("the third call with fresh data", "第三次调用，新数据")),
    ]
    state = dict(template.state) if template.state is not None else None
    names = _parameters(spec, template) if state is not None else set()
    kept = {k: v for k, v in (state or {}).items() if k in names and v.is_floating_point()}
    if kept:
        steps.append(draw.update(gen, kept))
        steps += [
            again(Phrase("after the update, fresh data", "参数更新之后，新数据")),
            again(Phrase("after the update, once more", "参数更新之后，再调用一次")),
        ]
    words = (
        "three calls with fresh data of one shape"
        + (" (the first two forwards before one backward)" if held else "")
        + (", an update, two more calls" if kept else "")
    )
    words_zh = (
        "同一形状、新数据连续调用三次"
        + ("（前两次前向之后才做一次反向传播）" if held else "")
        + ("，参数更新后再调用两次" if kept else "")
    )
    yield draw.scenario(
        name="repeated_calls",
        description=f"as case {template.name} ({template.description}), but {words}",
        description_zh=f"同用例 {template.name}（{_zh_of(template)}），但改为{words_zh}",
        steps=steps,
        init_kwargs=dict(template.init_kwargs),
        state=state,
        module_args=dict(template.module_args),
        stochastic=template.stochastic or not _plain(template),
        cast_module=template.cast_module,
    )


def _option_values(case: Case) -> set[tuple[str, InitValue | None]]:
    return {(k, v) for k, v in case.init_kwargs.items() if isinstance(v, bool | str)}


def _given_kept(own: list[Case]) -> Iterator[Case]:
    given = [c for c in own if c.module_args and _plain(c)]
    # Only where the contract pins the module's own initialisation: some case already keeps it.
    kept = [c for c in given if c.state is None]
    if not kept:
        return
    options = sorted({k for c in given for k, _ in _option_values(c)})
    covered = {(k, c.init_kwargs.get(k)) for c in kept for k in options}
    seen: set[tuple[str, InitValue | None]] = set(covered)
    for case in given:
        for key in options:
            value = case.init_kwargs.get(key)
            if value is not None and not isinstance(value, bool | str):
                continue
            if (key, value) in seen:
                continue
            seen.add((key, value))
            shown = "default" if value is None else repr(value)
            steps = tuple(s for s in case.scenario if isinstance(s, Call))[:1]
            yield replace(
                case,
                name=f"given_kept_{key}_{'default' if value is None else value}",
                description=(
                    f"as case {case.name} ({case.description}), but with the module as given: "
                    f"{key} = {shown}, its default initialisation, nothing loaded, one call"
                ),
                description_zh=(
                    f"同用例 {case.name}（{_zh_of(case)}），但传入的模块保持原样：{key} = {shown}，"
                    "默认初始化，不加载参数，只调用一次"
                ),
                state=None,
                steps=steps,
            )


def _odd(n: int) -> bool:
    """No power of two: ``n`` times a bfloat16 value is then not a bfloat16 value in general
    (times a power of two it always is, and a rounded sum would go unseen)."""
    return n & (n - 1) != 0


def _to_bf16(t: torch.Tensor, like: torch.dtype) -> torch.Tensor:
    return t.to(torch.bfloat16) if t.dtype == like else t


def _as_bf16(case: Case) -> Case:
    """``case`` at bfloat16: its input's dtype becomes bfloat16 wherever it appears."""
    was = case.dtype
    steps: list[Step] = []
    for step in case.scenario:
        if isinstance(step, Call):
            steps.append(
                replace(
                    step,
                    inputs=tuple(_to_bf16(t, was) for t in step.inputs),
                    grad_outputs=None
                    if step.grad_outputs is None
                    else tuple(_to_bf16(g, was) for g in step.grad_outputs),
                )
            )
        else:
            steps.append(
                replace(step, deltas={k: _to_bf16(v, was) for k, v in step.deltas.items()})
            )
    state = None if case.state is None else {k: _to_bf16(v, was) for k, v in case.state.items()}
    return replace(case, x=_to_bf16(case.x, was), state=state, steps=tuple(steps))


def _bf16_rows(spec: ExerciseSpec, own: list[Case], gen: torch.Generator) -> Iterator[Case]:
    if not spec.reduces_rows or not any(c.dtype == torch.bfloat16 for c in own):
        return

    def fits(c: Case) -> bool:
        return (
            _plain(c)
            and c.dtype in (torch.bfloat16, torch.float32, torch.float64)
            and (c.cast_module or c.dtype == torch.bfloat16)
            and all(
                s.inputs[0].dim() >= 1
                and s.inputs[0].shape[-1] >= 16
                and _odd(s.inputs[0].shape[-1])
                for s in _calls(c)
            )
        )

    # A bfloat16 case of the spec's if one has a feature size that shows the rounding, else
    # another of its cases taken to bfloat16 (the contract takes bfloat16 there too).
    found = sorted((c for c in own if fits(c)), key=lambda c: c.dtype != torch.bfloat16)
    if not found:
        return
    template = _as_bf16(found[0])

    def constant(shape: tuple[int, ...]) -> torch.Tensor:
        # One bfloat16 value per row, chosen so that the row's sum rounded to bfloat16 and
        # divided by the row's size (rounded again) is not the value: such a mean leaves
        # x - mean nonzero where it must cancel exactly, and 1 / sqrt(var + eps) amplifies it.
        # The right computation (a float32 sum, or torch's mean) gives the value back exactly.
        rows, n = math.prod(shape[:-1]), shape[-1]
        drawn = draw.normal(gen, (64 * rows,), torch.float32, std=3.0).to(torch.bfloat16)
        wide = drawn.float()
        rounded_mean = ((wide * n).to(torch.bfloat16).float() / n).to(torch.bfloat16)
        shows = drawn[rounded_mean != drawn]
        values = shows[:rows] if shows.numel() >= rows else drawn[:rows]
        return values.reshape(rows, 1).expand(rows, n).reshape(shape).contiguous()

    def offset(shape: tuple[int, ...]) -> torch.Tensor:
        return (draw.normal(gen, shape, torch.float32) + BF16_OFFSET).to(torch.bfloat16)

    for name, make, what, what_zh in (
        (
            "bfloat16_constant_rows",
            constant,
            "constant along the last dim (one full-precision bfloat16 value per row)",
            "沿最后一维为常数（每行一个尾数位全满的 bfloat16 值）",
        ),
        (
            "bfloat16_offset_8",
            offset,
            "N(0,1) + 8 (bfloat16 keeps four bits below the point there)",
            "N(0,1) + 8（在这个量级 bfloat16 小数点后只剩四位）",
        ),
    ):
        steps: list[Step] = []
        for step in template.scenario:
            if not isinstance(step, Call):
                steps.append(step)
                continue
            grads = None
            if step.grad_outputs is not None:
                grads = tuple(draw.normal(gen, g.shape, g.dtype) for g in step.grad_outputs)
            x = make(tuple(step.inputs[0].shape))
            steps.append(replace(step, inputs=(x, *step.inputs[1:]), grad_outputs=grads))
        description = f"x = {what}, " + _after(_bf16_words(template.description, ", "), "shape (")
        first = next(s for s in steps if isinstance(s, Call))
        yield replace(
            template,
            name=name,
            description=description,
            description_zh=_zh(template, what_zh, description),
            x=first.inputs[0],
            steps=tuple(steps),
        )


def _bf16_words(text: str, sep: str) -> str:
    """A description of a case taken to bfloat16 (``_as_bf16``) says so."""
    for name in ("float32", "float64"):
        text = text.replace(f"{sep}{name}{sep}", f"{sep}bfloat16{sep}")
    return text


def _zh_of(case: Case) -> str:
    return case.description_zh or verdict_zh.description(case.description)


def _zh(template: Case, what_zh: str, description: str) -> str:
    """The Chinese description: the template's, with its input's words replaced."""
    rest = _after(_bf16_words(_zh_of(template), "，"), "形状 (")
    return f"x = {what_zh}，{rest}" if rest else verdict_zh.description(description)


def _after(text: str, start: str) -> str:
    """``text`` from ``start`` on (a description's shape, dtype and settings), or ""."""
    at = text.find(start)
    return text[at:] if at >= 0 else ""


# --- what the prompt says of it ------------------------------------------------------------

STATEMENT_START = {"en": "**Also, as for every exercise:**", "zh": "**和每道题一样，还有：**"}


def statement(spec: ExerciseSpec, lang: str) -> str:
    """The paragraph of the prompt's grading section that states the platform's cases and the
    precision float64 is judged at, for this spec (held equal to every prompt by a test)."""
    drawn = cases(spec, torch.Generator().manual_seed(0))
    names = {c.name for c in drawn}
    repeated = next((c for c in drawn if c.name == "repeated_calls"), None)
    updates = repeated is not None and any(not isinstance(s, Call) for s in repeated.scenario)
    float64 = any(c.dtype == torch.float64 for c in drawn)
    zh = lang == "zh"
    parts: list[str] = []
    if repeated is not None:
        if zh:
            parts.append(
                "同一形状、新数据连续调用三次"
                + ("，再更新参数后调用两次" if updates else "")
                + "（缓存结果、或从第三次调用起行为改变的代码会判错）"
            )
        else:
            parts.append(
                "three calls in a row with fresh data of one shape"
                + (", then an update and two more calls" if updates else "")
                + " (code that caches what it computed, or changes from its third call on, fails)"
            )
    if any(n.startswith("given_kept_") for n in names):
        parts.append(
            "每个构造选项的每个取值下，传入的模块都保持原样、用默认初始化运行一次（只在某个选项下"
            "重新初始化或复制它的代码会判错）"
            if zh
            else "for each value of each constructor option, a call with the given module as "
            "given, at its default initialisation (re-initialising or copying it under one "
            "option fails)"
        )
    if "bfloat16_constant_rows" in names:
        parts.append(
            "bfloat16 下整行相同的输入，以及 8 附近、离散度为 1 的输入（先在 bfloat16 里求和再"
            "相除的代码会判错：请在 float32 里计算）"
            if zh
            else "bfloat16 rows that are constant, and rows with a spread of 1 around 8 (a sum "
            "rounded to bfloat16 before the division fails: compute in float32)"
        )
    if float64:
        if spec.float32_internals:
            parts.append(
                "float64 用例给 float32 内部计算留了余量（像 Llama 的 RMSNorm 那样先 `x.float()` "
                "再转回去也算对）"
                if zh
                else "float64 cases leave room for float32 internals (`x.float()` and a cast "
                "back, as Llama's RMSNorm does, is correct)"
            )
        else:
            parts.append(
                "float64 用例按 float64 自身的精度比较：把 float64 输入放到 float32 里计算会判错"
                if zh
                else "float64 cases are compared at float64's own precision: computing float64 "
                "input in float32 fails"
            )
    if not parts:
        return ""
    sep, end = ("；", "。") if zh else ("; ", ".")
    body = sep.join(parts)
    return f"{STATEMENT_START['zh' if zh else 'en']}{'' if zh else ' '}{body}{end}"


GRADING_HEADING = {"en": "## How it is graded", "zh": "## 如何评测"}


def with_statement(text: str, spec: ExerciseSpec, lang: str) -> str:
    """``text`` (a prompt) with the statement as the last paragraph of its grading section,
    replacing the one there."""
    wanted = statement(spec, lang)
    start = STATEMENT_START[lang]
    lines = text.split("\n")
    heading = lines.index(GRADING_HEADING[lang])
    end = next(
        (i for i in range(heading + 1, len(lines)) if lines[i].startswith("## ")), len(lines)
    )
    section = lines[heading + 1 : end]
    # Paragraphs of the section, the old statement dropped.
    kept: list[str] = []
    skipping = False
    for line in section:
        if line.startswith(start):
            skipping = True
            continue
        if skipping and line.strip():
            continue
        skipping = False
        kept.append(line)
    while kept and not kept[-1].strip():
        kept.pop()
    new = [*kept, "", wanted, ""] if wanted else [*kept, ""]
    return "\n".join(lines[: heading + 1] + new + lines[end:])

"""What a verdict says about a mistake: the diagnosis and the findings, and how discrepancies
with a simple shape are recognised.

A *diagnosis* names a known mistake (one of the spec's, or one the grader names for every
exercise), with how sure the match is and, when it holds on only some cases, on which.
A *finding* describes the shape of a discrepancy without naming a mistake: the output is the
reference times a constant, or plus the input, or NaN where the reference is finite, or the
exercise's own computation with its reduction along another axis. Findings
are computed from the tensors the parent already holds (the child's bounded wire data, checked
for shape before anything here sees them); nothing is re-run in the child.

Every sentence exists in English (``text``) and Chinese (``text_zh``); the page picks one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch
from pydantic import BaseModel

from api.grading import wire


class ScopedMistake(BaseModel):
    """A known mistake that explains the failures on a subset of cases, and which subset."""

    name: str
    title: str
    title_zh: str
    condition: dict[str, str]  # feature -> the value(s) in words (``{"norm_first": "True"}``)
    cases: list[str]
    text: str
    text_zh: str


class Diagnosis(BaseModel):
    name: str
    title: str
    explanation: str
    title_zh: str
    explanation_zh: str
    # How sure the match is: the checks (one tensor of one step of one case) where the mistake
    # differs from the reference, how many of them the learner's code agrees with, and how
    # many were set aside as degenerate (both spellings non-finite differently).
    matched_checks: int | None = None
    informative_checks: int | None = None
    skipped_checks: int = 0
    evidence: str = ""
    evidence_zh: str = ""
    # Non-empty for a partial match: each part names a mistake and the cases it holds on.
    scope: list[ScopedMistake] = []
    # The fix that fits how the code was written (advice.py), also appended to explanation.
    advice: str = ""
    advice_zh: str = ""


def quoted(title: str) -> str:
    """A mistake's title set off in a sentence: titles are phrases with colons of their own
    ("norm_first ignored: always post-norm"). A scoped title comes quoted already."""
    return title if title.startswith("“") else f"“{title}”"


class Finding(BaseModel):
    """One observed shape of the discrepancy, with the sentence that says it."""

    kind: str  # nonfinite | dtype | sign | factor | offset | input_added | input_missing
    # | default_init | scope | axis | gradient_scaled | no_raise | batch_of_one
    text: str
    text_zh: str
    case: str | None = None
    step: int | None = None
    target: str | None = None
    value: float | None = None  # the factor or the offset
    axis: int | None = None  # kind="axis": the dim the learner reduced along
    expected_axis: int | None = None  # kind="axis": the dim the contract reduces along
    per_feature: bool | None = None  # an offset that differs per feature but not per row
    index: list[int] | None = None
    cases: list[str] = []
    condition: dict[str, str] | None = None


@dataclass(frozen=True)
class Discrepancy:
    """One failing tensor of one case: the learner's value, the reference (float64 run), the
    step's first input when it has the output's shape, and the tolerance to fit shapes with."""

    case: str
    description: str
    step: int
    target: str
    actual: torch.Tensor
    truth: torch.Tensor
    step_input: torch.Tensor | None
    is_output: bool
    fits: Callable[[torch.Tensor, torch.Tensor], bool]  # actual ~ candidate, at tolerance
    # The exercise's computation at default parameters on this step's input with its reduction
    # along a given axis (``ExerciseSpec.reduction``), when the exercise declares one.
    along: Callable[[int], torch.Tensor] | None = None
    description_zh: str = ""  # the case's description in Chinese, when the spec gives one

    @property
    def described_zh(self) -> str:
        return self.description_zh or self.description


def _g(v: float) -> str:
    return f"{v:.3g}"


def _fits(d: Discrepancy, candidate: torch.Tensor) -> bool:
    return d.fits(d.actual, candidate)


def _finite_pair(d: Discrepancy) -> bool:
    return bool(d.actual.isfinite().all()) and bool(d.truth.isfinite().all())


def nonfinite(d: Discrepancy) -> Finding | None:
    """NaN or inf where the reference is finite, and what the input looks like there."""
    a, t = d.actual.double(), d.truth.double()
    bad = ~a.isfinite() & t.isfinite()
    if not bool(bad.any()):
        return None
    flat = int(bad.reshape(-1).nonzero()[0])
    index: list[int] = []
    rest = flat
    for size in reversed(list(a.shape)):
        rest, i = divmod(rest, size)
        index.append(i)
    index.reverse()
    what = "NaN" if bool(a.reshape(-1)[flat].isnan()) else "inf"
    count = int(bad.sum())
    where_en = where_zh = ""
    x = d.step_input
    if x is not None and x.shape == a.shape and x.dim() >= 1:
        row = x.double()[tuple(index[:-1])] if x.dim() > 1 else x.double()
        if row.numel() > 1 and bool((row == row.reshape(-1)[0]).all()):
            where_en = " That row of the input is constant (its variance is exactly 0)."
            where_zh = "输入在这一行是常数（方差恰好为 0）。"
        else:
            big = float(row.abs().max()) if row.numel() else 0.0
            where_en = f" The largest |x| in that row of the input is {_g(big)}."
            where_zh = f"输入这一行中 |x| 的最大值是 {_g(big)}。"
    return Finding(
        kind="nonfinite",
        case=d.case,
        step=d.step,
        target=d.target,
        index=index,
        cases=[d.case],
        text=(
            f"Your {d.target} has {what} at index {tuple(index)} ({count} element(s) in all) "
            f"on case '{d.case}' ({d.description}), where the reference is finite.{where_en}"
        ),
        text_zh=(
            f"在用例 '{d.case}'（{d.described_zh}）上，你的 {d.target} 在下标 {tuple(index)} "
            f"处是 {what}（共 {count} 个元素），而参考实现在那里是有限值。{where_zh}"
        ),
    )


def _factor(d: Discrepancy) -> float | None:
    a, t = d.actual.double(), d.truth.double()
    den = float((t * t).sum())
    if den <= 0:
        return None
    return float((a * t).sum()) / den


def _shape_of(d: Discrepancy) -> tuple[str, float | None, bool | None] | None:
    """The simplest shape that explains this one discrepancy, or None."""
    if not _finite_pair(d):
        return None
    t = d.truth.double()
    x = d.step_input
    if d.is_output and x is not None and x.shape == t.shape:
        xd = x.double()
        if _fits(d, t + xd):
            return ("input_added", None, None)
        if _fits(d, t - xd):
            return ("input_missing", None, None)
    if _fits(d, -t):
        return ("sign", -1.0, None)
    a = _factor(d)
    if a is not None and abs(a - 1.0) > 1e-3 and abs(a) > 1e-6 and _fits(d, a * t):
        return ("factor", a, None)
    diff = d.actual.double() - t
    if diff.numel():
        b = float(diff.mean())
        if abs(b) > 0 and _fits(d, t + b):
            return ("offset", b, False)
        if t.dim() >= 2:
            rows = diff.reshape(-1, t.shape[-1]).mean(0)
            if _fits(d, t + rows):
                return ("offset", float(rows.abs().max()), True)
    return None


def _same(values: Sequence[float]) -> bool:
    lo, hi = min(values), max(values)
    return hi - lo <= 1e-2 * max(abs(lo), abs(hi), 1e-12)


def shapes(found: Sequence[Discrepancy]) -> list[Finding]:
    """A shape that explains every failing output (a constant factor, an offset, the input
    added...), stated once with the cases it holds on; gradients are not fitted (a wrong
    forward explains them), NaN/inf are reported per first occurrence."""
    findings: list[Finding] = []
    for d in found:
        f = nonfinite(d)
        if f is not None:
            findings.append(f)
            break
    outputs = [d for d in found if d.is_output]
    if not outputs:
        return findings
    fitted = [_shape_of(d) for d in outputs]
    if any(f is not None and f[0] == "offset" and f[2] for f in fitted):
        # A per-feature offset cannot be told from any other difference on a single vector:
        # 1-D outputs neither support nor contradict it.
        kept = [(d, f) for d, f in zip(outputs, fitted, strict=True) if d.truth.dim() >= 2]
        outputs, fitted = [d for d, _ in kept], [f for _, f in kept]
    kinds = {f[0] if f else None for f in fitted}
    if len(kinds) != 1 or None in kinds:
        return findings
    kind = kinds.pop()
    assert kind is not None
    cases = sorted({d.case for d in outputs})
    n = len(cases)
    first = outputs[0]
    on_en = (
        f"on every failing case where the output differs ({n})"
        if n > 1
        else (f"on case '{first.case}'")
    )
    on_zh = f"在输出有差异的全部 {n} 个失败用例上" if n > 1 else f"在用例 '{first.case}' 上"
    if kind == "input_added":
        findings.append(
            Finding(
                kind=kind,
                cases=cases,
                target=first.target,
                text=f"Your output equals the reference output plus the input, {on_en}: your "
                "code adds the input (a residual connection) that the contract does not ask "
                "for here.",
                text_zh=f"{on_zh}，你的输出等于参考输出再加上输入：你的代码多加了一次输入（残差连接），"
                "而这里的约定并不要求。",
            )
        )
    elif kind == "input_missing":
        findings.append(
            Finding(
                kind=kind,
                cases=cases,
                target=first.target,
                text=f"Your output equals the reference output minus the input, {on_en}: the "
                "input that the contract adds back (the residual connection) is missing.",
                text_zh=f"{on_zh}，你的输出等于参考输出减去输入：约定中要加回的输入（残差连接）"
                "没有加上。",
            )
        )
    elif kind == "sign":
        findings.append(
            Finding(
                kind=kind,
                cases=cases,
                target=first.target,
                value=-1.0,
                text=f"Your output is the reference output with its sign flipped, {on_en}.",
                text_zh=f"{on_zh}，你的输出恰好是参考输出取负（符号反了）。",
            )
        )
    elif kind == "factor":
        values = [f[1] for f in fitted if f and f[1] is not None]
        if _same(values):
            a = values[0]
            findings.append(
                Finding(
                    kind=kind,
                    cases=cases,
                    target=first.target,
                    value=a,
                    text=f"Your output is the reference output times {_g(a)}, {on_en}: a "
                    "constant factor is off (a scale, a mean taken as a sum, a missing "
                    "division).",
                    text_zh=f"{on_zh}，你的输出等于参考输出乘以 {_g(a)}："
                    "差了一个常数倍（比如缩放系数、把平均写成了求和，或者少除了一个数）。",
                )
            )
        else:
            lo, hi = min(values), max(values)
            findings.append(
                Finding(
                    kind=kind,
                    cases=cases,
                    target=first.target,
                    text=f"Your output is the reference output times a factor, {on_en}, but "
                    f"the factor changes from case to case ({_g(lo)} to {_g(hi)}): something "
                    "that depends on the input's size or values scales the result.",
                    text_zh=f"{on_zh}，你的输出都是参考输出的若干倍，"
                    f"但倍数随用例而变（从 {_g(lo)} 到 "
                    f"{_g(hi)}）：结果被某个依赖输入大小或数值的量缩放了。",
                )
            )
    elif kind == "offset":
        per_feature = any(f[2] for f in fitted if f)
        values = [f[1] for f in fitted if f and f[1] is not None]
        b = values[0]
        if per_feature:
            findings.append(
                Finding(
                    kind=kind,
                    cases=cases,
                    target=first.target,
                    value=b,
                    per_feature=True,
                    text=f"Your output differs from the reference by an offset that depends "
                    f"only on the feature (the same for every row, up to {_g(b)}), {on_en}: "
                    "a bias is added twice, or missing, or the wrong one is used.",
                    text_zh=f"{on_zh}，你的输出与参考输出相差一个只随特征维变化的偏移（每一行都一样，"
                    f"最大 {_g(b)}）：偏置加了两次、漏加了，或者用错了。",
                )
            )
        elif _same(values):
            findings.append(
                Finding(
                    kind=kind,
                    cases=cases,
                    target=first.target,
                    value=b,
                    per_feature=False,
                    text=f"Your output is the reference output shifted by {_g(b)}, {on_en}: "
                    "a constant is added (or subtracted) where the contract has none.",
                    text_zh=f"{on_zh}，你的输出等于参考输出整体平移了 {_g(b)}："
                    "多加（或多减）了一个常数。",
                )
            )
    return findings


def _target_zh(target: str) -> str:
    return "输出" if target == "output" else f" {target} "


def _axes(d: Discrepancy) -> tuple[int, int] | None:
    """(the axis the reference reduces along, the one the learner did), when the declared
    computation along one axis reproduces the reference and along another the learner's
    output. Neither is assumed: a case whose parameters are not the defaults (a loaded weight,
    another eps, eval mode on running estimates) matches no axis and gets no finding."""
    x = d.step_input
    if d.along is None or not d.is_output or x is None or x.dim() < 2:
        return None
    if x.shape != d.actual.shape or not _finite_pair(d):
        return None
    truth = d.truth.double()
    right: int | None = None
    wrong: int | None = None
    for k in range(x.dim()):
        if x.shape[k] < 2:  # a reduction along a size-1 axis is no statistic at all
            continue
        try:
            candidate = d.along(k)
        except Exception:
            continue
        if candidate.shape != d.actual.shape or not bool(candidate.isfinite().all()):
            continue
        on_truth = d.fits(truth, candidate)
        if on_truth and right is None:
            right = k
        elif not on_truth and wrong is None and _fits(d, candidate):
            wrong = k
    if right is None or wrong is None:
        return None
    return right, wrong


def axis(found: Sequence[Discrepancy]) -> Finding | None:
    """The output is the exercise's computation with its reduction along the wrong axis, on
    the failing cases where that can be checked (default parameters), stated with them."""
    hits = [(d, a) for d in found if (a := _axes(d)) is not None]
    if not hits:
        return None
    d, (right, wrong) = hits[0]
    x = d.step_input
    assert x is not None
    cases = sorted({h.case for h, _ in hits})
    n, m = x.shape[wrong], x.shape[right]
    others = len(cases) - 1
    also_en = f", and on {others} other failing case(s)," if others else ""
    also_zh = f"（另有 {others} 个失败用例也是如此）" if others else ""
    return Finding(
        kind="axis",
        case=d.case,
        step=d.step,
        target=d.target,
        cases=cases,
        axis=wrong,
        expected_axis=right,
        text=f"Your {d.target} on case '{d.case}' ({d.description}){also_en} is what the "
        f"reference computes with dim {wrong} (size {n}) in the place of dim {right} (size "
        f"{m}), the axis its statistics (the reduction) are taken by: a dim= in your "
        "reductions names the wrong axis.",
        text_zh=f"在用例 '{d.case}'（{d.described_zh}）上{also_zh}，你的{_target_zh(d.target)}"
        f"恰好等于参考实现用第 {wrong} 维（大小 {n}）代替第 {right} 维（大小 {m}）"
        "——也就是统计量（归约）所依据的那一维——算出的结果：你的某个归约的 dim= 指错了维度。",
    )


def dtype_finding(case: str, target: str, got: torch.dtype, want: torch.dtype) -> Finding:
    g, w = wire.DTYPE_NAMES.get(got, str(got)), wire.DTYPE_NAMES.get(want, str(want))
    return Finding(
        kind="dtype",
        case=case,
        target=target,
        cases=[case],
        text=f"Your {target} is {g} on case '{case}' where the input is {w}: the dtype changed "
        "on the way through your code.",
        text_zh=f"在用例 '{case}' 上，输入是 {w}，你的 {target} 却是 {g}："
        "数据类型在你的代码里被改变了。",
    )

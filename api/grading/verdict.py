"""The trusted half of grading: compute the reference after the fork, compare, diagnose.

Tolerances are honest in both directions. A case's allowed error is the dtype's base tolerance
(relative to the output's magnitude) plus a multiple of the error that torch's own
implementation makes at that dtype, measured against a float64 run of the same case. So an
ill-conditioned input (``x + 1e3`` in float32) widens the tolerance exactly as much as it
hurts a correct implementation, and a float64 upcast is never punished for being more precise
than the reference. A case passes only with positive evidence: output and every gradient
present, of the right shape and dtype, and within tolerance.

A case is a scenario (see ``spec.Case``): every call step is judged on its outputs, the input
left untouched, its gradients, the module's buffers after it and the calls each module argument
received. A case's judgement stops at its first failing step, and the verdict's message names
the case and the step.

Everything read from the child's answer is checked and bounded here: names, counts, shapes,
type names, messages. A forged answer gives at most a ``failed`` or ``crashed`` verdict of
bounded size (``MAX_VERDICT_BYTES``), never an exception.
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from typing import Any

import numpy as np
import torch
from pydantic import BaseModel

from api.grading import allowlist, check_words, diagnosis, labs, verdict_zh, wire
from api.grading import verdict_words as words
from api.grading.casesets import MistakeOutcomes

# The comparison lives below both the verdict and the diagnosis (``comparison``); these names
# are also read as ``verdict.<name>`` by the tests and the scripts.
from api.grading.comparison import TOLERANCES as TOLERANCES
from api.grading.comparison import Comparison as Comparison
from api.grading.comparison import Expected as Expected
from api.grading.comparison import compare as compare
from api.grading.comparison import compare_prepared, is_stochastic
from api.grading.comparison import expected_outcome as expected_outcome
from api.grading.comparison import reference_outcome as reference_outcome
from api.grading.findings import Diagnosis, Finding
from api.grading.phrase import Phrase
from api.grading.spec import Call, Case, ExerciseSpec, Kind, KnownMistake
from api.grading.step_words import step_words

log = logging.getLogger("addnorm.grading")

# A verdict's JSON stays under this whatever the child answers (tested with forged answers).
MAX_VERDICT_BYTES = 256 * 1024
# A failing value check shows at most this many values of each side around its worst element.
VALUES_AROUND = 5


class Values(BaseModel):
    """The learner's and the expected values along the last dim around a failing check's worst
    element (``Check.worst_index``), at most ``VALUES_AROUND`` of each. JSON has no NaN or
    infinity: those are the strings "nan", "inf" and "-inf"; every other value is a number."""

    start: int  # the last-dim index of the first value shown
    at: int  # the worst element's position in ``yours`` and ``expected``
    yours: list[float | str]
    expected: list[float | str]


class Check(BaseModel):
    case: str
    description: str
    # The scenario step this check is about (0-based) and what that step did, in words.
    step: int = 0
    step_description: str = ""
    # The function the step called, in an exercise graded on several (softmax, log_softmax).
    function: str | None = None
    target: str
    # What the check compares in Chinese ("grad of weight": "weight 的梯度"); ``target`` stays
    # the English key clients match on. Empty in verdicts stored before it existed.
    target_zh: str = ""
    passed: bool
    message: str
    # The same texts in Chinese, written beside the English where the check is made (empty in
    # verdicts stored before).
    description_zh: str = ""
    step_description_zh: str = ""
    message_zh: str = ""
    shape: list[int] | None = None
    dtype: str | None = None
    max_abs_error: float | None = None
    max_rel_error: float | None = None
    worst_index: list[int] | None = None
    allowed_abs_error: float | None = None
    # Failing value checks only: the values at and around the worst element.
    values: Values | None = None


class Verdict(BaseModel):
    status: str  # passed | failed | error | timeout | crashed | rejected
    message: str
    message_zh: str = ""  # the message in Chinese, written beside it (verdict_words)
    checks: list[Check] = []
    diagnosis: Diagnosis | None = None
    # What the discrepancy looks like when no known mistake explains it all (diagnosis.py).
    findings: list[Finding] = []
    error: dict[str, Any] | None = None
    stdout: str = ""
    stderr: str = ""
    cases_total: int = 0
    cases_passed: int = 0
    seed: int | None = None
    timings_ms: dict[str, float] = {}
    # A lab's figure: the learner's measured curves beside the reference's (``labs``).
    chart: labs.LabFigure | None = None


def _finite(v: float) -> float | None:
    """JSON has no NaN or infinity: an error that is not finite is reported as unknown (None)
    and the check's message says NaN or inf."""
    return v if math.isfinite(v) else None


def error_info(raw: object) -> dict[str, Any]:
    """An exception as the child described it, checked and capped: the child may forge it."""
    info = raw if isinstance(raw, dict) else {}
    line = info.get("line")
    return {
        "type": str(info.get("type") or "Exception")[:100],
        "message": str(info.get("message") or "")[:2000],
        "line": line if isinstance(line, int) and not isinstance(line, bool) else None,
    }


MAX_NAMES = 1000  # parameters or buffers a child may report, more is malformed


def _shapes_info(raw: object) -> dict[str, list[int]] | None:
    """Names and shapes as the child reported them, or None if they are malformed."""
    if not isinstance(raw, dict) or len(raw) > MAX_NAMES:
        return None
    found: dict[str, list[int]] = {}
    for name, shape in raw.items():
        if not (
            isinstance(shape, list)
            and len(shape) <= 8
            and all(isinstance(n, int) and not isinstance(n, bool) for n in shape)
        ):
            return None
        found[str(name)[:200]] = [max(-1, min(n, 1 << 40)) for n in shape]
    return found


def _int_map(raw: object) -> dict[str, int]:
    if not isinstance(raw, dict) or len(raw) > MAX_NAMES:
        return {}
    return {
        str(k)[:200]: v for k, v in raw.items() if isinstance(v, int) and not isinstance(v, bool)
    }


def _str_map(raw: object) -> dict[str, str]:
    if not isinstance(raw, dict) or len(raw) > MAX_NAMES:
        return {}
    return {str(k)[:200]: str(v)[:100] for k, v in raw.items()}


def _str_set(raw: object) -> set[str]:
    if not isinstance(raw, list) or len(raw) > MAX_NAMES:
        return set()
    return {m for m in raw if isinstance(m, str)}


def describe_step(case: Case, k: int, kind: Kind = "module") -> str:
    """Step ``k`` of the case in words, in English (``step_words`` says it in both)."""
    return step_words(case, k, kind).en


@dataclass
class _CaseJudgement:
    checks: list[Check]
    error: dict[str, Any] | None = None
    parameters: dict[str, Any] | None = None  # set when they differ from the contract
    mutated: bool = False
    wrong_dtype: bool = False
    wrong_grad_dtype: bool = False  # a gradient returned in another dtype than its input's
    calls: bool = False
    reinitialised: bool = False
    foreign_backward: bool = False
    not_saved: bool = False
    over_budget: bool = False  # more bytes kept for backward than the spec's budget
    raised: list[str] | None = None  # a construction case: what the learner's constructor raised
    learner: dict[str, torch.Tensor] | None = None
    expected: Expected | None = None
    # The value checks of outputs and gradients (replayed): a case graded by its law
    # (``spec.Law``) replaces them with the law's checks when one fails.
    values: list[Check] = dataclass_field(default_factory=list)
    signs: list[str] = dataclass_field(default_factory=list)  # the failing law checks' signs

    @property
    def passed(self) -> bool:
        return self.error is None and all(c.passed for c in self.checks) and bool(self.checks)


def _step_input(case: Case, k: int, i: int) -> torch.Tensor | None:
    step = case.scenario[k]
    if isinstance(step, Call) and i < len(step.inputs):
        return step.inputs[i]
    return None


def _judge_case(
    spec: ExerciseSpec,
    case: Case,
    index: int,
    entry: Mapping[str, Any] | None,
    tensors: Mapping[str, torch.Tensor],
    expected: Expected,
) -> _CaseJudgement:
    described_zh = case.description_zh or verdict_zh.description(case.description)

    def check(target: Phrase, passed: bool, said: Phrase, step: int = 0, **kw: Any) -> Check:
        called = case.scenario[step] if step < len(case.scenario) else None
        words = step_words(case, step, spec.kind)
        return Check(
            case=case.name,
            description=case.description,
            # As the spec wrote it in Chinese; derived only for a spec not yet on ``described``.
            description_zh=described_zh,
            step=step,
            step_description=words.en,
            step_description_zh=words.zh,
            function=called.function or None if isinstance(called, Call) else None,
            target=target.en,
            target_zh=target.zh,
            passed=passed,
            message=said.en,
            message_zh=said.zh,
            **kw,
        )

    if entry is None:
        return _CaseJudgement([check(check_words.RUN, False, check_words.NEVER_RUN)])
    if "error" in entry:
        err = error_info(entry["error"])
        raw_step = entry.get("step")
        at = raw_step if isinstance(raw_step, int) and 0 <= raw_step < len(case.scenario) else 0
        return _CaseJudgement(
            [
                check(
                    check_words.RUN,
                    False,
                    check_words.raised(str(err.get("type")), str(err.get("message"))),
                    at,
                )
            ],
            error=err,
        )
    if case.raises is not None:
        return _judge_construction(case, entry, check)
    ref = expected.native
    their_params = _shapes_info(entry.get("parameters"))
    their_buffers = _shapes_info(entry.get("buffers")) or {}
    if their_params is None or their_params != ref.parameters:
        shown = their_params or {}
        return _CaseJudgement(
            [
                check(
                    check_words.PARAMETERS,
                    False,
                    check_words.contract_mismatch(ref.parameters, shown),
                )
            ],
            parameters=shown,
        )
    missing_buffers = {k: v for k, v in ref.buffers.items() if their_buffers.get(k) != v}
    if missing_buffers or entry.get("loaded") is False:
        return _CaseJudgement(
            [
                check(
                    check_words.BUFFERS,
                    False,
                    check_words.contract_mismatch(ref.buffers, their_buffers),
                )
            ],
            parameters=their_params,
        )
    judgement = _CaseJudgement([])
    notes = _str_map(entry.get("notes"))
    # On every case, parameters loaded or not: a loaded state overwrites a re-initialised
    # sublayer, but the caller's module was changed all the same (a pretrained one ruined).
    # What the reference itself does to it is the contract's.
    changed = [
        n
        for n in case.module_args
        if notes.get(f"init.{n}") == "changed" and ref.notes.get(f"init.{n}") != "changed"
    ]
    if changed:
        judgement.reinitialised = True
        judgement.checks.append(
            check(check_words.untouched(changed[0]), False, check_words.REINITIALISED)
        )
        return judgement
    missing = _str_set(entry.get("missing"))
    calls = _int_map(entry.get("calls"))
    learner: dict[str, torch.Tensor] = {}
    # A random block's case graded by its law runs every step: the law reads them all.
    by_law = spec.law is not None and is_stochastic(case)
    for k, step in enumerate(case.scenario):
        if not isinstance(step, Call):
            continue
        before = len(judgement.checks)
        _judge_call(
            spec, case, k, step, check, judgement, learner, tensors, index, expected, missing, notes
        )
        for name in case.module_args:
            want, got = expected.native.calls.get(f"{k}.{name}"), calls.get(f"{k}.{name}")
            if want is not None and got != want:
                judgement.calls = True
                judgement.checks.append(
                    check(check_words.calls_to(name), False, check_words.calls(got, want), k)
                )
        backward = notes.get(f"{k}.backward")
        if spec.kind == "autograd_function" and step.backward and backward is not None:
            judgement.foreign_backward = True
            judgement.checks.append(
                check(check_words.BACKWARD, False, check_words.foreign_backward(backward), k)
            )
        if (
            spec.save_for_backward
            and spec.kind == "autograd_function"
            and step.backward
            and backward is None
        ):
            problem = _saving_problem(notes, k)
            if problem is not None:
                judgement.not_saved = True
            message = problem or check_words.saved(notes.get(f"{k}.saved"))
            judgement.checks.append(
                check(check_words.SAVED_FOR_BACKWARD, problem is None, message, k)
            )
        if spec.saved_bytes_budget is not None and step.backward and backward is None:
            budget = int(spec.saved_bytes_budget(case, step))
            over, said = _budget_problem(notes, k, budget)
            judgement.over_budget = judgement.over_budget or over
            judgement.checks.append(check(check_words.BYTES_SAVED, not over, said, k))
        if not by_law and any(not c.passed for c in judgement.checks[before:]):
            break  # later steps build on this one: the first failing step is the news
    if by_law and any(not c.passed for c in judgement.values):
        _judge_by_law(spec, case, index, tensors, check, judgement)
    judgement.learner = learner
    judgement.expected = expected
    return judgement


def _judge_by_law(
    spec: ExerciseSpec,
    case: Case,
    index: int,
    tensors: Mapping[str, torch.Tensor],
    check: Callable[..., Check],
    judgement: _CaseJudgement,
) -> None:
    """The replayed stream did not match: the case is judged by the spec's law instead, whose
    checks replace the replayed value checks of outputs and gradients (``spec.Law``)."""
    assert spec.law is not None
    prefix = f"{index}."
    got = {
        key.removeprefix(prefix): t
        for key, t in tensors.items()
        if key.startswith(prefix) and (".output" in key or ".grad." in key)
    }
    found = spec.law.judge(case, got, spec.tolerance(case.dtype))
    replayed = {id(c) for c in judgement.values}
    kept = [(c.step, c) for c in judgement.checks if id(c) not in replayed]
    lawful = [
        (
            lc.step,
            check(
                Phrase(lc.target, lc.target_zh),
                lc.passed,
                Phrase(lc.message, lc.message_zh),
                lc.step,
            ),
        )
        for lc in found
    ]
    ordered = sorted(kept + lawful, key=lambda pair: pair[0])
    judgement.checks = [c for _, c in ordered]
    judgement.values = []
    judgement.signs = [lc.sign for lc in found if not lc.passed and lc.sign]


def _budget_problem(notes: Mapping[str, str], k: int, budget: int) -> tuple[bool, Phrase]:
    """Whether the bytes the child saw kept for backward break the spec's budget, and the
    check's message (bounded notes: a missing or malformed count is a failure)."""
    raw = notes.get(f"{k}.saved_bytes")
    if raw is None or not raw.isdigit() or len(raw) > 18:
        return True, check_words.BYTES_UNSEEN
    kept = int(raw)
    return kept > budget, check_words.bytes_kept(kept, budget)


def _saving_problem(notes: Mapping[str, str], k: int) -> Phrase | None:
    """Why what the learner's forward kept for backward breaks the contract's
    ``ctx.save_for_backward`` rule, from what the child observed (bounded notes)."""
    on_ctx = notes.get(f"{k}.ctx_tensors")
    saved = notes.get(f"{k}.saved")
    if on_ctx:
        return check_words.kept_on_ctx(on_ctx)
    if saved is None or not saved.isdigit():
        return check_words.SAVES_UNSEEN
    if int(saved) == 0:
        return check_words.SAVED_NOTHING
    return None


def _zero_where_unreached(name: str, ref_grad: torch.Tensor) -> bool:
    """A missing gradient stands for zeros when the reference's is all zeros, for a parameter
    of one member of a module list (``experts.3.w1.weight``): a member the input never routes
    to need not be called. Elsewhere a missing gradient stays a failure of its own: a module's
    own weight unused in forward is a mistake the diagnosis names from that check (LayerNorm's
    weight on constant rows, whose reference gradient is zero too)."""
    listed = any(part.isdigit() for part in name.split("."))
    return listed and not name.startswith("input") and not bool(ref_grad.any())


def _judge_call(
    spec: ExerciseSpec,
    case: Case,
    k: int,
    step: Call,
    check: Callable[..., Check],
    judgement: _CaseJudgement,
    learner: dict[str, torch.Tensor],
    tensors: Mapping[str, torch.Tensor],
    index: int,
    expected: Expected,
    missing: set[str],
    notes: Mapping[str, str],
) -> None:
    truth, native = expected.truth.tensors, expected.native.tensors
    prefix = f"{k}."
    # Floors come from ``expected.floor``: two reductions per step and case set, not one per
    # check (each torch call trades the GIL, which under load costs more than the work).

    outputs = sorted(key for key in truth if key.startswith(prefix + "output"))
    for key in outputs:
        target = check_words.output(key.removeprefix(prefix + "output"))
        out = tensors.get(f"{index}.{key}")
        ref_out = truth[key]
        if out is None:
            what = notes.get(f"{k}.output_type", "nothing usable")
            judgement.checks.append(check(target, False, check_words.returned(what), k))
            return
        if list(out.shape) != list(ref_out.shape):
            judgement.checks.append(
                check(
                    target,
                    False,
                    check_words.shape(tuple(out.shape), tuple(ref_out.shape)),
                    k,
                    shape=list(out.shape),
                    dtype=wire.DTYPE_NAMES.get(out.dtype),
                )
            )
            return
        want = native[key].dtype
        if out.dtype != want:
            judgement.wrong_dtype = True
            judgement.checks.append(
                check(
                    check_words.dtype_of(target),
                    False,
                    check_words.output_dtype(
                        wire.DTYPE_NAMES.get(out.dtype), wire.DTYPE_NAMES.get(want)
                    ),
                    k,
                    shape=list(out.shape),
                    dtype=wire.DTYPE_NAMES.get(out.dtype),
                )
            )
        learner[key] = out
        judgement.checks.append(_value_check(check, target, k, out, case, spec, key, expected))
        judgement.values.append(judgement.checks[-1])
    n_inputs = len(step.inputs)
    # A call on parameters hands over copies: their changes are compared as outputs.
    for i, original in enumerate(step.inputs if step.parameters is None else ()):
        suffix = "" if n_inputs == 1 else f"[{i}]"
        after = tensors.get(f"{index}.{k}.input_after{suffix}")
        if (
            after is None
            or after.shape != original.shape
            or after.dtype != original.dtype
            or not torch.equal(after, original)
        ):
            judgement.mutated = True
            if after is not None and after.shape == original.shape:
                # What the learner left in its input: a known mistake that updates it in place
                # (the residual stream, as vLLM's kernel does) is matched on it too.
                learner[f"{k}.input_after{suffix}"] = after
            judgement.checks.append(
                check(
                    check_words.unchanged(suffix),
                    False,
                    check_words.MUTATED,
                    k,
                )
            )
    for key, ref_grad in truth.items():
        if not key.startswith(prefix + "grad."):
            continue
        name = key.removeprefix(prefix + "grad.")
        target = check_words.grad_of(name)
        theirs = tensors.get(f"{index}.{key}")
        if (theirs is None or key in missing) and _zero_where_unreached(name, ref_grad):
            # Autograd leaves None where the output does not depend on a parameter: a zero
            # gradient. Where the reference's gradient is exactly zero too (an expert that
            # received no token, which a solution need not call), None is that zero.
            theirs = torch.zeros_like(ref_grad, dtype=native[key].dtype if key in native else None)
        elif theirs is None or key in missing:
            judgement.checks.append(
                check(
                    target,
                    False,
                    check_words.no_gradient(name),
                    k,
                )
            )
            continue
        if list(theirs.shape) != list(ref_grad.shape):
            judgement.checks.append(
                check(
                    target,
                    False,
                    check_words.gradient_shape(tuple(theirs.shape), tuple(ref_grad.shape)),
                    k,
                    shape=list(theirs.shape),
                )
            )
            # Kept for diagnosis: a known mistake with the same wrongly shaped gradient (a
            # parameter's gradient not summed over the leading dims) is named by it.
            learner[key] = theirs
            continue
        # A Function's backward is recorded as it returned it (autograd would cast it to the
        # input's dtype silently): a float64 gradient for a float32 input is wrong.
        want = native[key].dtype if key in native else ref_grad.dtype
        if theirs.dtype != want:
            judgement.wrong_grad_dtype = True
            judgement.checks.append(
                check(
                    check_words.dtype_of(target),
                    False,
                    check_words.gradient_dtype(
                        wire.DTYPE_NAMES.get(theirs.dtype), wire.DTYPE_NAMES.get(want)
                    ),
                    k,
                    shape=list(theirs.shape),
                    dtype=wire.DTYPE_NAMES.get(theirs.dtype),
                )
            )
        learner[key] = theirs
        judgement.checks.append(_value_check(check, target, k, theirs, case, spec, key, expected))
        judgement.values.append(judgement.checks[-1])
    for key, ref_buf in truth.items():
        if not key.startswith(prefix + "buffer."):
            continue
        name = key.removeprefix(prefix + "buffer.")
        target = check_words.buffer(name)
        theirs = tensors.get(f"{index}.{key}")
        if theirs is None or list(theirs.shape) != list(ref_buf.shape):
            judgement.checks.append(check(target, False, check_words.MISSING_AFTER, k))
            continue
        if not ref_buf.is_floating_point():
            same = theirs.dtype == ref_buf.dtype and torch.equal(theirs, ref_buf)
            learner[key] = theirs  # a mistake may show only here (a count never incremented)
            judgement.checks.append(
                check(
                    target,
                    same,
                    check_words.MATCHES
                    if same
                    else check_words.value(_short(theirs), _short(ref_buf)),
                    k,
                )
            )
            continue
        learner[key] = theirs
        judgement.checks.append(_value_check(check, target, k, theirs, case, spec, key, expected))


def _short(t: torch.Tensor) -> str:
    flat = t.reshape(-1)[:4].tolist()
    return str(flat if t.numel() > 1 else flat[0] if t.numel() else [])[:80]


def _value_check(
    check: Callable[..., Check],
    target: Phrase,
    k: int,
    actual: torch.Tensor,
    case: Case,
    spec: ExerciseSpec,
    key: str,
    expected: Expected,
) -> Check:
    """``actual`` against the reference's tensor ``key``."""
    prepared = expected.prepared(case, key, spec.tolerance(case.dtype))
    cmp = compare_prepared(actual, prepared)
    if cmp.passed:
        message = check_words.matches(cmp.max_abs, cmp.allowed)
    elif cmp.nonfinite:
        message = check_words.nonfinite(cmp.nonfinite, cmp.worst_index)
    else:
        message = check_words.differs(cmp.max_abs, cmp.max_rel, cmp.worst_index, cmp.allowed)
    return check(
        target,
        cmp.passed,
        message,
        k,
        shape=list(actual.shape),
        dtype=wire.DTYPE_NAMES.get(actual.dtype),
        max_abs_error=_finite(cmp.max_abs),
        max_rel_error=_finite(cmp.max_rel),
        worst_index=cmp.worst_index,
        allowed_abs_error=_finite(cmp.allowed),
        values=None if cmp.passed else values_around(actual, prepared.truth, cmp.worst_index),
    )


def _plain(v: float) -> float | str:
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v


def values_around(actual: torch.Tensor, truth: np.ndarray, worst: list[int]) -> Values | None:
    """``Values`` around ``worst`` (a full index of both, as ``compare`` found it); None where
    there is none to show (no worst element, or shapes that differ)."""
    if list(actual.shape) != list(truth.shape) or len(worst) != actual.dim() or actual.numel() == 0:
        return None
    plain = actual.detach()
    if not worst:  # a 0-d value: its one element
        start, at, yours, exp = 0, 0, [plain.double().item()], [truth.item()]
    else:
        size, last = actual.shape[-1], worst[-1]
        start = min(max(last - VALUES_AROUND // 2, 0), max(size - VALUES_AROUND, 0))
        stop = min(start + VALUES_AROUND, size)
        at, row = last - start, tuple(worst[:-1])
        yours, exp = plain[row][start:stop].double().tolist(), truth[row][start:stop].tolist()
    return Values(
        start=start,
        at=at,
        yours=[_plain(float(v)) for v in yours],
        expected=[_plain(float(v)) for v in exp],
    )


# --- construction cases: the constructor must raise (``Case.raises``) -------------------------


def _judge_construction(
    case: Case, entry: Mapping[str, Any], check: Callable[..., Check]
) -> _CaseJudgement:
    """Did the learner's constructor raise what the contract says, on these arguments?"""
    want = case.raises or ""
    raw = entry.get("raised")
    names = [str(n)[:100] for n in raw[:16]] if isinstance(raw, list) else None
    target = check_words.constructor_raises(want)
    if names is None:
        return _CaseJudgement([check(target, False, check_words.NO_REPORT)])
    judgement = _CaseJudgement([], raised=names)
    if want in names:
        judgement.checks.append(check(target, True, check_words.raised_as_contract(names[0])))
    elif names:
        judgement.checks.append(check(target, False, check_words.raised_instead(names[0], want)))
    else:
        judgement.checks.append(check(target, False, check_words.returned_a_module(want)))
    return judgement


def _entry_noun(spec: ExerciseSpec) -> str:
    if spec.kind == "function":
        return "` and `".join(f"def {name}(...)" for name in spec.names)
    if spec.kind == "autograd_function":
        return f"class {spec.class_name}(torch.autograd.Function)"
    if spec.kind == "optimizer":
        return f"class {spec.class_name}"
    return f"class {spec.class_name}(nn.Module)"


def decide(
    spec: ExerciseSpec,
    cases: Sequence[Case],
    *,
    body: bytes,
    timed_out: bool,
    truncated: bool,
    signal: str | None,
    time_limit: float,
    expected: Sequence[Expected] | None = None,
    outcomes: MistakeOutcomes | None = None,
) -> Verdict:
    """The verdict on what the child answered. Never trusts the child's claims about itself.
    ``outcomes``: the known mistakes' outcomes on these cases, shared by the verdicts graded on
    them (``casesets``)."""
    if timed_out:
        return _said("timeout", words.timed_out(time_limit))
    if truncated:
        return _said("failed", words.OUTPUT_TOO_LONG)
    try:
        header, blob = wire.split(body)
        tensors = wire.decode_tensors(header, blob)
    except wire.WireError as exc:
        return _said(
            "crashed", words.crashed(signal), error={"detail": str(exc)[:200], "signal": signal}
        )
    try:
        return _within_bound(_decide(spec, cases, header, tensors, expected, outcomes))
    except Exception as exc:  # a forged answer we did not foresee: never a 5xx
        return _said(
            "crashed",
            words.UNREADABLE,
            error={"detail": f"{type(exc).__name__}: {exc}"[:200], "signal": signal},
        )


def _size(decided: Verdict) -> int:
    # Measured as escaped JSON: the child's stdout may still hold lone surrogates here, which
    # the stored form replaces later and which pydantic's UTF-8 serialiser refuses.
    return len(json.dumps(decided.model_dump(), default=str))


def _within_bound(decided: Verdict) -> Verdict:
    """The verdict at most MAX_VERDICT_BYTES long: a module with many parameters (an MoE's
    experts) failing every case with forged tensors lists tens of thousands of checks. The
    failing checks are kept before the passing ones, in order, as many as fit."""
    if _size(decided) < MAX_VERDICT_BYTES:
        return decided
    ordered = [c for c in decided.checks if not c.passed] + [c for c in decided.checks if c.passed]
    keep = len(ordered)
    while keep > 0:
        keep //= 2
        trimmed = decided.model_copy(update={"checks": ordered[:keep]})
        if _size(trimmed) < MAX_VERDICT_BYTES:
            return trimmed
    return decided.model_copy(update={"checks": []})


def _said(status: str, said: Phrase, **fields: Any) -> Verdict:
    """A verdict whose message is ``said``, in both languages."""
    return Verdict(status=status, message=said.en, message_zh=said.zh, **fields)


def _refusal(spec: ExerciseSpec, header: Mapping[str, Any]) -> Phrase | None:
    """Why the child's allow-list guard refused the submission, if it did (``allowlist``):
    an operation outside the exercise's list, a hand-written backward that had autograd do
    the work, or the guard itself switched off. The child's report can only get its own code
    refused, so it is believed; only its shape is checked."""
    if spec.allowed is not None and header.get("guard_off") is True:
        return words.GUARD_OFF
    found = header.get("by_hand")
    found = [k for k in found if k in allowlist.STRUCTURAL] if isinstance(found, list) else []
    if spec.kind == "autograd_function" and found:
        return words.autograd_did_it([allowlist.STRUCTURAL[k] for k in found])
    ops = header.get("refused_ops")
    # Each operation named once: a private implementation refused three times is one finding.
    ops = (
        list(dict.fromkeys(o for o in ops if isinstance(o, str)))[:3]
        if isinstance(ops, list)
        else []
    )
    if ops and (spec.allowed is not None or spec.banned):
        return words.ran_outside(
            ", ".join(o[:80] for o in ops),
            allowlist.ELEMENTARY_SAID,
            allowlist.instead(ops[0][:80]),
        )
    return None


def _decide(
    spec: ExerciseSpec,
    cases: Sequence[Case],
    header: Mapping[str, Any],
    tensors: Mapping[str, torch.Tensor],
    expected: Sequence[Expected] | None,
    outcomes: MistakeOutcomes | None,
) -> Verdict:
    stdout, stderr = str(header.get("stdout", ""))[:10000], str(header.get("stderr", ""))[:10000]
    base: dict[str, Any] = {"stdout": stdout, "stderr": stderr, "cases_total": len(cases)}
    # Only names the spec bans count (and are echoed): the child could report anything.
    reported = header.get("banned_calls")
    reported = reported if isinstance(reported, list) else []
    banned = [b for b in spec.banned if b in reported]
    if banned:
        names = ", ".join(b.replace("torch.nn.functional.", "F.") for b in banned)
        return _said("rejected", words.called(names), **base)
    refused = _refusal(spec, header)
    if refused is not None:
        return _said("rejected", refused, **base)
    if header.get("load_error"):
        err = error_info(header["load_error"])
        return _said("error", words.raised_loading(err), error=err, **base)
    if header.get("missing_class") or header.get("not_a_module"):
        return _said("error", words.must_define(_entry_noun(spec)), **base)
    entries = header.get("cases")
    entries = entries if isinstance(entries, list) else []
    checks: list[Check] = []
    judgements: list[tuple[Case, _CaseJudgement]] = []
    for i, case in enumerate(cases):
        entry = entries[i] if i < len(entries) and isinstance(entries[i], dict) else None
        if entry is not None and entry.get("name") != case.name:
            entry = None
        reference = expected[i] if expected is not None else reference_outcome(spec, case)
        j = _judge_case(spec, case, i, entry, tensors, reference)
        judgements.append((case, j))
        checks.extend(j.checks)
    passed = sum(j.passed for _, j in judgements)
    base.update(cases_passed=passed, checks=checks)
    if spec.chart is not None:
        ref = {i: j.expected.native.tensors for i, (_, j) in enumerate(judgements) if j.expected}
        base["chart"] = labs.figure(spec, list(cases), tensors, ref)
    if passed == len(cases) and cases:
        used = max(
            ((c.max_abs_error or 0.0) / c.allowed_abs_error for c in checks if c.allowed_abs_error),
            default=0.0,
        )
        return _said("passed", words.all_passed(len(cases), used), **base)
    failing = [(c, j) for c, j in judgements if not j.passed]
    errored = next(((c, j) for c, j in failing if j.error is not None), None)
    if errored is not None:
        case, j = errored
        try:
            named = diagnosis.named_despite_errors(spec, failing, outcomes)
        except Exception:
            log.exception("diagnosis failed for %s", spec.slug)
            named = None
        if named is not None:
            return _failed_and_raised(named, failing, errored, len(cases), base)
        err = j.error or {}
        at = _where(case, j.checks[0])
        return _said("error", words.raised_on_case(err, at), error=err, **base)
    try:
        found = diagnosis.diagnose(spec, judgements, outcomes)
    except Exception:  # naming the mistake is a bonus: a bug there must not cost the verdict
        log.exception("diagnosis failed for %s", spec.slug)
        found = diagnosis.Result()
    if spec.law is not None:
        # What broke the law names the mistake first: the replayed stream matches a known
        # mistake only where the learner draws as the reference does.
        _named_by_law(spec, failing, found)
    # The case quoted is the one that shows the diagnosed mistake best, else the first.
    first_case, first = next(((c, j) for c, j in failing if c.name == found.first_case), failing[0])
    first_check = next(c for c in first.checks if not c.passed)
    said = words.failed(
        len(failing),
        len(cases),
        _where(first_case, first_check),
        _target(first_check),
        _found(first_check),
    )
    if found.diagnosis is not None:
        said = _joined(said, words.looks_like(_title(found.diagnosis)))
    return _said("failed", said, diagnosis=found.diagnosis, findings=found.findings, **base)


def _named_by_law(
    spec: ExerciseSpec,
    failing: Sequence[tuple[Case, _CaseJudgement]],
    found: diagnosis.Result,
) -> None:
    """The known mistake the failing law checks point to (``spec.Law.name``), when replaying
    the known mistakes named none: code that draws its mask its own way and makes one."""
    assert spec.law is not None
    signs = [sign for _, j in failing for sign in j.signs]
    name = spec.law.name(signs) if signs else None
    mistake = next((m for m in spec.mistakes if m.name == name), None)
    if mistake is None:
        return
    found.diagnosis = diagnosis.known(mistake)
    found.findings = []
    found.first_case = next((c.name for c, j in failing if j.signs), found.first_case)


def _where(case: Case, check: Check) -> Phrase:
    return words.where(
        case.name,
        Phrase(case.description, check.description_zh),
        Phrase(check.step_description, check.step_description_zh),
    )


def _target(check: Check) -> Phrase:
    return Phrase(check.target, check.target_zh or verdict_zh.target(check.target))


def _found(check: Check) -> Phrase:
    return Phrase(check.message, check.message_zh or verdict_zh.check_message(check.message))


def _title(mistake: Diagnosis) -> Phrase:
    return Phrase(mistake.title, mistake.title_zh)


def _joined(first: Phrase, then: Phrase) -> Phrase:
    """Two sentences of the verdict (the English ones carry their own spacing)."""
    return Phrase(first.en + then.en, first.zh + then.zh)


def _failed_and_raised(
    mistake: KnownMistake,
    failing: Sequence[tuple[Case, _CaseJudgement]],
    errored: tuple[Case, _CaseJudgement],
    total: int,
    base: dict[str, Any],
) -> Verdict:
    """A known mistake that raises on some shapes and is silently wrong on others, named from
    the cases where the learner's code returned a value (``diagnosis.named_despite_errors``)."""
    first_case, first = next((c, j) for c, j in failing if j.error is None and j.learner)
    check = next(c for c in first.checks if not c.passed)
    case, j = errored
    err = j.error or {}
    named = diagnosis.known(mistake)
    found = _found(check)
    said = words.failed(
        len(failing),
        total,
        _where(first_case, check),
        _target(check),
        Phrase(
            f"{found.en} (the first case where your code returned a value)",
            f"{found.zh}（这是你的代码第一个返回了值的用例）",
        ),
    )
    said = _joined(said, words.looks_like(_title(named)))
    said = _joined(said, words.raised_elsewhere(err, case.name))
    return _said("failed", said, diagnosis=named, error=err, **base)

"""The trusted half of grading: compute the reference after the fork, compare, diagnose.

Tolerances are honest in both directions. A case's allowed error is the dtype's base tolerance
(relative to the output's magnitude) plus a multiple of the error that torch's own
implementation makes at that dtype, measured against a float64 run of the same case. So an
ill-conditioned input (``x + 1e3`` in float32) widens the tolerance exactly as much as it
hurts a correct implementation, and a float64 upcast is never punished for being more precise
than the reference. A case passes only with positive evidence: output and every gradient
present, of the right shape and dtype, and within tolerance.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import torch
from pydantic import BaseModel

from api.grading import harness, wire
from api.grading.spec import Case, ExerciseSpec, KnownMistake

# dtype -> (relative tolerance, absolute tolerance as a fraction of the output's magnitude)
TOLERANCES: dict[torch.dtype, tuple[float, float]] = {
    torch.float32: (2e-4, 2e-5),
    # float64 inputs admit float32 internals (Llama-style RMSNorm computes in float32).
    torch.float64: (1e-5, 2e-6),
    torch.bfloat16: (3e-2, 2e-2),
    torch.float16: (5e-3, 2e-3),
}
REFERENCE_ERROR_FACTOR = 8.0
MAX_DIAGNOSIS_CASES = 6


class Check(BaseModel):
    case: str
    description: str
    target: str
    passed: bool
    message: str
    shape: list[int] | None = None
    dtype: str | None = None
    max_abs_error: float | None = None
    max_rel_error: float | None = None
    worst_index: list[int] | None = None
    allowed_abs_error: float | None = None


class Diagnosis(BaseModel):
    name: str
    title: str
    explanation: str
    title_zh: str
    explanation_zh: str


class Verdict(BaseModel):
    status: str  # passed | failed | error | timeout | crashed | rejected
    message: str
    checks: list[Check] = []
    diagnosis: Diagnosis | None = None
    error: dict[str, Any] | None = None
    stdout: str = ""
    stderr: str = ""
    cases_total: int = 0
    cases_passed: int = 0
    seed: int | None = None
    timings_ms: dict[str, float] = {}


IN_PLACE = Diagnosis(
    name="in_place_mutation",
    title="Modified the input in place",
    explanation=(
        "Your forward changed the tensor it was given (an in-place op such as x.sub_() or "
        "x -= mean). The caller still needs x: in a Transformer it is the residual stream. "
        "Use out-of-place ops (x - mean) and return a new tensor."
    ),
    title_zh="原地修改了输入",
    explanation_zh=(
        "forward 修改了传入的张量（例如 x.sub_() 或 x -= mean 这类原地操作）。调用方之后还要用 x，"
        "在 Transformer 里它就是残差流。请改用非原地运算（x - mean），返回一个新张量。"
    ),
)
WRONG_DTYPE = Diagnosis(
    name="wrong_output_dtype",
    title="Output dtype differs from the input's",
    explanation=(
        "The output must have the input's dtype. Computing in float32 or float64 for precision "
        "is fine, but cast the result back with .to(x.dtype) (or .type_as(x)); never hard-code "
        "a dtype."
    ),
    title_zh="输出的 dtype 与输入不一致",
    explanation_zh=(
        "输出必须与输入的 dtype 相同。为了精度在 float32/float64 中计算没有问题，但最后要用 "
        ".to(x.dtype)（或 .type_as(x)）转换回去；不要写死 dtype。"
    ),
)


@dataclass(frozen=True)
class Comparison:
    passed: bool
    max_abs: float
    max_rel: float
    worst_index: list[int]
    allowed: float
    nonfinite: str | None = None


def _as_float64(case: Case) -> Case:
    return replace(
        case,
        x=case.x.double(),
        state=None if case.state is None else {k: v.double() for k, v in case.state.items()},
        grad_output=None if case.grad_output is None else case.grad_output.double(),
    )


def compare(
    actual: torch.Tensor,
    truth: torch.Tensor,
    native: torch.Tensor | None,
    dtype: torch.dtype,
    scale: float = 1.0,
    floor: float = 0.0,
) -> Comparison:
    """``actual`` against ``truth`` (float64), allowing what ``native`` (torch at ``dtype``) errs.

    ``floor`` bounds the magnitude the absolute tolerance is relative to, for a truth that is
    (numerically) zero: LayerNorm over a single feature has an input gradient of exactly zero,
    which a correct implementation reaches only up to rounding noise of the upstream gradient.
    """
    a, t = actual.detach().double(), truth.detach().double()
    if a.numel() == 0:
        return Comparison(True, 0.0, 0.0, [], 0.0)
    rtol, atol = TOLERANCES.get(dtype, TOLERANCES[torch.float32])
    t_abs = t.abs()
    # On the grading hot path: few tensor ops, each of which costs microseconds of overhead.
    magnitude = max(float(t_abs.nan_to_num(nan=0.0, posinf=0.0).max()), floor, 1e-12)
    ref_err = 0.0
    if native is not None and native is not truth:
        d = (native.detach().double() - t).abs_().nan_to_num_(nan=0.0, posinf=0.0)
        ref_err = float(d.max())
    allowed = t_abs * (rtol * scale) + (atol * magnitude * scale + REFERENCE_ERROR_FACTOR * ref_err)
    allowed.nan_to_num_(nan=math.inf)
    # Equal values (infinities included) and NaN where the reference has NaN count as no error.
    same = (a == t) | (a.isnan() & t.isnan())
    diff = (a - t).abs_().masked_fill_(same, 0.0).nan_to_num_(nan=math.inf)
    excess = diff - allowed
    flat = int(excess.argmax())
    passed = float(excess.reshape(-1)[flat]) <= 0
    nonfinite = None
    if not bool(a.isfinite().all()):
        if bool((a.isnan() & ~t.isnan()).any()):
            nonfinite = "NaN where the reference is finite"
        elif bool((a.isinf() & ~t.isinf()).any()):
            nonfinite = "inf where the reference is finite"
    rel = diff / t_abs.clamp_min(atol * magnitude)
    return Comparison(
        passed=passed and nonfinite is None,
        max_abs=float(diff.max()),
        max_rel=float(rel.max()),
        worst_index=_unravel(flat, list(a.shape)),
        allowed=float(allowed.reshape(-1)[flat]),
        nonfinite=nonfinite,
    )


def _unravel(flat: int, shape: list[int]) -> list[int]:
    index = []
    for size in reversed(shape):
        flat, i = divmod(flat, size)
        index.append(i)
    return index[::-1]


@dataclass
class Expected:
    native: harness.Outcome
    truth: harness.Outcome


def _outcome(factory: Any, case: Case) -> harness.Outcome:
    return harness.run_case(harness.instantiate(factory, case), case)


def expected_outcome(factory: Any, case: Case) -> Expected:
    """The factory's outcome at the case's dtype and, for precision, in float64."""
    native = _outcome(factory, case)
    # Dropout masks depend on the dtype's random stream: train-mode cases are compared as drawn.
    if case.x.dtype == torch.float64 or case.train:
        return Expected(native, native)
    return Expected(native, _outcome(factory, _as_float64(case)))


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


def _parameters_info(raw: object) -> dict[str, list[int]]:
    """Parameter names and shapes as the child reported them, or {} if they are malformed."""
    if not isinstance(raw, dict) or len(raw) > 1000:
        return {}
    found: dict[str, list[int]] = {}
    for name, shape in raw.items():
        if not (isinstance(shape, list) and all(isinstance(n, int) for n in shape)):
            return {}
        found[str(name)[:200]] = shape[:8]
    return found


def _fmt(v: float) -> str:
    return f"{v:.3g}"


@dataclass
class _CaseJudgement:
    checks: list[Check]
    error: dict[str, Any] | None = None
    parameters: dict[str, Any] | None = None  # set when they differ from the contract
    mutated: bool = False
    wrong_dtype: bool = False
    learner: dict[str, torch.Tensor] | None = None
    expected: Expected | None = None

    @property
    def passed(self) -> bool:
        return self.error is None and all(c.passed for c in self.checks) and bool(self.checks)


def _judge_case(
    spec: ExerciseSpec,
    case: Case,
    index: int,
    entry: Mapping[str, Any] | None,
    tensors: Mapping[str, torch.Tensor],
    expected: Expected,
) -> _CaseJudgement:
    def check(target: str, passed: bool, message: str, **kw: Any) -> Check:
        return Check(
            case=case.name,
            description=case.description,
            target=target,
            passed=passed,
            message=message,
            **kw,
        )

    if entry is None:
        return _CaseJudgement([check("run", False, "this case was never run")])
    if "error" in entry:
        err = error_info(entry["error"])
        return _CaseJudgement(
            [check("run", False, f"{err.get('type')}: {err.get('message')}")], error=err
        )
    ref_params = expected.native.parameters
    their_params = _parameters_info(entry.get("parameters"))
    if their_params != ref_params:
        return _CaseJudgement(
            [
                check(
                    "parameters",
                    False,
                    "parameters do not match the contract: expected "
                    + ", ".join(f"{k} {tuple(v)}" for k, v in ref_params.items())
                    + "; yours are "
                    + (", ".join(f"{k} {tuple(v)}" for k, v in their_params.items()) or "none"),
                )
            ],
            parameters=their_params,
        )
    judgement = _CaseJudgement([])
    out = tensors.get(f"{index}.output")
    ref_out = expected.truth.output
    assert ref_out is not None
    if out is None:
        what = str(entry.get("output_type", "nothing"))[:100]
        judgement.checks.append(check("output", False, f"forward returned {what}, not a tensor"))
        return judgement
    learner = {"output": out}
    shape_ok = list(out.shape) == list(ref_out.shape)
    dtype_ok = out.dtype == case.x.dtype
    if not shape_ok:
        judgement.checks.append(
            check(
                "output",
                False,
                f"output shape {tuple(out.shape)}, expected {tuple(ref_out.shape)}",
                shape=list(out.shape),
                dtype=wire.DTYPE_NAMES.get(out.dtype),
            )
        )
        return judgement
    if not dtype_ok:
        judgement.wrong_dtype = True
        judgement.checks.append(
            check(
                "output dtype",
                False,
                f"output dtype {wire.DTYPE_NAMES.get(out.dtype)}, expected "
                f"{wire.DTYPE_NAMES.get(case.x.dtype)} (the input's)",
                shape=list(out.shape),
                dtype=wire.DTYPE_NAMES.get(out.dtype),
            )
        )
    judgement.checks.append(
        _value_check(check, "output", out, ref_out, expected.native.output, case, spec)
    )
    after = tensors.get(f"{index}.input_after")
    if (
        after is None
        or after.shape != case.x.shape
        or not torch.equal(after.to(case.x.dtype), case.x)
    ):
        judgement.mutated = True
        judgement.checks.append(
            check("input unchanged", False, "forward modified its input tensor in place")
        )
    raw_missing = entry.get("missing_grads")
    missing = (
        {m for m in raw_missing if isinstance(m, str)} if isinstance(raw_missing, list) else set()
    )
    for name, ref_grad in expected.truth.grads.items():
        target = f"grad of {name}"
        theirs = tensors.get(f"{index}.grad.{name}")
        if ref_grad is None:
            continue
        if name in missing or theirs is None:
            judgement.checks.append(
                check(
                    target,
                    False,
                    f"no gradient reached {name}: it is not used in forward, or it is detached",
                )
            )
            continue
        if list(theirs.shape) != list(ref_grad.shape):
            judgement.checks.append(check(target, False, f"gradient shape {tuple(theirs.shape)}"))
            continue
        learner[f"grad.{name}"] = theirs
        judgement.checks.append(
            _value_check(
                check, target, theirs, ref_grad, expected.native.grads.get(name), case, spec
            )
        )
    judgement.learner = learner
    judgement.expected = expected
    return judgement


def _value_check(
    check: Callable[..., Check],
    target: str,
    actual: torch.Tensor,
    truth: torch.Tensor,
    native: torch.Tensor | None,
    case: Case,
    spec: ExerciseSpec,
) -> Check:
    cmp = compare(actual, truth, native, case.x.dtype, spec.tolerance_scale, _floor(case, target))
    if cmp.passed:
        message = f"matches (max error {_fmt(cmp.max_abs)}, allowed {_fmt(cmp.allowed)})"
    elif cmp.nonfinite:
        message = f"{cmp.nonfinite} (first at index {tuple(cmp.worst_index)})"
    else:
        idx = tuple(cmp.worst_index)
        message = (
            f"differs from the reference by up to {_fmt(cmp.max_abs)} (relative "
            f"{_fmt(cmp.max_rel)}) at index {idx}; allowed {_fmt(cmp.allowed)} there"
        )
    return check(
        target,
        cmp.passed,
        message,
        shape=list(actual.shape),
        dtype=wire.DTYPE_NAMES.get(actual.dtype),
        max_abs_error=_finite(cmp.max_abs),
        max_rel_error=_finite(cmp.max_rel),
        worst_index=cmp.worst_index,
        allowed_abs_error=_finite(cmp.allowed),
    )


def _floor(case: Case, target: str) -> float:
    """A magnitude below which an output or gradient counts as zero: a thousandth of what
    flows in (the input for the output, the upstream gradient for gradients)."""
    source = case.x if target == "output" or case.grad_output is None else case.grad_output
    return 1e-3 * float(source.detach().abs().max()) if source.numel() else 0.0


def _outcome_tensors(outcome: harness.Outcome) -> dict[str, torch.Tensor]:
    found = {} if outcome.output is None else {"output": outcome.output.detach()}
    found.update({f"grad.{k}": g for k, g in outcome.grads.items() if g is not None})
    return found


def _matches(
    mistake: KnownMistake, cases: Sequence[tuple[Case, dict[str, torch.Tensor], Expected]]
) -> bool:
    """Does the learner's outcome agree with this mistake's on every failing case, and does the
    mistake differ from the reference on at least one of them (else agreeing means nothing)?"""
    informative = False
    for case, learner, reference in cases:
        try:
            expected = expected_outcome(mistake.build, case)
        except Exception:
            return False
        truth, native = _outcome_tensors(expected.truth), _outcome_tensors(expected.native)
        ref_truth, ref_native = (
            _outcome_tensors(reference.truth),
            _outcome_tensors(reference.native),
        )
        if "output" not in truth:
            return False
        for key, actual in learner.items():
            if key not in truth or truth[key].shape != actual.shape:
                return False
            floor = _floor(case, "output" if key == "output" else "grad")
            dtype = case.x.dtype
            # A numerical mistake (E[x^2] - E[x]^2 in float32) shows only at the case's dtype:
            # agreeing with the mistake's run at that dtype counts as much as with its float64 run.
            candidates = [truth[key]] + ([native[key]] if key in native else [])
            if not any(compare(actual, c, None, dtype, 1.0, floor).passed for c in candidates):
                return False
            if key in ref_truth and any(
                not compare(c, ref_truth[key], ref_native.get(key), dtype, 1.0, floor).passed
                for c in candidates
            ):
                informative = True
    return informative


def _structural_match(
    spec: ExerciseSpec, case: Case, parameters: Mapping[str, Any]
) -> KnownMistake | None:
    for mistake in spec.mistakes:
        try:
            module = harness.instantiate(mistake.build, case)
        except Exception:
            continue
        shapes = {k: list(p.shape) for k, p in module.named_parameters()}
        if shapes == dict(parameters):
            return mistake
    return None


def _diagnosis(m: KnownMistake) -> Diagnosis:
    return Diagnosis(
        name=m.name,
        title=m.title,
        explanation=m.explanation,
        title_zh=m.title_zh,
        explanation_zh=m.explanation_zh,
    )


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
) -> Verdict:
    """The verdict on what the child answered. Never trusts the child's claims about itself."""
    if timed_out:
        return Verdict(
            status="timeout",
            message=f"Your code ran longer than the {time_limit:g} s limit and was stopped. "
            "Look for an infinite loop or a very slow Python-level loop over elements.",
        )
    if truncated:
        return Verdict(status="failed", message="Your code produced more output than the limit.")
    try:
        header, blob = wire.split(body)
        tensors = wire.decode_tensors(header, blob)
    except wire.WireError as exc:
        cause = f" (killed by {signal})" if signal else ""
        return Verdict(
            status="crashed",
            message=f"Your code ended the process before it answered{cause}. "
            "Look for os._exit, sys.exit, a segfault in a C call, or memory exhaustion.",
            error={"detail": str(exc)[:200], "signal": signal},
        )
    stdout, stderr = str(header.get("stdout", ""))[:10000], str(header.get("stderr", ""))[:10000]
    base: dict[str, Any] = {"stdout": stdout, "stderr": stderr, "cases_total": len(cases)}
    # Only names the spec bans count (and are echoed): the child could report anything.
    reported = header.get("banned_calls")
    reported = reported if isinstance(reported, list) else []
    banned = [b for b in spec.banned if b in reported]
    if banned:
        names = ", ".join(b.replace("torch.nn.functional.", "F.") for b in banned)
        return Verdict(
            status="rejected",
            message=f"Your code called {names}, which does the whole job this exercise asks "
            "you to write. Implement it from tensor ops.",
            **base,
        )
    if header.get("load_error"):
        err = error_info(header["load_error"])
        where = f" at line {err.get('line')}" if err.get("line") else ""
        return Verdict(
            status="error",
            message=f"Your code raised {err.get('type')}{where} while loading: "
            f"{err.get('message')}",
            error=err,
            **base,
        )
    if header.get("missing_class") or header.get("not_a_module"):
        return Verdict(
            status="error",
            message=f"Your code must define `class {spec.class_name}(nn.Module)`.",
            **base,
        )
    entries = header.get("cases")
    entries = entries if isinstance(entries, list) else []
    checks: list[Check] = []
    judgements: list[tuple[Case, _CaseJudgement]] = []
    for i, case in enumerate(cases):
        entry = entries[i] if i < len(entries) and isinstance(entries[i], dict) else None
        if entry is not None and entry.get("name") != case.name:
            entry = None
        reference = expected[i] if expected is not None else expected_outcome(spec.reference, case)
        j = _judge_case(spec, case, i, entry, tensors, reference)
        judgements.append((case, j))
        checks.extend(j.checks)
    passed = sum(j.passed for _, j in judgements)
    base.update(cases_passed=passed, checks=checks)
    if passed == len(cases) and cases:
        used = max(
            ((c.max_abs_error or 0.0) / c.allowed_abs_error for c in checks if c.allowed_abs_error),
            default=0.0,
        )
        return Verdict(
            status="passed",
            message=f"All {len(cases)} cases passed: outputs and gradients match the reference "
            f"(the closest call used {used:.0%} of its tolerance).",
            **base,
        )
    failing = [(c, j) for c, j in judgements if not j.passed]
    first_case, first = failing[0]
    errored = next(((c, j) for c, j in failing if j.error is not None), None)
    if errored is not None:
        case, j = errored
        err = j.error or {}
        where = f" at line {err.get('line')} of your code" if err.get("line") else ""
        return Verdict(
            status="error",
            message=f"Your code raised {err.get('type')}{where} on case '{case.name}' "
            f"({case.description}): {err.get('message')}",
            error=err,
            **base,
        )
    first_check = next(c for c in first.checks if not c.passed)
    message = (
        f"{len(failing)} of {len(cases)} cases failed. First: '{first_case.name}' "
        f"({first_case.description}): {first_check.target} {first_check.message}."
    )
    diagnosis = _diagnose(spec, failing)
    if diagnosis is not None:
        message += f" This looks like a known mistake: {diagnosis.title}."
    return Verdict(status="failed", message=message, diagnosis=diagnosis, **base)


def _diagnose(
    spec: ExerciseSpec, failing: Sequence[tuple[Case, _CaseJudgement]]
) -> Diagnosis | None:
    if any(j.mutated for _, j in failing):
        return IN_PLACE
    if any(j.wrong_dtype for _, j in failing):
        return WRONG_DTYPE
    structural = next(((c, j) for c, j in failing if j.parameters is not None), None)
    if structural is not None:
        case, j = structural
        assert j.parameters is not None
        mistake = _structural_match(spec, case, j.parameters)
        return None if mistake is None else _diagnosis(mistake)
    comparable = [(c, j.learner, j.expected) for c, j in failing if j.learner and j.expected][
        :MAX_DIAGNOSIS_CASES
    ]
    if not comparable:
        return None
    for mistake in spec.mistakes:
        if _matches(mistake, comparable):
            return _diagnosis(mistake)
    return None

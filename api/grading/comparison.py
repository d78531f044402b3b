"""Comparing a value with the reference: the tolerances, the reference side of a comparison
(``Prepared``, ``Expected``) and the comparison itself.

Both the verdict (``verdict``) and the diagnosis (``diagnosis``) compare; the verdict also
calls the diagnosis. So the comparison lives here, below both, and neither of them imports the
other to reach it: the verdict imports the diagnosis, the diagnosis imports only this.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import torch

from api.grading import harness
from api.grading.spec import Call, Case, ExerciseSpec, Step, Update

# dtype -> (relative tolerance, absolute tolerance as a fraction of the output's magnitude)
TOLERANCES: dict[torch.dtype, tuple[float, float]] = {
    torch.float32: (2e-4, 2e-5),
    # Loose enough for float32 internals (Llama-style RMSNorm computes in float32); a spec that
    # does not admit them scales it down to float64's own (``ExerciseSpec.tolerance``).
    torch.float64: (1e-5, 2e-6),
    torch.bfloat16: (3e-2, 2e-2),
    torch.float16: (5e-3, 2e-3),
}
REFERENCE_ERROR_FACTOR = 8.0
# The rounding a correct implementation's internals do, relative: float64's own for a float64
# case, float32's for every other (half-precision inputs are computed in float32 inside, as the
# prompts ask). A spec that admits float32 internals for float64 input says so through its
# float64 tolerance (``ExerciseSpec.tolerance``), which already covers them.
FLOAT32_ROUNDOFF = 2.0**-23
FLOAT64_ROUNDOFF = 2.0**-52


@dataclass(frozen=True)
class Comparison:
    passed: bool
    max_abs: float
    max_rel: float
    worst_index: list[int]
    allowed: float
    nonfinite: str | None = None


def _double(t: torch.Tensor) -> torch.Tensor:
    return t.double() if t.is_floating_point() else t


def _as_float64(case: Case) -> Case:
    steps: list[Step] = []
    for step in case.scenario:
        if isinstance(step, Update):
            steps.append(replace(step, deltas={k: _double(v) for k, v in step.deltas.items()}))
        else:
            steps.append(
                replace(
                    step,
                    inputs=tuple(_double(t) for t in step.inputs),
                    grad_outputs=None
                    if step.grad_outputs is None
                    else tuple(_double(g) for g in step.grad_outputs),
                )
            )
    return replace(
        case,
        x=_double(case.x),
        state=None if case.state is None else {k: _double(v) for k, v in case.state.items()},
        grad_output=None if case.grad_output is None else case.grad_output.double(),
        steps=tuple(steps),
    )


@dataclass(frozen=True)
class Summary:
    """What ``compare`` reduces the reference side to (its magnitude, the offset of the error
    allowed, whether both are finite): a few numbers, kept where the arrays would cost too much
    memory (a known mistake's outcomes, ``diagnosis``)."""

    magnitude: float
    offset: float
    finite: bool


@dataclass(frozen=True)
class Prepared:
    """What ``compare`` derives from the reference alone for one tensor at one tolerance: the
    reference in float64 and the error allowed at each element. It depends on the case set,
    not on the code submitted, so a shared set keeps it (``Expected.prepared``) and each
    verdict widens only its own output; read-only, shared between verdicts.

    ``finite`` is False when the reference itself (or its native run's error) is not finite,
    or the largest allowed error overflows: then ``compare`` takes its general path."""

    truth: np.ndarray
    native: torch.Tensor | None
    allowed: np.ndarray
    denominator: np.ndarray
    finite: bool
    rtol: float
    atol: float
    scale: float
    floor: float
    spread: float = 0.0


def summarise(
    truth: torch.Tensor,
    native: torch.Tensor | None,
    dtype: torch.dtype,
    scale: float = 1.0,
    floor: float = 0.0,
) -> Summary:
    """``prepare``'s reductions alone."""
    t = _float64_array(truth)
    with np.errstate(all="ignore"):
        return _summary(t, np.abs(t), _native_kept(truth, native), dtype, scale, floor, 0.0)


def _native_kept(truth: torch.Tensor, native: torch.Tensor | None) -> torch.Tensor | None:
    return None if native is None or native is truth else native


def _summary(
    t: np.ndarray,
    t_abs: np.ndarray,
    native: torch.Tensor | None,
    dtype: torch.dtype,
    scale: float,
    floor: float,
    spread: float,
) -> Summary:
    rtol, atol = TOLERANCES.get(dtype, TOLERANCES[torch.float32])
    n = None if native is None else _float64_array(native)
    t_max = float(t_abs.max()) if t.size else 0.0
    magnitude = max(t_max, floor, 1e-12)
    ref_err = spread
    if n is not None and n.shape == t.shape and t.size:
        ref_err = max(float(np.abs(n - t).max()), spread)
    offset = atol * magnitude * scale + REFERENCE_ERROR_FACTOR * ref_err
    # The largest allowed error, exactly: rounding is monotonic, so the largest |t| gives it.
    finite = (
        (n is None or n.shape == t.shape)
        and math.isfinite(ref_err)
        and math.isfinite(t_max * (rtol * scale) + offset)
    )
    return Summary(magnitude, offset, finite)


def _allowed(t_abs: np.ndarray, rtol: float, scale: float, summary: Summary) -> np.ndarray:
    """The error allowed at each element: one formula for ``prepare`` and ``nearness``, whose
    figures must agree to the last bit."""
    allowed: np.ndarray = t_abs * (rtol * scale) + summary.offset
    return allowed


def prepare(
    truth: torch.Tensor,
    native: torch.Tensor | None,
    dtype: torch.dtype,
    scale: float = 1.0,
    floor: float = 0.0,
    *,
    summary: Summary | None = None,
    spread: float = 0.0,
) -> Prepared:
    """``compare``'s reference side: see ``Prepared``. ``summary``: ``summarise`` of the same
    arguments, made earlier (its reductions are then not done again). ``spread``: how far the
    reference itself moves when its inputs are rounded (``Expected.spread``), allowed like the
    native run's error, whichever is larger."""
    rtol, atol = TOLERANCES.get(dtype, TOLERANCES[torch.float32])
    t = _float64_array(truth)
    keep = _native_kept(truth, native)
    with np.errstate(all="ignore"):
        t_abs = np.abs(t)
        if summary is None:
            summary = _summary(t, t_abs, keep, dtype, scale, floor, spread)
        allowed = _allowed(t_abs, rtol, scale, summary)
        denominator = np.maximum(t_abs, atol * summary.magnitude)
    for array in (t, allowed, denominator):
        if isinstance(array, np.ndarray):  # a 0-d input gives numpy scalars, immutable anyway
            array.flags.writeable = False
    return Prepared(t, keep, allowed, denominator, summary.finite, rtol, atol, scale, floor, spread)


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
    return compare_prepared(actual, prepare(truth, native, dtype, scale, floor))


def compare_prepared(actual: torch.Tensor, p: Prepared) -> Comparison:
    """``compare`` against a reference side made earlier by ``prepare``: the same result."""
    # On the grading hot path (about 60 comparisons per verdict, on small tensors): in numpy,
    # whose per-operation overhead is a fraction of torch's; float64 throughout, the same
    # operations in the same order as torch would do them, so the figures are the same.
    return compare_array(_float64_array(actual), p)


def compare_array(a: np.ndarray, p: Prepared) -> Comparison:
    """``compare_prepared`` of a value already widened by ``_float64_array``."""
    t = p.truth
    if a.shape != t.shape:
        # Never broadcast: a gradient of shape (B, T, D) where (D,) is due is wrong, whatever its
        # values (callers that name shapes check them first; diagnosis compares raw gradients).
        return Comparison(
            False, math.inf, math.inf, [], 0.0, nonfinite=f"shape {a.shape} where {t.shape} is due"
        )
    if a.size == 0:
        return Comparison(True, 0.0, 0.0, [], 0.0)
    if p.finite:
        with np.errstate(all="ignore"):
            finite = _compare_finite(a, p)
        if finite is not None:
            return finite
    rtol, atol, scale, floor = p.rtol, p.atol, p.scale, p.floor
    shape = list(a.shape)
    # A 0-d value (a loss) gives numpy scalars below, which the masks cannot assign into.
    a, t = np.atleast_1d(a), np.atleast_1d(t)
    n = None if p.native is None else np.atleast_1d(_float64_array(p.native))
    with np.errstate(all="ignore"):
        t_abs = np.abs(t)
        magnitude = max(float(np.nan_to_num(t_abs, nan=0.0, posinf=0.0).max()), floor, 1e-12)
        ref_err = p.spread
        if n is not None:
            ref_err = max(float(np.nan_to_num(np.abs(n - t), nan=0.0, posinf=0.0).max()), ref_err)
        allowed = t_abs * (rtol * scale) + (
            atol * magnitude * scale + REFERENCE_ERROR_FACTOR * ref_err
        )
        allowed = np.nan_to_num(allowed, nan=math.inf)
        # Where the reference is infinite (a masked logit's log-probability) only that same
        # infinity is right: the relative tolerance there would be infinite and pass any value.
        t_inf = np.isinf(t)
        allowed[t_inf] = 0.0
        # Equal values (infinities included) and NaN where the reference has NaN: no error.
        a_nan, t_nan = np.isnan(a), np.isnan(t)
        same = (a == t) | (a_nan & t_nan)
        diff = np.abs(a - t)
        diff[same] = 0.0
        diff = np.nan_to_num(diff, nan=math.inf)
        excess = (diff - allowed).reshape(-1)
        flat = int(excess.argmax())
        passed = float(excess[flat]) <= 0
        nonfinite = None
        if not bool(np.isfinite(a).all()):
            if bool((a_nan & ~t_nan).any()):
                nonfinite = "NaN where the reference is finite"
            elif bool((np.isinf(a) & ~t_inf).any()):
                nonfinite = "inf where the reference is finite"
        if nonfinite is None and bool((t_inf & (a != t)).any()):
            nonfinite = "a different value where the reference is infinite"
        rel = diff / np.maximum(t_abs, atol * magnitude)
    return Comparison(
        passed=passed and nonfinite is None,
        max_abs=float(diff.max()),
        max_rel=float(rel.max()),
        worst_index=_unravel(flat, shape),
        allowed=float(allowed.reshape(-1)[flat]),
        nonfinite=nonfinite,
    )


def _float64_array(t: torch.Tensor) -> np.ndarray:
    plain = t.detach()
    if plain.dtype == torch.float32:  # widened exactly as torch would, at half the overhead
        return plain.numpy(force=True).astype(np.float64)
    return plain.double().numpy(force=True)


def _compare_finite(a: np.ndarray, p: Prepared) -> Comparison | None:
    """``compare`` where every value is finite (nearly always): none of its masks and
    replacements change anything there, so they are skipped. None when a value of ``a`` is not
    finite: then the general path decides (``p.finite`` vouches for the reference's side).

    Called with errors ignored. It runs hundreds of times per failing verdict, so it checks
    finiteness through its results, not with a pass over the input: a NaN or infinity in ``a``
    makes the largest error non-finite (numpy's max propagates NaN)."""
    diff = np.abs(a - p.truth)
    max_abs = float(diff.max())
    if not math.isfinite(max_abs):
        return None
    excess = diff - p.allowed
    flat = int(excess.argmax())
    rel = diff / p.denominator
    return Comparison(
        passed=excess.item(flat) <= 0,
        max_abs=max_abs,
        max_rel=float(rel.max()),
        worst_index=_unravel(flat, list(a.shape)),
        allowed=p.allowed.item(flat),
    )


@dataclass(frozen=True)
class Nearness:
    """What diagnosis reads of a comparison: whether it passed, the largest error, and the
    error allowed where the error most exceeds it (``Comparison``'s fields of those names)."""

    passed: bool
    max_abs: float
    allowed: float


def nearness(
    a: np.ndarray,
    side: torch.Tensor,
    allowance: torch.Tensor | None,
    dtype: torch.dtype,
    scale: float,
    floor: float,
    summary: Summary,
) -> Nearness:
    """``compare_array(a, prepare(side, allowance, dtype, scale, floor, summary=summary))``
    reduced to ``Nearness``, the same figures. Diagnosis holds one learner's tensors against
    dozens of mistakes' outcomes: where both sides are finite (nearly always) it computes
    only what those figures need (not the whole ``Prepared``, nor the relative error)."""
    if summary.finite and a.size and a.shape == tuple(side.shape):
        rtol, _atol = TOLERANCES.get(dtype, TOLERANCES[torch.float32])
        t = _float64_array(side)
        with np.errstate(all="ignore"):
            diff = np.abs(a - t)
            max_abs = float(diff.max())
            if math.isfinite(max_abs):  # else a NaN or inf in ``a``: the general path below
                # As ``_compare_finite`` computes them from ``prepare``'s side.
                allowed = _allowed(np.abs(t), rtol, scale, summary)
                excess = diff - allowed
                flat = int(excess.argmax())
                return Nearness(excess.item(flat) <= 0, max_abs, allowed.item(flat))
    full = compare_array(a, prepare(side, allowance, dtype, scale, floor, summary=summary))
    return Nearness(full.passed, full.max_abs, full.allowed)


def learner_array(t: torch.Tensor) -> np.ndarray:
    """``t`` widened as every comparison widens it, read-only so that it can be shared."""
    a = _float64_array(t)
    a.flags.writeable = False
    return a


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
    # The floors of the case's checks (``_floor_for``) by step and gradient-or-not: they depend
    # on the case alone, and a reference outcome lives as long as its case set (``casesets``).
    floors: dict[tuple[int, bool], float] = field(default_factory=dict)
    # ``compare``'s reference side by tensor key and tolerance scale (``Prepared``).
    _prepared: dict[tuple[str, float, bool], Prepared] = field(default_factory=dict)
    # By tensor key: how far the float64 reference moves when the case's inputs carry the
    # rounding of a correct implementation's internals (``reference_outcome``). Empty for a
    # mistake's outcome, which the diagnosis compares without allowances.
    spread: dict[str, float] = field(default_factory=dict)

    def floor(self, case: Case, key: str) -> float:
        """``_floor_for(case, key)``, computed once per step and kind of check."""
        k_str, _, rest = key.partition(".")
        memo = (int(k_str) if k_str.isdigit() else 0, rest.startswith("grad."))
        if memo not in self.floors:
            self.floors[memo] = _floor_for(case, key)
        return self.floors[memo]

    def prepared(self, case: Case, key: str, scale: float, *, allowance: bool = True) -> Prepared:
        """``prepare`` for the tensor ``key`` at ``scale``, made once per case set: with the
        native run's error allowed (a verdict's checks), or without (``allowance=False``)."""
        memo = (key, scale, allowance)
        found = self._prepared.get(memo)
        if found is None:
            truth = self.truth.tensors[key]
            native = self.native.tensors.get(key) if allowance else None
            found = prepare(
                truth,
                native,
                case.dtype,
                scale,
                self.floor(case, key),
                spread=self.spread.get(key, 0.0) if allowance else 0.0,
            )
            self._prepared[memo] = found
        return found


def _outcome(factory: Any, case: Case, spec: ExerciseSpec | None) -> harness.Outcome:
    kind = spec.kind if spec is not None else "module"
    return harness.run_case(harness.instantiate(factory, case, kind), case)


def is_stochastic(case: Case) -> bool:
    """Random but reproducible: compared as drawn at the case's dtype (dropout masks depend on
    the dtype's random stream), never against a float64 rerun."""
    return case.stochastic or (not case.steps and case.train)


def expected_outcome(factory: Any, case: Case, spec: ExerciseSpec | None = None) -> Expected:
    """The factory's outcome at the case's dtype and, for precision, in float64."""
    return _expected(factory, case, spec, None)


def _expected(factory: Any, case: Case, spec: ExerciseSpec | None, wide: Case | None) -> Expected:
    """``expected_outcome``, given the case already widened to float64 where the caller has it
    (``reference_outcome`` widens it once for two runs)."""
    native = _outcome(factory, case, spec)
    if case.dtype == torch.float64 or is_stochastic(case):
        return Expected(native, native)
    return Expected(
        native, _outcome(factory, wide if wide is not None else _as_float64(case), spec)
    )


def reference_outcome(spec: ExerciseSpec, case: Case) -> Expected:
    """``expected_outcome`` of the spec's reference, with its ``spread``.

    The native run's error is one implementation's rounding; another correct one rounds
    elsewhere. Where the problem is ill-conditioned that difference is large: on a constant row
    LayerNorm divides ``x - mean`` by ``sqrt(eps)``, so a mean off by one rounding (a matmul
    with ``ones / D`` instead of ``x.mean``) moves the output three hundred times more, while
    torch's own mean happens to be exact. So the reference is run once more in float64 on inputs
    each moved by one ulp of the internals' precision, and the distance to the
    truth is allowed like the native run's error: a tolerance that follows the problem's
    condition, not one implementation's luck. Well-conditioned cases move by about a rounding
    (far below the tolerance); a mistake moves them by far more."""
    if is_stochastic(case):
        return expected_outcome(spec.reference, case, spec)
    # Widened once for both float64 runs: a run never changes a case's tensors in place (the
    # harness copies inputs and state into its own), and the moved run's inputs are new ones.
    wide = _as_float64(case)
    expected = _expected(spec.reference, case, spec, wide)
    roundoff = FLOAT64_ROUNDOFF if case.dtype == torch.float64 else FLOAT32_ROUNDOFF
    moved = _outcome(spec.reference, _jittered(wide, roundoff), spec)
    for key, truth in expected.truth.tensors.items():
        other = moved.tensors.get(key)
        if (
            other is None
            or not truth.is_floating_point()
            or other.shape != truth.shape
            or other.dtype != truth.dtype
        ):
            continue
        with np.errstate(all="ignore"):
            gap = np.abs(_float64_array(other) - _float64_array(truth))
            # The largest finite gap (NaN and inf count as 0), without a cleaned copy of it.
            worst = float(np.max(gap, where=np.isfinite(gap), initial=0.0))
        expected.spread[key] = worst
    return expected


def _jittered(case: Case, roundoff: float) -> Case:
    """``case`` (float64) with each floating input of each call multiplied by ``1 + roundoff *
    r``, ``r`` a random sign from a fixed seed: reproducible, so the tolerance is too. A sign,
    not a uniform draw: every element moves by the whole ulp, as a rounded reduction's error
    reaches every element of its row."""
    gen = torch.Generator().manual_seed(0)

    def moved(t: torch.Tensor) -> torch.Tensor:
        if not t.is_floating_point() or t.numel() == 0:
            return t
        r = torch.randint(0, 2, t.shape, generator=gen).to(torch.float64) * 2 - 1
        return t * (1 + roundoff * r)

    steps = tuple(
        replace(step, inputs=tuple(moved(t) for t in step.inputs))
        if isinstance(step, Call)
        else step
        for step in case.scenario
    )
    return replace(case, steps=steps)


def _floor_for(case: Case, key: str) -> float:
    """A magnitude below which an output or gradient counts as zero: a thousandth of what
    flows in (the input for outputs and buffers, the upstream gradient for gradients)."""
    k_str, _, rest = key.partition(".")
    k = int(k_str) if k_str.isdigit() else 0
    steps = case.scenario
    step = steps[k] if k < len(steps) else None
    if not isinstance(step, Call):
        return 0.0
    sources = list(step.inputs[:1])
    if rest.startswith("grad.") and step.grad_outputs is not None:
        sources = list(step.grad_outputs)
    # The largest *finite* magnitude: an input with -inf entries (a mask, a masked chunk)
    # must not make the floor infinite, which would allow any error on every element.
    m = max((_finite_max(t) for t in sources if t.numel()), default=0.0)
    return 1e-3 * m


def _finite_max(t: torch.Tensor) -> float:
    a = t.detach().abs()
    m = float(a.max())
    if math.isfinite(m) or not a.is_floating_point():
        return m  # nearly always: one reduction, as before
    finite = a[a.isfinite()]
    return float(finite.max()) if finite.numel() else 0.0

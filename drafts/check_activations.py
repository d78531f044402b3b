"""Proves the activation drafts against PyTorch, in-process, before they meet the platform.

Run: ``.venv/bin/python drafts/check_activations.py`` (exit status 0 when every claim holds).

For each draft exercise (``silu_function``; ``gelu`` and ``softmax`` until they were wired) and each
seed it checks, on the draft's own edge-case families:

- the worked solution and every ``variants/passed_*.py`` match the reference (outputs and the
  gradient of ``x``, elementwise within the dtype's tolerance, NaN/inf in the same places) and
  reach no banned built-in;
- the starter fails;
- every known mistake differs from the reference on at least one case by a clear margin
  (``DIFFER`` times the tolerance), and differs from every other mistake on a failing case, so a
  verdict can tell them apart;
- every ``variants/failed_*.py`` fails, and its named mistake reproduces it on a failing case
  (``in_place_mutation`` and ``wrong_output_dtype`` are the generic checks);
- every ``variants/rejected_*.py`` reaches a banned built-in, seen by a torch-function and an
  aten-dispatch recorder (the same two levels the grader's tripwires watch).

For ``silu_function`` it also checks that the learner's backward is the one autograd runs
(``grad_fn`` is the submitted class's node, its backward runs once per backward pass), that
something is saved with ``ctx.save_for_backward`` (seen by saved-tensor hooks), and that the
backward does not hand the work back to autograd (``torch.autograd.grad`` / ``.backward``).

The figures it prints (worst error ratio per mistake, elementwise and relative to the largest
reference value) say which mistakes a max-relative comparison would also catch.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import sys
import types
import warnings
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import torch
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode

DRAFTS = Path(__file__).resolve().parent
sys.path.insert(0, str(DRAFTS))

from _draft import REFERENCE_ERROR_FACTOR, TOLERANCE, Case, Mistake  # noqa: E402

EXERCISES = ("silu_function",)
SEEDS = (0, 1, 12345)
# A mistake must miss the truth by this many allowed errors on some case: clear of rounding.
DIFFER = 3.0
GENERIC_MISTAKES = ("in_place_mutation", "wrong_output_dtype")


# ---- running one implementation on one case --------------------------------------------


@dataclass
class Outcome:
    output: torch.Tensor | None = None
    grad: torch.Tensor | None = None
    error: str = ""
    mutated: bool = False
    banned: set[str] = field(default_factory=set)
    # autograd.Function exercises only.
    own_backward: bool = True
    backward_calls: int = 0
    saved: int = 0
    nested_autograd: bool = False


class _AtenRecorder(TorchDispatchMode):  # type: ignore[no-untyped-call]
    def __init__(self, watch: frozenset[str]) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        self.watch, self.hits = watch, set[str]()

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        name = func.overloadpacket.__name__
        if name in self.watch:
            self.hits.add(f"aten.{name}")
        return func(*args, **(kwargs or {}))


class _FunctionRecorder(TorchFunctionMode):
    def __init__(self, watch: frozenset[str]) -> None:
        super().__init__()
        self.watch, self.hits = watch, set[str]()

    def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        name = getattr(func, "__name__", "")
        if name in self.watch:
            self.hits.add(name)
        return func(*args, **(kwargs or {}))


@contextmanager
def recording(spec: types.ModuleType) -> Iterator[set[str]]:
    hits: set[str] = set()
    aten = _AtenRecorder(frozenset(spec.BANNED_ATEN))
    fn = _FunctionRecorder(frozenset(spec.BANNED_NAMES))
    with fn, aten:
        yield hits
    hits |= aten.hits | fn.hits


@dataclass
class Impl:
    """Something to grade: a module class, a dict of functions, or an autograd.Function."""

    label: str
    obj: Any


def call(spec: types.ModuleType, impl: Impl, case: Case, x: torch.Tensor) -> torch.Tensor:
    kind = spec.KIND
    if kind == "module":
        module = impl.obj(**case.kwargs)
        out = module(x)
    elif kind == "function":
        out = impl.obj[case.function](x, **case.kwargs)
    else:
        out = impl.obj.apply(x, **case.kwargs)
    if not isinstance(out, torch.Tensor):
        raise TypeError(f"returned {type(out).__name__}, not a tensor")
    return out


@contextmanager
def watching_backward(cls: Any, outcome: Outcome) -> Iterator[None]:
    """Count the learner's backward calls and any autograd call made from inside it."""
    original = cls.__dict__.get("backward")
    inner = [False]
    real_grad, real_backward = torch.autograd.grad, torch.autograd.backward

    def counted(ctx: Any, *grads: Any) -> Any:
        outcome.backward_calls += 1
        inner[0] = True
        try:
            return original.__func__(ctx, *grads)
        finally:
            inner[0] = False

    def spy(real: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if inner[0]:
                outcome.nested_autograd = True
            return real(*args, **kwargs)

        return wrapper

    if not isinstance(original, staticmethod):
        yield
        return
    cls.backward = staticmethod(counted)
    torch.autograd.grad = spy(real_grad)
    torch.autograd.backward = spy(real_backward)
    try:
        yield
    finally:
        cls.backward = original
        torch.autograd.grad = real_grad
        torch.autograd.backward = real_backward


def run(spec: types.ModuleType, impl: Impl, case: Case) -> Outcome:
    outcome = Outcome()
    x0 = case.x.detach().clone()
    x = case.x.detach().clone()
    is_function_class = spec.KIND == "autograd_function"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if case.grad_output is None:
                with torch.no_grad(), recording(spec) as hits:
                    out = call(spec, impl, case, x)
                outcome.mutated = not torch.equal(x.nan_to_num(), x0.nan_to_num()) or not (
                    torch.equal(x.isnan(), x0.isnan())
                )
            else:
                x.requires_grad_(True)
                packed = [0]

                def pack(t: torch.Tensor) -> torch.Tensor:
                    packed[0] += 1
                    return t

                watch = watching_backward(impl.obj, outcome) if is_function_class else None
                with recording(spec) as hits:
                    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
                        out = call(spec, impl, case, x)
                    if is_function_class:
                        node = out.grad_fn
                        outcome.own_backward = getattr(node, "_forward_cls", None) is impl.obj
                        outcome.saved = packed[0]
                    if watch is not None:
                        with watch:
                            torch.autograd.backward(out, case.grad_output)
                    else:
                        torch.autograd.backward(out, case.grad_output)
                outcome.grad = None if x.grad is None else x.grad.detach()
            outcome.output = out.detach()
            outcome.banned = hits
            if outcome.nested_autograd:
                outcome.banned.add("torch.autograd.grad/backward inside backward")
    except Exception as exc:  # a learner's code may raise anything; that is its outcome
        outcome.error = f"{type(exc).__name__}: {exc}"
    return outcome


# ---- comparing -------------------------------------------------------------------------


def excess(
    a: torch.Tensor | None,
    truth: torch.Tensor | None,
    native: torch.Tensor | None,
    dtype: torch.dtype,
) -> float:
    """max |a - truth| / allowed (the grader's rule, see ``_draft.TOLERANCE``); inf on any
    structural mismatch: one side missing, another shape, or a non-finite entry of either side
    not matched exactly by the other (stricter than the grader, which lets anything stand
    where the truth is inf)."""
    if a is None or truth is None:
        return 0.0 if a is None and truth is None else math.inf
    if a.shape != truth.shape:
        return math.inf
    a64, t64 = a.detach().double(), truth.detach().double()
    finite = t64.isfinite()
    if not torch.equal(a64.isfinite(), finite):
        return math.inf
    off = ~finite
    if not torch.equal(a64[off].isnan(), t64[off].isnan()) or not torch.equal(
        a64[off].nan_to_num(nan=0.0), t64[off].nan_to_num(nan=0.0)
    ):
        return math.inf
    if not finite.any():
        return 0.0
    rtol, atol = TOLERANCE[dtype]
    at, tt = a64[finite], t64[finite]
    magnitude = max(float(tt.abs().max()), 1e-12)
    ref_err = 0.0
    if native is not None and native.shape == truth.shape:
        ref_err = float((native.detach().double()[finite] - tt).abs().nan_to_num(nan=0.0).max())
    allowed = rtol * tt.abs() + atol * magnitude + REFERENCE_ERROR_FACTOR * ref_err
    return float(((at - tt).abs() / allowed).max())


def max_relative(a: torch.Tensor | None, b: torch.Tensor | None) -> float:
    """max |a - b| / max |b| over finite entries: a coarse figure for the report."""
    if a is None or b is None or a.shape != b.shape:
        return 0.0 if a is None and b is None else math.inf
    a64, b64 = a.detach().double(), b.detach().double()
    if not torch.equal(a64.isfinite(), b64.isfinite()):
        return math.inf
    finite = b64.isfinite()
    if not finite.any():
        return 0.0
    scale = float(b64[finite].abs().max())
    diff = float((a64[finite] - b64[finite]).abs().max())
    return diff / scale if scale > 0 else diff


@dataclass
class Expected:
    """The truth (the reference run in float64) and torch's own answer at the case's dtype."""

    truth: Outcome
    native: Outcome


def distance(got: Outcome, want: Expected | Outcome, case: Case) -> float:
    """How many allowed errors apart (<= 1: matches; inf: structurally apart). Against an
    ``Outcome`` (another mistake), no reference error is allowed for."""
    truth, native = (want.truth, want.native) if isinstance(want, Expected) else (want, None)
    if got.error or truth.error:
        return 0.0 if got.error and truth.error else math.inf
    if got.mutated != truth.mutated:
        return math.inf
    dtype = case.x.dtype
    return max(
        excess(got.output, truth.output, native.output if native else None, dtype),
        excess(got.grad, truth.grad, native.grad if native else None, dtype),
    )


def wrong_dtype(got: Outcome, case: Case) -> bool:
    return got.output is not None and got.output.dtype != case.x.dtype


def widened(case: Case) -> Case:
    g = None if case.grad_output is None else case.grad_output.double()
    return replace(case, x=case.x.double(), grad_output=g)


def faults(spec: types.ModuleType, got: Outcome, case: Case) -> list[str]:
    return function_class_faults(got, case) if spec.KIND == "autograd_function" else []


def function_class_faults(got: Outcome, case: Case) -> list[str]:
    if case.grad_output is None or got.error:
        return []
    faults = []
    if not got.own_backward:
        faults.append("grad_fn is not the submitted Function's node")
    if got.backward_calls != 1:
        faults.append(f"its backward ran {got.backward_calls} times, not once")
    if got.saved == 0:
        faults.append("nothing saved with ctx.save_for_backward")
    if got.nested_autograd:
        faults.append("backward called torch.autograd.grad/backward")
    return faults


# ---- loading -----------------------------------------------------------------------------


def load_spec(slug: str) -> types.ModuleType:
    path = DRAFTS / slug / "spec.py"
    module_spec = importlib.util.spec_from_file_location(f"draft_{slug}_spec", path)
    assert module_spec is not None and module_spec.loader is not None
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module


def load_submission(spec: types.ModuleType, path: Path) -> Impl:
    namespace: dict[str, Any] = {"__name__": "submission"}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    if spec.KIND == "function":
        return Impl(path.name, {name: namespace[name] for name in spec.FUNCTIONS})
    return Impl(path.name, namespace[spec.CLASS_NAME])


def reference_impl(spec: types.ModuleType) -> Impl:
    if spec.KIND == "function":
        return Impl("reference", dict(spec.REFERENCE))
    return Impl("reference", spec.reference)


def mistake_impl(spec: types.ModuleType, mistake: Mistake) -> Impl:
    if spec.KIND == "function":
        functions = dict(spec.REFERENCE)
        assert isinstance(mistake.build, Mapping)
        functions.update(mistake.build)
        return Impl(mistake.name, functions)
    return Impl(mistake.name, mistake.build)


# ---- the claims --------------------------------------------------------------------------


class Report:
    def __init__(self) -> None:
        self.failures: list[str] = []
        self.checks = 0

    def claim(self, ok: bool, message: str) -> None:
        self.checks += 1
        if not ok:
            self.failures.append(message)
            print(f"  FAIL {message}")


def expectation(path: Path) -> tuple[str, str]:
    first = path.read_text().splitlines()[0]
    assert first.startswith("# expect: "), f"{path}: first line must say what to expect"
    words = first.removeprefix("# expect: ").split()
    mistake = words[1].removeprefix("mistake=") if len(words) > 1 else ""
    return words[0], mistake


def check_exercise(slug: str, seeds: tuple[int, ...], report: Report) -> None:
    spec = load_spec(slug)
    ref = reference_impl(spec)
    folder = DRAFTS / slug
    names = [m.name for m in spec.MISTAKES]
    report.claim(len(set(names)) == len(names), f"{slug}: mistake names are unique")
    solution = load_submission(spec, folder / "solution.py")
    starter = load_submission(spec, folder / "starter.py")
    variants = sorted((folder / "variants").glob("*.py"))
    print(f"{slug}: {len(spec.MISTAKES)} mistakes, {len(variants)} variants, seeds {seeds}")
    worst_elementwise: dict[str, float] = dict.fromkeys(names, 0.0)
    worst_relative: dict[str, float] = dict.fromkeys(names, 0.0)
    for seed in seeds:
        cases: list[Case] = spec.make_cases(torch.Generator().manual_seed(seed))
        want = {c.name: Expected(run(spec, ref, widened(c)), run(spec, ref, c)) for c in cases}
        for c in cases:
            error = want[c.name].truth.error or want[c.name].native.error
            report.claim(not error, f"{slug}/{seed}/{c.name}: reference raised {error}")

        def correct(impl: Impl, cases: list[Case], want: dict[str, Expected], seed: int) -> None:
            for c in cases:
                got = run(spec, impl, c)
                d = distance(got, want[c.name], c)
                detail = got.error or f"{d:.3g} allowed errors"
                report.claim(d <= 1.0, f"{slug}/{seed}: {impl.label} on {c.name}: {detail}")
                report.claim(
                    got.output is None or got.output.dtype == c.x.dtype,
                    f"{slug}/{seed}: {impl.label} on {c.name}: output dtype",
                )
                report.claim(not got.banned, f"{slug}/{seed}: {impl.label} used {got.banned}")
                found = faults(spec, got, c)
                report.claim(not found, f"{slug}/{seed}: {impl.label} on {c.name}: {found}")

        correct(solution, cases, want, seed)
        for path in variants:
            if expectation(path)[0] == "passed":
                correct(load_submission(spec, path), cases, want, seed)

        # The starter fails on every case (it raises or returns something wrong).
        starter_ok = [distance(run(spec, starter, c), want[c.name], c) <= 1.0 for c in cases]
        report.claim(not any(starter_ok), f"{slug}/{seed}: the starter passes some case")

        # Every mistake differs from the reference, and from every other mistake where it fails.
        outcomes = {
            m.name: {c.name: run(spec, mistake_impl(spec, m), c) for c in cases}
            for m in spec.MISTAKES
        }
        for m in spec.MISTAKES:
            failing = []
            for c in cases:
                got = outcomes[m.name][c.name]
                d = distance(got, want[c.name], c)
                worst_elementwise[m.name] = max(worst_elementwise[m.name], d)
                if not got.error:
                    rel = max(
                        max_relative(got.output, want[c.name].truth.output),
                        max_relative(got.grad, want[c.name].truth.grad),
                    )
                    worst_relative[m.name] = max(worst_relative[m.name], rel)
                if d > DIFFER or (faults(spec, got, c)):
                    failing.append(c)
            report.claim(bool(failing), f"{slug}/{seed}: mistake {m.name} never differs")
            for other in spec.MISTAKES:
                if other.name == m.name:
                    continue
                apart = any(
                    distance(outcomes[m.name][c.name], outcomes[other.name][c.name], c) > DIFFER
                    or faults(spec, outcomes[m.name][c.name], c)
                    != faults(spec, outcomes[other.name][c.name], c)
                    for c in failing
                )
                report.claim(apart, f"{slug}/{seed}: {m.name} indistinguishable from {other.name}")

        # Failed variants fail, and their named mistake reproduces them on a failing case.
        for path in variants:
            expect, name = expectation(path)
            if expect != "failed":
                continue
            impl = load_submission(spec, path)
            runs = {c.name: run(spec, impl, c) for c in cases}
            failing = [
                c
                for c in cases
                if distance(runs[c.name], want[c.name], c) > 1.0
                or wrong_dtype(runs[c.name], c)
                or faults(spec, runs[c.name], c)
            ]
            report.claim(bool(failing), f"{slug}/{seed}: {path.name} passes every case")
            if name == "in_place_mutation":
                ok = any(runs[c.name].mutated for c in failing)
            elif name == "wrong_output_dtype":
                ok = any(wrong_dtype(runs[c.name], c) for c in failing)
            else:
                report.claim(name in names, f"{slug}: {path.name} names unknown mistake {name}")
                ok = name in names and any(
                    distance(runs[c.name], outcomes[name][c.name], c) <= 1.0
                    and faults(spec, runs[c.name], c) == faults(spec, outcomes[name][c.name], c)
                    and not runs[c.name].error
                    for c in failing
                )
            report.claim(ok, f"{slug}/{seed}: {path.name} is not reproduced by {name}")
            report.claim(
                not any(runs[c.name].banned for c in cases),
                f"{slug}/{seed}: {path.name} reaches a banned built-in",
            )

        # Rejected variants reach a banned built-in.
        for path in variants:
            if expectation(path)[0] != "rejected":
                continue
            impl = load_submission(spec, path)
            hits = set().union(*(run(spec, impl, c).banned for c in cases))
            report.claim(bool(hits), f"{slug}/{seed}: {path.name} reaches no banned built-in")
        print(f"  seed {seed}: {len(cases)} cases")
    if spec.KIND == "autograd_function":
        check_gradcheck(spec, solution, report)
    for name in names:
        print(
            f"  mistake {name:34s} worst {worst_elementwise[name]:10.3g} allowed errors "
            f"(elementwise), {worst_relative[name]:9.3g} (max-relative)"
        )


def gradcheck_passes(fn: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor) -> bool:
    try:
        return bool(torch.autograd.gradcheck(fn, (x,), raise_exception=False))
    except Exception:  # a mistake may raise inside gradcheck; that is a failure too
        return False


def check_gradcheck(spec: types.ModuleType, solution: Impl, report: Report) -> None:
    """An independent witness: torch.autograd.gradcheck (finite differences in float64)
    accepts the solution's backward and refuses every mistake whose derivative is wrong."""
    x = torch.linspace(-6.0, 6.0, 25, dtype=torch.float64).requires_grad_()
    report.claim(gradcheck_passes(solution.obj.apply, x), f"{spec.SLUG}: solution fails gradcheck")
    for m in spec.MISTAKES:
        if m.name in spec.GRADCHECK_BLIND:
            continue
        cls: Any = m.build
        report.claim(
            not gradcheck_passes(cls.apply, x), f"{spec.SLUG}: mistake {m.name} passes gradcheck"
        )
    print(
        f"  gradcheck: solution passes, {len(spec.MISTAKES) - len(spec.GRADCHECK_BLIND)} "
        f"mistakes refused ({', '.join(spec.GRADCHECK_BLIND)} right in value)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("exercises", nargs="*", default=list(EXERCISES))
    parser.add_argument("--seeds", type=int, nargs="*", default=list(SEEDS))
    args = parser.parse_args()
    torch.set_num_threads(1)
    report = Report()
    for slug in args.exercises:
        check_exercise(slug, tuple(args.seeds), report)
    print(f"{report.checks} checks, {len(report.failures)} failed")
    return 1 if report.failures else 0


if __name__ == "__main__":
    raise SystemExit(main())

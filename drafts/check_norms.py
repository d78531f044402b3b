"""Prove the norm drafts against PyTorch in-process: `.venv/bin/python drafts/check_norms.py`.

For every exercise and several seeds: the worked solution and every correct alternative match
the reference on every edge-case family (outputs, gradients, buffers); every known mistake
differs on each family it claims to fail on; every wrong variant and the starter differ somewhere.
"Match" is the grader's rule (api/grading/verdict.py): the error against a float64 truth stays
within the dtype's tolerance plus eight times the error of PyTorch's own kernel at that dtype.
Exits non-zero and prints what broke otherwise.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any

import torch

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))

# More seeds for a flakiness hunt: CHECK_SEEDS=50 .venv/bin/python drafts/check_norms.py
SEEDS = tuple(range(int(os.environ.get("CHECK_SEEDS", "8"))))
TOLERANCES = {
    torch.float32: (2e-4, 2e-5),
    torch.float64: (1e-5, 2e-6),
    torch.bfloat16: (3e-2, 2e-2),
    torch.float16: (5e-3, 2e-3),
}
REFERENCE_ERROR_FACTOR = 8.0

Trace = dict[str, torch.Tensor]


def load(path: Path) -> ModuleType:
    name = "draft_" + "_".join(path.relative_to(ROOT).with_suffix("").parts)
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def mismatch(
    actual: torch.Tensor, truth: torch.Tensor, native: torch.Tensor, dtype: torch.dtype
) -> str | None:
    """Why ``actual`` does not behave like the reference, or None (the grader's tolerance rule)."""
    if actual.shape != truth.shape:
        return f"shape {tuple(actual.shape)}, expected {tuple(truth.shape)}"
    if not truth.is_floating_point():
        return None if torch.equal(actual, truth) else f"{actual.tolist()} != {truth.tolist()}"
    if actual.dtype != native.dtype:
        return f"dtype {actual.dtype}, expected {native.dtype}"
    a, t = actual.detach().double(), truth.detach().double()
    if a.numel() == 0:
        return None
    rtol, atol = TOLERANCES[dtype]
    t_abs = t.abs()
    magnitude = max(float(t_abs.nan_to_num(nan=0.0, posinf=0.0).max()), 1e-12)
    ref_err = float((native.detach().double() - t).abs().nan_to_num(nan=0.0, posinf=0.0).max())
    allowed = (t_abs * rtol + atol * magnitude + REFERENCE_ERROR_FACTOR * ref_err).nan_to_num(
        nan=torch.inf
    )
    same = (a == t) | (a.isnan() & t.isnan())
    diff = (a - t).abs().masked_fill(same, 0.0).nan_to_num(nan=torch.inf)
    if bool((diff > allowed).any()):
        return f"max abs error {float(diff.max()):.3g} (allowed about {float(allowed.max()):.3g})"
    return None


def compare(actual: Trace | str, truth: Trace, native: Trace, dtype: torch.dtype) -> list[str]:
    if isinstance(actual, str):
        return [actual]
    problems = []
    for key, t in truth.items():
        if key not in actual:
            problems.append(f"{key}: missing")
            continue
        why = mismatch(actual[key], t, native[key], dtype)
        if why:
            problems.append(f"{key}: {why}")
    return problems


def differences(actual: Trace | str, other: Trace | str, dtype: torch.dtype) -> list[str]:
    """How two candidates (two known mistakes) differ: both raising counts as alike."""
    if isinstance(other, str):
        return [] if isinstance(actual, str) else [f"the other {other}"]
    return compare(actual, other, other, dtype)


def run_safely(fn: Callable[[], Trace]) -> Trace | str:
    try:
        return fn()
    except Exception as exc:  # a wrong variant may crash: that is a difference, not a failure here
        return f"raised {type(exc).__name__}: {str(exc)[:120]}"


# ---- modules run through scenarios (as batch_norm_1d and mixed_precision_norm were) ----


def trace_module(
    factory: Callable[..., torch.nn.Module], sc: Any, dtype: torch.dtype, seed: int
) -> Trace:
    """Run scenario ``sc`` with the module at ``dtype``; record everything the grader compares."""
    gen = torch.Generator().manual_seed(seed)
    # Parameters in the scenario's parameter dtype if it has one (float32 master weights with
    # half activations), else in the activations' dtype; the state is loaded as it is stored.
    param_dtype = getattr(sc, "param_dtype", None) or dtype
    module = factory(**sc.init_kwargs).to(param_dtype)
    if sc.state is not None:
        module.load_state_dict(
            {k: v.to(param_dtype) if v.is_floating_point() else v for k, v in sc.state.items()}
        )
    out: Trace = {}
    for i, step in enumerate(sc.steps):
        module.train(step.mode == "train")
        x = step.x.to(dtype).detach().requires_grad_(step.backward)
        y = module(x)
        out[f"step {i} ({step.mode}) output"] = y.detach().clone()
        if step.backward:
            dy = torch.randn(y.shape, generator=gen, dtype=torch.float64).to(y.dtype)
            y.backward(dy)
            assert x.grad is not None
            out[f"step {i} grad x"] = x.grad.clone()
            for name, p in module.named_parameters():
                if p.grad is not None:
                    out[f"step {i} grad {name}"] = p.grad.clone()
        for name, b in module.named_buffers():
            out[f"step {i} buffer {name}"] = b.detach().clone()
        with torch.no_grad():
            for p in module.parameters():
                if p.grad is not None and step.update_lr:
                    p.sub_(step.update_lr * p.grad)
                p.grad = None
    return out


def module_results(
    ref: Callable[..., torch.nn.Module], make: Callable[[torch.Generator], list[Any]]
) -> Callable[[Callable[..., Any], int], dict[str, list[str]]]:
    """family -> problems for a candidate and a seed (no problems: behaves like the reference)."""
    cache: dict[int, list[tuple[Any, Trace, Trace]]] = {}

    def references(seed: int) -> list[tuple[Any, Trace, Trace]]:
        if seed not in cache:
            cache[seed] = []
            for sc in make(torch.Generator().manual_seed(seed)):
                native = trace_module(ref, sc, sc.dtype, seed)
                truth = (
                    native
                    if sc.dtype == torch.float64
                    else trace_module(ref, sc, torch.float64, seed)
                )
                cache[seed].append((sc, truth, native))
        return cache[seed]

    def results(
        factory: Callable[..., Any], seed: int, against: Any = None
    ) -> dict[str, list[str]]:
        out = {}
        for sc, truth, native in references(seed):
            actual = run_safely(partial(trace_module, factory, sc, sc.dtype, seed))
            if against is not None:
                other = run_safely(partial(trace_module, against, sc, sc.dtype, seed))
                out[sc.family] = differences(actual, other, sc.dtype)
            else:
                out[sc.family] = compare(actual, truth, native, sc.dtype)
        return out

    return results


# ---- custom autograd Functions with a hand-written backward ----


def trace_function(
    apply: Callable[..., torch.Tensor], case: Any, dtype: torch.dtype, seed: int, owner: Any
) -> Trace:
    """One forward and backward through ``apply``; for a learner's Function (``owner``, None for
    the reference) also that its own backward is the one autograd uses, and that it returns
    input-shaped gradients."""
    gen = torch.Generator().manual_seed(seed)
    inputs = [case.x, case.weight] + ([case.bias] if case.bias is not None else [])
    leaves = [t.to(dtype).detach().requires_grad_(True) for t in inputs]
    y = apply(*leaves, case.eps)
    dy = torch.randn(y.shape, generator=gen, dtype=torch.float64).to(y.dtype)
    out: Trace = {"output": y.detach().clone()}
    if owner is not None:
        node: Any = y.grad_fn
        used = node is not None and getattr(node, "_forward_cls", None) is owner
        # The node's apply calls the Function's backward directly: the gradients exactly as
        # returned, before autograd reduces a broadcastable one to its input's shape.
        raw: tuple[Any, ...] = tuple(node.apply(dy)) if used else ()
        shaped = (
            len(raw) == len(leaves) + 1
            and all(g is not None and g.shape == t.shape for g, t in zip(raw, leaves, strict=False))
            and raw[-1] is None
        )
    else:
        used = shaped = True
    out["its own backward is used"] = torch.tensor(used)
    out["backward returns input-shaped gradients (None for eps)"] = torch.tensor(shaped)
    torch.autograd.backward(y, dy)
    for name, leaf in zip(("x", "weight", "bias"), leaves, strict=False):
        assert leaf.grad is not None
        out[f"grad {name}"] = leaf.grad.clone()
    return out


def function_results(
    ref: Callable[..., torch.Tensor], make: Callable[[torch.Generator], list[Any]]
) -> Callable[[Any, int], dict[str, list[str]]]:
    cache: dict[int, list[tuple[Any, Trace, Trace]]] = {}

    def references(seed: int) -> list[tuple[Any, Trace, Trace]]:
        if seed not in cache:
            cache[seed] = []
            for case in make(torch.Generator().manual_seed(seed)):
                native = trace_function(ref, case, case.dtype, seed, None)
                truth = (
                    native
                    if case.dtype == torch.float64
                    else trace_function(ref, case, torch.float64, seed, None)
                )
                cache[seed].append((case, truth, native))
        return cache[seed]

    def results(fn: Any, seed: int, against: Any = None) -> dict[str, list[str]]:
        out = {}
        for case, truth, native in references(seed):
            actual = run_safely(partial(trace_function, fn.apply, case, case.dtype, seed, fn))
            if against is not None:
                other = run_safely(
                    partial(trace_function, against.apply, case, case.dtype, seed, against)
                )
                out[case.family] = differences(actual, other, case.dtype)
            else:
                out[case.family] = compare(actual, truth, native, case.dtype)
        return out

    return results


def gradcheck(
    report: Report, slug: str, fn: Any, make: Callable[[torch.Generator], list[Any]]
) -> None:
    """The worked solution's backward is its forward's derivative (finite differences, float64)."""
    for case in make(torch.Generator().manual_seed(0))[:4]:
        inputs = [case.x, case.weight] + ([case.bias] if case.bias is not None else [])
        leaves = [t.double().detach().requires_grad_(True) for t in inputs]
        ok = torch.autograd.gradcheck(
            lambda *a, eps=case.eps: fn.apply(*a, eps), tuple(leaves), raise_exception=False
        )
        report.expect(ok, f"{slug}: gradcheck of the solution on {case.family}")


# ---- the harness for every exercise ----


class Report:
    def __init__(self) -> None:
        self.failures: list[str] = []
        self.checked = 0

    def expect(self, ok: bool, what: str) -> None:
        self.checked += 1
        if not ok:
            self.failures.append(what)


def check_exercise(
    report: Report,
    slug: str,
    results: Callable[..., dict[str, list[str]]],
    class_name: str,
) -> None:
    folder = ROOT / slug
    mistakes = load(folder / "mistakes.py").MISTAKES
    correct = sorted((folder / "variants").glob("correct_*.py"))
    wrong = sorted((folder / "variants").glob("wrong_*.py"))
    # Each mistake must be told apart from every other, or the grader cannot name it.
    for i, a in enumerate(mistakes):
        for b in mistakes[i + 1 :]:
            res = results(a.build, SEEDS[0], against=b.build)
            report.expect(any(res.values()), f"{slug}: mistakes {a.name} and {b.name} behave alike")
    for seed in SEEDS:
        for path in [folder / "solution.py", *correct]:
            res = results(getattr(load(path), class_name), seed)
            for family, problems in res.items():
                report.expect(
                    not problems, f"{slug} seed {seed}: {path.name} on {family}: {problems}"
                )
        for m in mistakes:
            res = results(m.build, seed)
            if seed == SEEDS[0]:
                bad = sorted(f for f, p in res.items() if p)
                first = res[bad[0]][0] if bad else ""
                print(f"  mistake {m.name}: differs on {bad}; e.g. {first}")
            for family in m.fails_on:
                report.expect(
                    bool(res.get(family)), f"{slug} seed {seed}: mistake {m.name} passes {family}"
                )
        for path in [folder / "starter.py", *wrong]:
            res = results(getattr(load(path), class_name), seed)
            if seed == SEEDS[0]:
                bad = sorted(f for f, p in res.items() if p)
                first = res[bad[0]][0] if bad else ""
                print(f"  {path.name}: differs on {bad}; e.g. {first}")
            report.expect(
                any(res.values()), f"{slug} seed {seed}: {path.name} behaves like the reference"
            )
    print(
        f"{slug}: solution + {len(correct)} correct alternatives, {len(mistakes)} mistakes, "
        f"{len(wrong)} wrong variants + starter, {len(SEEDS)} seeds"
    )


def layer_norm_backward(report: Report) -> None:
    folder = ROOT / "layer_norm_backward"
    ref = load(folder / "reference.py")
    gradcheck(
        report,
        "layer_norm_backward",
        load(folder / "solution.py").LayerNormFunction,
        ref.make_cases,
    )
    results = function_results(ref.reference, ref.make_cases)
    check_exercise(report, "layer_norm_backward", results, "LayerNormFunction")


def rms_norm_backward(report: Report) -> None:
    folder = ROOT / "rms_norm_backward"
    ref = load(folder / "reference.py")
    solution = load(folder / "solution.py").RMSNormFunction
    gradcheck(report, "rms_norm_backward", solution, ref.make_cases)
    results = function_results(ref.reference, ref.make_cases)
    check_exercise(report, "rms_norm_backward", results, "RMSNormFunction")


EXERCISES: dict[str, Callable[[Report], None]] = {
    "layer_norm_backward": layer_norm_backward,
    "rms_norm_backward": rms_norm_backward,
}


def main(argv: list[str]) -> int:
    report = Report()
    for slug, check in EXERCISES.items():
        if len(argv) > 1 and slug not in argv[1:]:
            continue
        check(report)
    for failure in report.failures:
        print("FAIL", failure)
    print(f"{report.checked} checks, {len(report.failures)} failed")
    return 1 if report.failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

"""A small in-process scenario runner for the drafts' checks (not the grader).

A case builds a module (constructor kwargs, then a strict load of the given state), then runs
steps: a call in train or eval mode under a fixed seed (so dropout draws the same mask in the
reference and the candidate), an optional backward with a given upstream gradient, and an
optional drawn parameter update (an optimiser step), so the next step sees changed weights.
Everything that a step produces (output, input gradient, parameter gradients, whether x was
mutated) is compared with dtype-aware tolerances.
"""

from __future__ import annotations

import importlib.util
import sys
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from torch import nn

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

# (rtol, atol relative to the reference's largest magnitude)
Tolerance = Mapping[torch.dtype, tuple[float, float]]
TOLERANCE: Tolerance = {
    torch.float64: (1e-9, 1e-11),
    torch.float32: (2e-5, 2e-6),
    torch.bfloat16: (2e-2, 1e-2),
    torch.float16: (2e-3, 1e-3),
}
UPDATE_STD = 0.05


def update_parameters(module: nn.Module, seed: int) -> None:
    """An optimiser-like step with drawn deltas, the same for every candidate.

    Drawn per parameter name (not from the gradients), so a wrong gradient does not cascade and
    the order in which a module registers its parameters does not matter.
    """
    with torch.no_grad():
        for name, p in module.named_parameters():
            g = torch.Generator().manual_seed(seed * 7919 + zlib.crc32(name.encode()))
            p.add_(torch.randn(p.shape, generator=g, dtype=torch.float64).to(p.dtype) * UPDATE_STD)


@dataclass(frozen=True)
class Step:
    x: torch.Tensor  # stored contiguous; `transpose` makes the module see x.transpose(-1, -2)
    train: bool = False
    grad: torch.Tensor | None = None  # upstream gradient; None runs under no_grad
    update: bool = False  # after backward: a drawn update of every parameter
    transpose: bool = False


@dataclass(frozen=True)
class ModuleCase:
    name: str
    init_kwargs: Mapping[str, Any]
    state: Mapping[str, torch.Tensor] | None
    steps: Sequence[Step]
    seed: int = 0
    # Parameters whose initial value is part of the contract (norm weights of ones), checked
    # right after construction, before `state` is loaded.
    defaults: Mapping[str, torch.Tensor] = field(default_factory=dict)


@dataclass(frozen=True)
class RaisesCase:
    """The constructor must raise ``error`` for these kwargs."""

    name: str
    init_kwargs: Mapping[str, Any]
    error: type[BaseException] = ValueError


def load_class(path: Path, name: str) -> Any:
    spec = importlib.util.spec_from_file_location(f"_cand_{path.stem}_{id(path)}", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return getattr(mod, name)


Record = dict[str, Any]


def run_module(build: Callable[..., Any], case: ModuleCase) -> list[Record] | str:
    """Run one scenario; a string means it could not run (the reason)."""
    try:
        module: nn.Module = build(**case.init_kwargs)
        # As a model is cast before float64 or half-precision use; a float32 input meets the
        # module as built, so float64 parameters show up in the output's dtype.
        own = dict(module.named_parameters())
        for pname, value in case.defaults.items():
            if pname not in own or not torch.equal(own[pname].detach(), value):
                return f"build: {pname} is not initialised to the contract's default"
        dtype = case.steps[0].x.dtype
        if dtype != torch.float32:
            module.to(dtype)
        if case.state is not None:
            module.load_state_dict({k: v.clone() for k, v in case.state.items()}, strict=True)
    except Exception as exc:
        return f"build: {type(exc).__name__}: {exc}"
    records: list[Record] = []
    for i, step in enumerate(case.steps):
        module.train(step.train)
        leaf = step.x.detach().clone().requires_grad_(step.grad is not None)
        before = leaf.detach().clone()
        x = leaf.transpose(-1, -2) if step.transpose else leaf
        torch.manual_seed(case.seed * 1000 + i)
        try:
            if step.grad is None:
                with torch.no_grad():
                    out = module(x)
            else:
                out = module(x)
            outs = out if isinstance(out, tuple) else (out,)
            rec: Record = {"out": [o.detach().clone() for o in outs]}
            if step.grad is not None:
                grads = step.grad if isinstance(step.grad, tuple) else (step.grad,)
                torch.autograd.backward(list(outs), list(grads))
                g = leaf.grad
                rec["x.grad"] = None if g is None else g.clone()
                for pname, p in module.named_parameters():
                    rec[f"{pname}.grad"] = None if p.grad is None else p.grad.clone()
                if step.update:
                    update_parameters(module, case.seed * 1000 + i)
                for p in module.parameters():
                    p.grad = None
            rec["mutated"] = not torch.equal(before, leaf.detach())
        except Exception as exc:
            return f"step {i}: {type(exc).__name__}: {exc}"
        records.append(rec)
    return records


def close(
    a: torch.Tensor | None, b: torch.Tensor | None, tolerance: Tolerance = TOLERANCE
) -> str | None:
    """None when `a` (candidate) matches `b` (reference), else why not."""
    if a is None or b is None:
        return None if a is None and b is None else "gradient missing"
    if a.shape != b.shape:
        return f"shape {tuple(a.shape)} != {tuple(b.shape)}"
    if a.dtype != b.dtype:
        return f"dtype {a.dtype} != {b.dtype}"
    rtol, atol = tolerance[b.dtype]
    ref = b.double()
    scale = max(1.0, float(ref.abs().max())) if ref.numel() else 1.0
    err = (a.double() - ref).abs()
    if not torch.isfinite(a.double()).all() and torch.isfinite(ref).all():
        return "non-finite values"
    bad = err > atol * scale + rtol * ref.abs()
    if bool(bad.any()):
        return f"max abs err {float(err.max()):.3g}"
    return None


def compare(
    cand: list[Record] | str, ref: list[Record] | str, tolerance: Tolerance = TOLERANCE
) -> str | None:
    if isinstance(ref, str):
        raise AssertionError(f"the reference itself failed: {ref}")
    if isinstance(cand, str):
        return cand
    for i, (c, r) in enumerate(zip(cand, ref, strict=True)):
        if len(c["out"]) != len(r["out"]):
            return f"step {i}: {len(c['out'])} outputs, expected {len(r['out'])}"
        for j, (co, ro) in enumerate(zip(c["out"], r["out"], strict=True)):
            why = close(co, ro, tolerance)
            if why:
                return f"step {i} output {j}: {why}"
        for key in r:
            if key.endswith(".grad"):
                why = close(c.get(key), r[key], tolerance)
                if why:
                    return f"step {i} {key}: {why}"
        if c["mutated"]:
            return f"step {i}: x modified in place"
    return None


def check_raises(build: Callable[..., Any], case: RaisesCase) -> str | None:
    try:
        build(**case.init_kwargs)
    except case.error:
        return None
    except Exception as exc:
        return f"raised {type(exc).__name__} instead of {case.error.__name__}"
    return f"did not raise {case.error.__name__}"


def param_shapes(
    build: Callable[..., Any], kwargs: Mapping[str, Any]
) -> dict[str, tuple[int, ...]]:
    module: nn.Module = build(**kwargs)
    return {k: tuple(v.shape) for k, v in module.state_dict().items()}


def verdict(
    build: Callable[..., Any],
    reference: Callable[..., Any],
    cases: Sequence[ModuleCase | RaisesCase],
    tolerance: Tolerance = TOLERANCE,
) -> list[tuple[str, str]]:
    """The cases on which `build` differs from `reference`, with the reason."""
    failures: list[tuple[str, str]] = []
    for case in cases:
        if isinstance(case, RaisesCase):
            why = check_raises(build, case)
        else:
            try:
                shapes = param_shapes(build, case.init_kwargs)
            except Exception as exc:
                failures.append((case.name, f"build: {type(exc).__name__}: {exc}"))
                continue
            if shapes != param_shapes(reference, case.init_kwargs):
                why = f"parameters {shapes}"
            else:
                why = compare(run_module(build, case), run_module(reference, case), tolerance)
        if why:
            failures.append((case.name, why))
    return failures


class Report:
    def __init__(self) -> None:
        self.errors: list[str] = []
        self.lines = 0

    def expect_pass(self, label: str, failures: list[tuple[str, str]]) -> None:
        self.lines += 1
        if failures:
            self.errors.append(f"{label} should match the reference but differs: {failures[:3]}")
        print(f"  {'ok ' if not failures else 'BAD'} matches : {label}")

    def expect_fail(self, label: str, failures: list[tuple[str, str]]) -> None:
        self.lines += 1
        if not failures:
            self.errors.append(f"{label} should differ from the reference but matches it")
        first = f"{failures[0][0]}: {failures[0][1]}" if failures else "-"
        mark = "ok " if failures else "BAD"
        print(f"  {mark} differs : {label} ({len(failures)} cases; {first})")


@dataclass(frozen=True)
class FunctionCase:
    """A function exercise: call fn(*inputs, **kwargs), then backward from `grads` if given."""

    name: str
    inputs: Sequence[torch.Tensor]
    kwargs: Mapping[str, Any]
    grads: Sequence[torch.Tensor] | None = None  # one upstream gradient per output


def run_function(fn: Callable[..., Any], case: FunctionCase) -> list[Record] | str:
    backward = case.grads is not None
    leaves = [t.detach().clone().requires_grad_(backward) for t in case.inputs]
    before = [t.detach().clone() for t in leaves]
    try:
        if backward:
            out = fn(*leaves, **case.kwargs)
        else:
            with torch.no_grad():
                out = fn(*leaves, **case.kwargs)
        outs = out if isinstance(out, tuple) else (out,)
        rec: Record = {"out": [o.detach().clone() for o in outs]}
        if case.grads is not None:
            if len(outs) != len(case.grads):
                return f"{len(outs)} outputs, expected {len(case.grads)}"
            pairs = [(o, g) for o, g in zip(outs, case.grads, strict=True) if o.requires_grad]
            if pairs:
                torch.autograd.backward([o for o, _ in pairs], [g for _, g in pairs])
            for i, leaf in enumerate(leaves):
                rec[f"input{i}.grad"] = None if leaf.grad is None else leaf.grad.clone()
        rec["mutated"] = any(
            not torch.equal(b, t.detach()) for b, t in zip(before, leaves, strict=True)
        )
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return [rec]


def function_verdict(
    fn: Callable[..., Any],
    reference: Callable[..., Any],
    cases: Sequence[FunctionCase],
    tolerance: Tolerance = TOLERANCE,
) -> list[tuple[str, str]]:
    failures: list[tuple[str, str]] = []
    for case in cases:
        why = compare(run_function(fn, case), run_function(reference, case), tolerance)
        if why:
            failures.append((case.name, why))
    return failures


def banned_names_used(path: Path, banned: Sequence[str]) -> set[str]:
    """The banned qualified names a source file reaches through its imports (static, by AST).

    A rough stand-in for the grader's static check: resolves `import torch.nn.functional as F`
    and `from torch import nn` aliases, then every dotted attribute chain in the file.
    """
    import ast

    tree = ast.parse(path.read_text())
    alias: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                alias[a.asname or a.name.split(".")[0]] = (
                    a.name if a.asname else a.name.split(".")[0]
                )
        elif isinstance(node, ast.ImportFrom) and node.module:
            for a in node.names:
                alias[a.asname or a.name] = f"{node.module}.{a.name}"
    used: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            parts: list[str] = []
            cur: ast.expr = node
            while isinstance(cur, ast.Attribute):
                parts.append(cur.attr)
                cur = cur.value
            if isinstance(cur, ast.Name) and cur.id in alias:
                dotted = ".".join([alias[cur.id], *reversed(parts)])
                used.update(b for b in banned if dotted == b or dotted.startswith(b + "."))
    return used


def expectation(path: Path) -> tuple[str, str | None]:
    """A variant's `# expect: <status> [mistake=<name>] [class=...]` first line."""
    first = path.read_text().splitlines()[0]
    if not first.startswith("# expect: "):
        raise ValueError(f"{path}: first line must be '# expect: ...'")
    words = first.removeprefix("# expect: ").split()
    named = [w.removeprefix("mistake=") for w in words[1:] if w.startswith("mistake=")]
    return words[0], (named[0] if named else None)


def _same(a: list[Record] | str, b: list[Record] | str, tolerance: Tolerance) -> str | None:
    if isinstance(a, str) or isinstance(b, str):
        return None if isinstance(a, str) and isinstance(b, str) else f"{a!s:.80} / {b!s:.80}"
    # Both mutating their input is agreement too: only a difference counts.
    a = [{**ra, "mutated": ra["mutated"] != rb["mutated"]} for ra, rb in zip(a, b, strict=True)]
    return compare(a, b, tolerance)


def disagreements(
    variant: Callable[..., Any],
    mistake: Callable[..., Any],
    cases: Sequence[ModuleCase | RaisesCase | FunctionCase],
    tolerance: Tolerance = TOLERANCE,
) -> list[tuple[str, str]]:
    """Cases on which a variant and the mistake it is labelled with behave differently.

    Both failing to build or to run counts as agreeing: the grader names such a mistake by its
    parameter shapes or its error, not by values.
    """
    out: list[tuple[str, str]] = []
    for case in cases:
        why: str | None
        if isinstance(case, RaisesCase):
            a, b = check_raises(variant, case), check_raises(mistake, case)
            why = None if (a is None) == (b is None) else f"raises: {a} / {b}"
        elif isinstance(case, FunctionCase):
            why = _same(run_function(variant, case), run_function(mistake, case), tolerance)
        else:
            try:
                sa: Any = param_shapes(variant, case.init_kwargs)
            except Exception as exc:
                sa = type(exc).__name__
            try:
                sb: Any = param_shapes(mistake, case.init_kwargs)
            except Exception as exc:
                sb = type(exc).__name__
            if sa != sb:
                why = f"parameters {sa} / {sb}"
            elif isinstance(sa, str):
                why = None
            else:
                why = _same(run_module(variant, case), run_module(mistake, case), tolerance)
        if why:
            out.append((case.name, why))
    return out

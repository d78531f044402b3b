"""The notebooks' quick local check: a few public cases run in the learner's own kernel.

This is a sanity check for the learner, not the grader: on a handful of inputs it compares the
forward pass (float32) with torch's built-in or the contract's formula, then checks the backward
pass in float64 against the derivative of that very forward (``torch.autograd.gradcheck``, fast
mode): a forward that matches the reference and a backward that matches the forward's
derivative give the reference's gradients, so a detached statistic or a wrong hand-written
backward fails here as it fails on the server. The server's verdict (many more shapes and
dtypes, known-mistake diagnosis) is the one that counts. It needs torch, which any kernel
doing these exercises has; ``addnorm_client`` itself imports it only here.

The learner's class is taken from the exercise cell's *source*, executed again in a fresh
namespace, exactly as the server will run it: a class that only works because another cell
imported something into the kernel (``F`` from this very check, say) fails here with the same
``NameError`` the server would report, instead of passing locally and failing on submission.
"""

from __future__ import annotations

import copy
import re
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn
from torch.autograd.gradcheck import GradcheckError

from addnorm_client.client import AddnormError
from addnorm_client.render import exercise_source

# float32 forward passes of a correct implementation differ from torch's fused kernels by a few
# ulps per reduction; these bounds sit well above that and well below any real mistake.
RTOL = 1e-4
ATOL = 1e-5


@dataclass(frozen=True)
class LocalCase:
    """One input: how to build what is called from the learner's definition, the parameters,
    the answer. ``build`` returns a module (for a module exercise: it is loaded with ``state``
    and put in eval mode) or any callable taking ``x`` (``lambda f: lambda x: f(x, dim=0)``
    for a function, ``lambda F: lambda x: F.apply(x, w, b, 1e-5)`` for an autograd.Function;
    with several functions, ``build`` gets a dict of them by name)."""

    name: str
    x: torch.Tensor
    build: Callable[[Any], Callable[[torch.Tensor], Any]]
    expected: torch.Tensor
    state: Mapping[str, torch.Tensor] = field(default_factory=dict)
    # Tensors besides ``x`` whose gradients the exercise grades and that ``build``'s callable
    # takes as keyword arguments defaulting to them (an autograd.Function's weight and bias):
    # the backward check passes float64 copies by these names.
    leaves: Mapping[str, torch.Tensor] = field(default_factory=dict)
    # A lab's measurement: the call runs its own experiment (its own backward included), so it
    # runs with autograd on and its result, a number per layer, has no backward to check.
    measurement: bool = False
    # A lab's case that the notebook draws (``plot_lab``): the label of each row of the
    # answer, one curve per row, learner's beside the reference's. Empty: not drawn.
    series: tuple[str, ...] = ()
    # A lab whose answer has planes of numbers ((planes, rows, points)): the plane drawn, and
    # the axes' words when they are not the first lab's.
    plane: int | None = None
    x_label: str = "layer (1 = next to the input)"
    y_label: str = "gradient norm"
    # The contract updates tensors in place (an optimiser's step, gradient clipping): ``build``'s
    # callable makes its own parameters from ``x`` and returns what it compares, flattened;
    # there is no backward to check.
    updates_in_place: bool = False


@dataclass(frozen=True)
class LocalResult:
    name: str
    shape: tuple[int, ...]
    ok: bool
    max_abs_error: float | None
    note: str


def _where(exc: BaseException) -> str:
    # The learner's own frame is the interesting one; torch's frames below it are noise.
    frames = [
        frame
        for frame in traceback.extract_tb(exc.__traceback__)
        if frame.filename == SUBMISSION_FILENAME
    ]
    return f" (line {frames[-1].lineno})" if frames else ""


# The file name the server's harness gives the learner's code, so tracebacks read the same.
SUBMISSION_FILENAME = "<submission>"


class ExerciseCodeError(Exception):
    """The exercise cell's code does not run, or does not define the class, on its own."""


def _is_entry(obj: Any) -> bool:
    """What an exercise asks for: an nn.Module or autograd.Function subclass, an optimiser
    (a class with a ``step``), or a function."""
    if isinstance(obj, type):
        return issubclass(obj, (nn.Module, torch.autograd.Function)) or callable(
            getattr(obj, "step", None)
        )
    return callable(obj)


def class_from_source(source: str, class_name: str) -> Any:
    """Execute ``source`` alone in a fresh namespace and return its ``class_name`` (a module or
    autograd.Function class, or a function for a function exercise; several names,
    comma-separated: a dict of those functions by name).

    Nothing from the kernel leaks in: this is what the server does with a submission.
    """
    namespace: dict[str, Any] = {"__name__": "submission"}
    try:
        exec(compile(source, SUBMISSION_FILENAME, "exec"), namespace)
    except Exception as exc:
        raise ExerciseCodeError(
            f"the exercise cell fails when run on its own, as the server runs it: "
            f"{type(exc).__name__}: {exc}{_where(exc)}"
        ) from exc
    names = class_name.split(",")
    found = {name: namespace.get(name) for name in names}
    for name, value in found.items():
        if not _is_entry(value) or (len(names) > 1 and isinstance(value, type)):
            raise ExerciseCodeError(f"the exercise cell does not define `{name}`")
    return found if len(names) > 1 else found[class_name]


def run_case(case: LocalCase, cls: Any) -> LocalResult:
    shape = tuple(case.x.shape)
    try:
        module = case.build(cls)
        if isinstance(module, nn.Module):
            if case.state:
                module.load_state_dict(dict(case.state), strict=True)
            module.eval()
        x = case.x.clone()
        with torch.set_grad_enabled(case.measurement):
            out = module(x)
    except Exception as exc:
        return LocalResult(
            case.name, shape, False, None, f"{type(exc).__name__}: {exc}{_where(exc)}"
        )
    if not isinstance(out, torch.Tensor):
        return LocalResult(case.name, shape, False, None, f"returned {type(out).__name__}")
    if not torch.equal(x, case.x):
        return LocalResult(case.name, shape, False, None, "modified its input in place")
    if out.shape != case.expected.shape:
        note = f"output shape {tuple(out.shape)}, expected {tuple(case.expected.shape)}"
        return LocalResult(case.name, shape, False, None, note)
    if out.dtype != case.expected.dtype:
        note = f"output dtype {out.dtype}, expected {case.expected.dtype}"
        return LocalResult(case.name, shape, False, None, note)
    error = (out.double() - case.expected.double()).abs()
    worst = float(error.max()) if error.numel() else 0.0
    ok = bool(torch.allclose(out, case.expected, rtol=RTOL, atol=ATOL))
    if not ok:
        return LocalResult(case.name, shape, False, worst, "differs")
    problem = None if case.measurement or case.updates_in_place else backward_problem(case, cls)
    if problem is not None:
        return LocalResult(case.name, shape, False, worst, problem)
    return LocalResult(case.name, shape, True, worst, "matches")


# Finite differences in float64 with a step large enough that a forward computing in float32
# inside (a mixed-precision norm) still differentiates cleanly; a wrong gradient is off by
# O(1), far above these bounds.
GRAD_EPS = 1e-3
GRAD_TOL = 1e-4


def backward_problem(case: LocalCase, cls: Any) -> str | None:
    """None when the gradients of the call (with respect to ``x``, the module's parameters and
    the case's ``leaves``) are the derivative of its forward pass; else what is wrong.

    Inputs holding inf or NaN (a causal mask) are forward-only: finite differences are
    undefined there."""
    if not bool(torch.isfinite(case.x).all()) or not bool(torch.isfinite(case.expected).all()):
        return None
    try:
        built = case.build(cls)
        names: list[str] = []
        values: list[torch.Tensor] = [case.x.detach().double().requires_grad_(True)]
        if isinstance(built, nn.Module):
            module = copy.deepcopy(built)
            if case.state:
                module.load_state_dict(dict(case.state), strict=True)
            module.eval().double()
            params = dict(module.named_parameters())
            names = list(params)
            values += [p.detach().clone().requires_grad_(True) for p in params.values()]
            buffers = dict(module.named_buffers())

            def call(x: torch.Tensor, *ps: torch.Tensor) -> Any:
                state = {**buffers, **dict(zip(names, ps, strict=True))}
                return torch.func.functional_call(module, state, (x,))

        else:
            names = list(case.leaves)
            values += [case.leaves[n].detach().double().requires_grad_(True) for n in names]

            def call(x: torch.Tensor, *ps: torch.Tensor) -> Any:
                return built(x, **dict(zip(names, ps, strict=True)))

        out = call(*values)
        if not isinstance(out, torch.Tensor) or not out.requires_grad:
            return "backward: the output does not depend on the input through autograd"
        # The step follows the input's scale: tiny inputs (where eps matters) need a tiny step.
        scale = float(case.x.abs().max()) if case.x.numel() else 1.0
        # fast_mode projects the Jacobian on random vectors: seeded, so a result repeats.
        with torch.random.fork_rng():
            torch.manual_seed(0)
            torch.autograd.gradcheck(
                call,
                tuple(values),
                eps=GRAD_EPS * min(1.0, max(scale, 1e-4)),
                atol=GRAD_TOL,
                rtol=GRAD_TOL,
                fast_mode=True,
                check_undefined_grad=False,
                check_batched_grad=False,
            )
    except GradcheckError as exc:
        which = re.search(r"respect to input (\d+)", str(exc))
        index = int(which.group(1)) if which else -1
        wrt = "x" if index == 0 else names[index - 1] if 0 < index <= len(names) else "an input"
        return f"backward: the gradient with respect to {wrt} is not the forward's derivative"
    except Exception as exc:
        return f"backward: {type(exc).__name__}: {exc}{_where(exc)}"
    return None


def format_table(results: Sequence[LocalResult]) -> str:
    rows = [("", "case", "shape", "max abs err", "result")]
    for r in results:
        err = "" if r.max_abs_error is None else f"{r.max_abs_error:.2e}"
        rows.append(("✓" if r.ok else "✗", r.name, str(r.shape), err, r.note))
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    lines = [
        "  ".join([*(c.ljust(w) for c, w in zip(row, widths, strict=False)), row[4]]).rstrip()
        for row in rows
    ]
    passed = sum(r.ok for r in results)
    lines.append(
        f"{passed} of {len(results)} local cases match. Local check only (a few inputs, forward "
        "and backward): it does not replace the server's verdict; submit below for that."
    )
    return "\n".join(lines)


def run_cases(cases: Sequence[LocalCase], cls: Any) -> list[LocalResult]:
    return [run_case(case, cls) for case in cases]


def check(
    slug: str, class_name: str, cases: Sequence[LocalCase], *, code: str | None = None
) -> None:
    """Run ``cases`` on the exercise cell's class and print a table.

    ``code`` defaults to the exercise cell as last executed (see ``addnorm_client.render``).
    Never raises, so a notebook run top to bottom goes on to the submit cell.
    """
    try:
        source = code if code is not None else exercise_source(slug)
        cls = class_from_source(source, class_name)
    except (AddnormError, ExerciseCodeError) as exc:
        print(f"local check not run: {exc}")
        return
    print(format_table(run_cases(cases, cls)))


def plot_lab(
    slug: str, class_name: str, cases: Sequence[LocalCase], *, code: str | None = None
) -> Any:
    """Draw a lab's last drawable case (``LocalCase.series``): each row of the answer as a
    curve over 1..n, the exercise cell's solid and the reference's dashed, with matplotlib
    when it is installed (the ``notebooks`` extra); else the numbers side by side. Returns the
    figure (None without matplotlib or without an answer). Never raises."""
    drawable = [c for c in cases if c.series]
    if not drawable:
        print("nothing to draw: no local case of this exercise is a lab's figure")
        return None
    case = drawable[-1]
    try:
        source = code if code is not None else exercise_source(slug)
        fn = case.build(class_from_source(source, class_name))
        with torch.set_grad_enabled(case.measurement):
            mine = fn(case.x.clone())
    except (AddnormError, ExerciseCodeError) as exc:
        print(f"chart not drawn: {exc}")
        return None
    except Exception as exc:
        print(f"chart not drawn: your code raised {type(exc).__name__}: {exc}{_where(exc)}")
        return None
    want = case.expected.detach().double()
    ok = isinstance(mine, torch.Tensor) and tuple(mine.shape) == tuple(want.shape)
    ok = ok and bool(torch.isfinite(mine.detach().double()).all())
    got = mine.detach().double() if ok else None
    if case.plane is not None:
        want = want[case.plane]
        got = None if got is None else got[case.plane]
    if not ok:
        print(f"your answer is not a finite tensor of shape {tuple(want.shape)}: reference only")
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed (pip install 'addnorm[notebooks]'): the numbers")
        for r, label in enumerate(case.series):
            print(f"{label} reference: " + " ".join(f"{v:.4g}" for v in want[r].tolist()))
            if got is not None:
                print(f"{label} yours:     " + " ".join(f"{v:.4g}" for v in got[r].tolist()))
        return None
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    xs = list(range(1, want.shape[-1] + 1))
    for r, label in enumerate(case.series):
        line = ax.plot(xs, want[r].tolist(), "--", label=f"{label}, reference")[0]
        if got is not None:
            ax.plot(
                xs, got[r].tolist(), "-o", ms=3, color=line.get_color(), label=f"{label}, yours"
            )
    ax.set_xlabel(case.x_label)
    ax.set_ylabel(case.y_label)
    ax.set_title(case.name)
    ax.legend()
    plt.show()
    return fig

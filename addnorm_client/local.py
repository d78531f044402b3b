"""The notebooks' quick local check: a few public cases run in the learner's own kernel.

This is a sanity check for the learner, not the grader: it runs the forward pass only, on a
handful of float32 inputs, against torch's built-in or the contract's formula. The server's
verdict (many more shapes and dtypes, the backward pass, known-mistake diagnosis) is the one
that counts. It needs torch, which any kernel doing these exercises has; ``addnorm_client``
itself imports it only here.

The learner's class is taken from the exercise cell's *source*, executed again in a fresh
namespace, exactly as the server will run it: a class that only works because another cell
imported something into the kernel (``F`` from this very check, say) fails here with the same
``NameError`` the server would report, instead of passing locally and failing on submission.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn

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
    """What an exercise asks for: an nn.Module or autograd.Function subclass, or a function."""
    if isinstance(obj, type):
        return issubclass(obj, (nn.Module, torch.autograd.Function))
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
        with torch.no_grad():
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
    return LocalResult(case.name, shape, ok, worst, "matches" if ok else "differs")


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
        f"{passed} of {len(results)} local cases match. Local check only (forward pass, float32, "
        "a few inputs): it does not replace the server's verdict; submit below for that."
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

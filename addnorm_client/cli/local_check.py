"""``addnorm check``: the server's static checks, then the exercise's public local cases, run
in-process on the learner's file, for every kind of exercise (module, function,
autograd.Function).

Everything comes from the exercise's own files, never from the server's modules:

- ``exercises/<slug>/spec.py``, read as text (``addnorm_client.exercise_files``): the names the
  code must define and the banned names, checked by ``addnorm_client.static``, the very code
  the server's grader runs first. A file the server would reject before running it (a banned
  call, a missing definition, a syntax error) fails here for the same reason;
- ``exercises/<slug>/local_check.py``'s ``local_cases()``: the learner's file is executed alone
  in a fresh namespace (as the server runs it), what it defines is taken by name, and each case
  goes through ``addnorm_client.local.run_case``: the forward pass against the reference, then
  the backward pass against the forward's derivative.

Like the notebooks, this runs the learner's code in this very process, unsandboxed: it is the
learner's own code on the learner's own machine. Only the server's verdict counts.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass
from typing import Any

from addnorm_client import static
from addnorm_client.client import AddnormError
from addnorm_client.exercise_files import Contract, contract, exercises_dir, local_slugs

__all__ = ["CaseOutcome", "LocalReport", "local_slugs", "run_local_check"]


@dataclass(frozen=True)
class CaseOutcome:
    name: str
    shape: tuple[int, ...]
    ok: bool
    max_abs_error: float | None
    note: str


@dataclass(frozen=True)
class LocalReport:
    slug: str
    # Set when the learner's file itself failed (the server's static checks, a syntax error, an
    # exception at import).
    problem: str | None
    cases: tuple[CaseOutcome, ...]
    # "rejected" (a banned name: the server refuses it unrun) or "error"; None: the cases ran.
    status: str | None = None
    line: int | None = None

    @property
    def passed(self) -> bool:
        return self.problem is None and bool(self.cases) and all(c.ok for c in self.cases)


def _learner_line(exc: BaseException, filename: str) -> str:
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == filename]
    return f" (line {frames[-1].lineno})" if frames else ""


def _entry(namespace: dict[str, Any], spec: Contract) -> Any:
    """What the exercise calls, as ``local_cases()``' builds expect it: the class, the function,
    or (several functions) a dict of them by name; None when the file lacks one of them."""
    import torch
    from torch import nn

    found = {name: namespace.get(name) for name in spec.names}
    for value in found.values():
        if spec.kind == "module" and not (isinstance(value, type) and issubclass(value, nn.Module)):
            return None
        if spec.kind == "autograd_function" and not (
            isinstance(value, type) and issubclass(value, torch.autograd.Function)
        ):
            return None
        if spec.kind == "function" and (not callable(value) or isinstance(value, type)):
            return None
        if spec.kind == "optimizer" and not isinstance(value, type):
            return None
    return found if spec.functions else found[spec.class_name]


def run_local_check(slug: str, code: str, filename: str) -> LocalReport:
    """The server's static checks on ``code``, then the exercise's public cases on what it
    defines."""
    spec = contract(slug)
    problem = static.check(
        code,
        class_name=spec.class_name,
        banned=spec.banned,
        functions=spec.names if spec.kind == "function" else (),
        base=spec.base,
    )
    if problem is not None:
        return LocalReport(slug, problem.message, (), problem.status, problem.line)
    cases_file = exercises_dir() / slug / "local_check.py"
    if not cases_file.is_file():
        raise AddnormError(f"exercise {slug!r} has no local cases; use `addnorm submit`")
    # torch comes in with the local machinery, only when a check actually runs.
    from addnorm_client import local

    # The name the server's harness gives the learner's code, so tracebacks read the same.
    filename = local.SUBMISSION_FILENAME
    namespace: dict[str, Any] = {"__name__": "submission"}
    try:
        exec(compile(code, filename, "exec"), namespace)
    except SyntaxError as exc:
        return LocalReport(slug, f"SyntaxError: {exc.msg} (line {exc.lineno})", (), "error")
    except (Exception, SystemExit) as exc:
        where = _learner_line(exc, filename)
        return LocalReport(slug, f"{type(exc).__name__}: {exc}{where}", (), "error")
    entry = _entry(namespace, spec)
    if entry is None:
        wanted = " and ".join(f"`{n}`" for n in spec.names)
        kind = {
            "module": "an nn.Module class",
            "autograd_function": "an autograd.Function",
            "optimizer": "a class",
        }
        what = kind.get(spec.kind, "a function")
        return LocalReport(slug, f"your code must define {wanted} as {what}", (), "error")
    cases_namespace: dict[str, Any] = {"__name__": f"addnorm_local_check_{slug}"}
    exec(compile(cases_file.read_text(encoding="utf-8"), str(cases_file), "exec"), cases_namespace)
    cases = cases_namespace["local_cases"]()
    results = [local.run_case(case, entry) for case in cases]
    if not results:
        raise AddnormError(f"the local cases of {slug!r} produced no case to run")
    outcomes = tuple(CaseOutcome(r.name, r.shape, r.ok, r.max_abs_error, r.note) for r in results)
    return LocalReport(slug, None, outcomes)

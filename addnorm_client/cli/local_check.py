"""``addnorm check``: the notebooks' public local cases, run in-process on the learner's file.

Two places hold an exercise's local cases, and both are supported:

- ``exercises/<slug>/local_check.py`` defining ``local_cases()``: the learner's file is executed
  alone in a fresh namespace (as the server runs it), its class (the first ``nn.Module`` subclass
  the starter defines) is taken from it, and each case goes through
  ``addnorm_client.local.run_case(case, cls)``;
- otherwise the notebook's local-check cell held by ``api.notebooks``, executed in the namespace
  where the learner's class is defined, with its call to ``addnorm_client.local.check`` caught
  (the cases are collected, not printed) and each case run by ``run_case(case)``.

``local_cases``, ``run_case`` and ``check`` are the whole dependency on that machinery.

Like the notebooks, this runs the learner's code in this very process, unsandboxed: it is the
learner's own code on the learner's own machine. Only the server's verdict counts.
"""

from __future__ import annotations

import ast
import contextlib
import traceback
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from addnorm_client.client import AddnormError


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
    # Set when the learner's file itself failed (syntax error, exception at import).
    problem: str | None
    cases: tuple[CaseOutcome, ...]

    @property
    def passed(self) -> bool:
        return self.problem is None and bool(self.cases) and all(c.ok for c in self.cases)


def exercises_dir() -> Path:
    """The exercise content this checkout holds (``ADDNORM_CONTENT_DIR`` moves it)."""
    from api.config import get_settings

    return get_settings().content_dir


def class_name(slug: str) -> str:
    """The class the exercise asks for: the first ``nn.Module`` subclass its starter defines."""
    starter = exercises_dir() / slug / "starter.py"
    for node in ast.parse(starter.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ClassDef) and any(
            ast.unparse(base) in ("nn.Module", "torch.nn.Module", "Module") for base in node.bases
        ):
            return node.name
    raise AddnormError(f"the starter of {slug!r} defines no nn.Module class")


def cases_source(slug: str) -> str:
    from api import notebooks

    table: dict[str, tuple[str, str]] = getattr(notebooks, "_LOCAL_CHECKS", {})
    if slug not in table:
        raise AddnormError(f"exercise {slug!r} has no local cases; use `addnorm submit`")
    header: str = getattr(notebooks, "_CASE_HEADER", "")
    return f"{header}\n\n{table[slug][1]}"


@contextlib.contextmanager
def _collecting() -> Iterator[list[Any]]:
    from addnorm_client import local

    # Typed loosely: the notebook-cell cases call check(cases), whatever signature local.py's
    # own check has by now.
    module: Any = local
    collected: list[Any] = []
    original = module.check

    def collect(cases: Sequence[Any], *args: Any, **kwargs: Any) -> None:
        collected.extend(cases)

    module.check = collect
    try:
        yield collected
    finally:
        module.check = original


def _learner_line(exc: BaseException, filename: str) -> str:
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == filename]
    return f" (line {frames[-1].lineno})" if frames else ""


def _outcomes(results: Sequence[Any]) -> tuple[CaseOutcome, ...]:
    return tuple(CaseOutcome(r.name, r.shape, r.ok, r.max_abs_error, r.note) for r in results)


def _run_local_cases(slug: str, code: str, filename: str, cases_file: Path) -> LocalReport:
    """``exercises/<slug>/local_check.py``'s ``local_cases()`` on the class ``code`` defines."""
    from addnorm_client import local

    wanted = class_name(slug)
    # The name run_case looks for in a traceback to point at the learner's line.
    filename = getattr(local, "SUBMISSION_FILENAME", filename)
    namespace: dict[str, Any] = {"__name__": "submission"}
    try:
        exec(compile(code, filename, "exec"), namespace)
    except SyntaxError as exc:
        return LocalReport(slug, f"SyntaxError: {exc.msg} (line {exc.lineno})", ())
    except (Exception, SystemExit) as exc:
        where = _learner_line(exc, filename)
        return LocalReport(slug, f"{type(exc).__name__}: {exc}{where}", ())
    from torch import nn

    cls = namespace.get(wanted)
    if not (isinstance(cls, type) and issubclass(cls, nn.Module)):
        return LocalReport(slug, f"{filename} defines no nn.Module class `{wanted}`", ())
    cases_namespace: dict[str, Any] = {"__name__": f"addnorm_local_check_{slug}"}
    exec(compile(cases_file.read_text(encoding="utf-8"), str(cases_file), "exec"), cases_namespace)
    cases = cases_namespace["local_cases"]()
    # run_case(case, cls): the signature that goes with local_check.py files.
    run: Callable[..., Any] = local.run_case
    outcomes = _outcomes([run(case, cls) for case in cases])
    if not outcomes:
        raise AddnormError(f"the local cases of {slug!r} produced no case to run")
    return LocalReport(slug, None, outcomes)


def run_local_check(slug: str, code: str, filename: str) -> LocalReport:
    """Run the exercise's public cases against the class ``code`` defines."""
    cases_file = exercises_dir() / slug / "local_check.py"
    if cases_file.is_file():
        return _run_local_cases(slug, code, filename, cases_file)
    source = cases_source(slug)
    namespace: dict[str, Any] = {"__name__": "__addnorm_learner__"}
    try:
        exec(compile(code, filename, "exec"), namespace)
    except SyntaxError as exc:
        return LocalReport(slug, f"SyntaxError: {exc.msg} (line {exc.lineno})", ())
    except (Exception, SystemExit) as exc:
        where = _learner_line(exc, filename)
        return LocalReport(slug, f"{type(exc).__name__}: {exc}{where}", ())
    # torch comes in here, with the local machinery, only when a check actually runs.
    from addnorm_client.local import run_case

    with _collecting() as cases:
        try:
            exec(compile(source, f"<local cases for {slug}>", "exec"), namespace)
        except (Exception, SystemExit) as exc:
            # Building a case calls the learner's class (e.g. a NameError for a renamed one).
            where = _learner_line(exc, filename)
            return LocalReport(slug, f"{type(exc).__name__}: {exc}{where}", ())
    # run_case(case): the signature that goes with the notebook-cell cases.
    run: Callable[..., Any] = run_case
    outcomes = _outcomes([run(case) for case in cases])
    if not outcomes:
        raise AddnormError(f"the local cases of {slug!r} produced no case to run")
    return LocalReport(slug, None, outcomes)

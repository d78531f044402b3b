"""``addnorm check``: the notebooks' public local cases, run in-process on the learner's file.

The cases are the notebook's local-check cell, executed exactly as the notebook executes it: in
the namespace where the learner's class is defined. Its call to ``addnorm_client.local.check``
is caught (the cases are collected instead of printed) and each case goes through
``addnorm_client.local.run_case``. Those two names are the whole dependency on the local-check
machinery. The cell's source is ``exercises/<slug>/local_check.py`` when the exercise has one,
else the one the notebook generator holds today (``api.notebooks``).

Like the notebooks, this runs the learner's code in this very process, unsandboxed: it is the
learner's own code on the learner's own machine. Only the server's verdict counts.
"""

from __future__ import annotations

import contextlib
import traceback
from collections.abc import Iterator, Sequence
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


def cases_source(slug: str) -> str:
    own = exercises_dir() / slug / "local_check.py"
    if own.is_file():
        return own.read_text(encoding="utf-8")
    from api import notebooks

    table: dict[str, tuple[str, str]] = getattr(notebooks, "_LOCAL_CHECKS", {})
    if slug not in table:
        raise AddnormError(f"exercise {slug!r} has no local cases; use `addnorm submit`")
    header: str = getattr(notebooks, "_CASE_HEADER", "")
    return f"{header}\n\n{table[slug][1]}"


@contextlib.contextmanager
def _collecting() -> Iterator[list[Any]]:
    from addnorm_client import local

    collected: list[Any] = []
    original = local.check

    def collect(cases: Sequence[Any]) -> None:
        collected.extend(cases)

    local.check = collect
    try:
        yield collected
    finally:
        local.check = original


def _learner_line(exc: BaseException, filename: str) -> str:
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == filename]
    return f" (line {frames[-1].lineno})" if frames else ""


def run_local_check(slug: str, code: str, filename: str) -> LocalReport:
    """Exec ``code`` in a fresh namespace, then run the exercise's public cases against it."""
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
    outcomes = []
    for case in cases:
        r = run_case(case)
        outcomes.append(CaseOutcome(r.name, r.shape, r.ok, r.max_abs_error, r.note))
    if not outcomes:
        raise AddnormError(f"the local cases of {slug!r} produced no case to run")
    return LocalReport(slug, None, tuple(outcomes))

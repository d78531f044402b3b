"""Hints, the worked solution and server-side drafts on the exercise page.

The forms post here and come back to the exercise page (no script needed); the editor also saves
its draft here in the background. Everything goes through the JSON API's own route functions, so
the rules (the ladder's bounds, when the solution opens, the interview's refusal, the draft's
size) are the API's, in one place.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Annotated

from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.responses import RedirectResponse, Response
from sqlmodel import Session

from api.content.catalog import Exercise
from api.http.deps import AppContext, AppDep, SessionDep
from api.http.exercises import read_hint, reveal_solution, save_draft
from api.learning import drafts, hints, practice_pause, submissions
from api.models import DraftSave, User
from api.web.i18n import Lang
from api.web.render import render
from api.web.session import CheckedFormDep, LearnerDep, PageNotFound, WebSession

router = APIRouter(include_in_schema=False)


@dataclass(frozen=True)
class HelpView:
    """What the exercise page shows of the hints and the solution."""

    total: int
    shown: list[tuple[int, str]]  # (rung, text in the page's language), in order
    next_rung: int | None
    solution_code: str | None  # once the learner has had it shown
    solution_allowed: bool
    solution_needs_reveal: bool
    solution_reason: str
    # The exercise is held by a running mock interview: no help until it ends.
    held_by: int | None
    # The learner's last submission against the solution, line by line: (kind, text), kind one
    # of "del" (theirs only), "add" (the solution's only), "ctx" (both), "gap" (lines skipped).
    diff: list[tuple[str, str]] = field(default_factory=list)


# Lines of unchanged context kept around each difference.
DIFF_CONTEXT = 2


def solution_diff(theirs: str, solution: str) -> list[tuple[str, str]]:
    lines: list[tuple[str, str]] = []
    a, b = theirs.splitlines(), solution.splitlines()
    for group in difflib.SequenceMatcher(None, a, b, autojunk=False).get_grouped_opcodes(
        DIFF_CONTEXT
    ):
        if lines:
            lines.append(("gap", "…"))
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                lines += [("ctx", line) for line in a[i1:i2]]
                continue
            lines += [("del", line) for line in a[i1:i2]]
            lines += [("add", line) for line in b[j1:j2]]
    return lines


def help_view(
    session: Session, ctx: AppContext, *, user: User, exercise: Exercise, lang: Lang
) -> HelpView:
    assert user.id is not None
    seen = hints.seen(session, user_id=user.id, exercise=exercise.slug)
    passed, failed = hints.outcomes(session, user_id=user.id, exercise=exercise.slug)
    access = hints.solution_access(passed=passed, failed=failed, reveal=False, lang=lang)
    # Practice is paused while an interview runs (api.http.hold refuses the page first): the help
    # a caller outside a route would build then shows nothing either.
    held = practice_pause.running(session, user_id=user.id, now=datetime.now(UTC))
    session.commit()
    shown = [(n, exercise.hints[n - 1].text(lang)) for n in seen.hints if n <= len(exercise.hints)]
    following = [n for n in range(1, len(exercise.hints) + 1) if n not in seen.hints]
    code = None
    if seen.solution and held is None:
        code = hints.worked_solution(ctx.settings.solutions_dir, exercise)
    diff: list[tuple[str, str]] = []
    if code is not None:
        history = submissions.list_for(session, user_id=user.id, exercise=exercise.slug)
        if history and history[0].code:
            diff = solution_diff(history[0].code, code)
    return HelpView(
        total=len(exercise.hints),
        shown=[] if held is not None else shown,
        next_rung=following[0] if following else None,
        solution_code=code,
        solution_allowed=access.allowed,
        solution_needs_reveal=access.needs_reveal,
        solution_reason=access.reason,
        held_by=held.id if held is not None else None,
        diff=diff,
    )


def draft_code(session: Session, *, user_id: int, exercise: str) -> tuple[str, datetime] | None:
    row = drafts.load(session, user_id=user_id, exercise=exercise)
    if row is None:
        return None
    moment = row.updated_at if row.updated_at.tzinfo else row.updated_at.replace(tzinfo=UTC)
    return row.code, moment


def _exercise(ctx: AppContext, slug: str) -> Exercise:
    exercise = ctx.catalog.get(slug)
    if exercise is None:
        raise PageNotFound()
    return exercise


def _back(exercise: Exercise, anchor: str, problem: str | None = None) -> Response:
    # The refusal travels as a short code in the URL, never as free text: the page looks it up.
    query = f"?help={problem}" if problem else ""
    return RedirectResponse(f"/app/exercises/{exercise.slug}{query}#{anchor}", status_code=303)


def _help_partial(
    request: Request,
    web: WebSession,
    user: User,
    session: Session,
    ctx: AppContext,
    exercise: Exercise,
    problem: str | None,
) -> Response:
    """The hints panel alone, for the page's script to put in place of the old one."""
    help = help_view(session, ctx, user=user, exercise=exercise, lang=web.lang)
    return render(request, web, "_help.html", exercise=exercise, help=help, help_problem=problem)


def _partial(request: Request) -> bool:
    return request.headers.get("x-addnorm-partial") == "1"


def _problem(exc: HTTPException) -> str:
    return {409: "held", 403: "locked", 404: "missing"}.get(exc.status_code, "failed")


@router.post("/app/exercises/{slug}/hints")
def create_hint_page(
    request: Request,
    slug: str,
    web: CheckedFormDep,
    user: LearnerDep,
    session: SessionDep,
    ctx: AppDep,
    rung: Annotated[int, Form(ge=1, le=99)] = 1,
) -> Response:
    """Reveal one more rung of the ladder (the form names the next one)."""
    exercise = _exercise(ctx, slug)
    problem = None
    try:
        read_hint(rung, exercise, user, session, web.lang)
    except HTTPException as exc:
        # 404 is a rung beyond the ladder (a hand-made form): nothing to name but a failure.
        problem = "held" if exc.status_code == 409 else "failed"
    if _partial(request):
        return _help_partial(request, web, user, session, ctx, exercise, problem)
    return _back(exercise, "hints", problem) if problem else _back(exercise, f"hint-{rung}")


@router.post("/app/exercises/{slug}/solution")
def create_solution_page(
    request: Request,
    slug: str,
    web: CheckedFormDep,
    user: LearnerDep,
    session: SessionDep,
    ctx: AppDep,
) -> Response:
    """The explicit request for the worked solution (refused unless the API allows it)."""
    exercise = _exercise(ctx, slug)
    problem = None
    try:
        reveal_solution(ctx, exercise, user, session, web.lang)
    except HTTPException as exc:
        problem = _problem(exc)
    if _partial(request):
        return _help_partial(request, web, user, session, ctx, exercise, problem)
    return _back(exercise, "hints", problem) if problem else _back(exercise, "solution")


@router.post("/app/exercises/{slug}/draft")
def create_draft_page(
    request: Request,
    slug: str,
    web: CheckedFormDep,
    user: LearnerDep,
    session: SessionDep,
    ctx: AppDep,
    code: Annotated[str, Form(max_length=1 << 20)] = "",
) -> Response:
    """Save the editor's content: in the background from the editor (204), or from the form's
    "Save draft" button without script (back to the page)."""
    del web
    exercise = _exercise(ctx, slug)
    code = code.replace("\r\n", "\n")
    try:
        save_draft(DraftSave(code=code), exercise, user, session, ctx)
    except HTTPException as exc:
        if request.headers.get("x-addnorm-partial") == "1":
            return Response(status_code=exc.status_code)
        return _back(exercise, "code", "too_large")
    if request.headers.get("x-addnorm-partial") == "1":
        return Response(status_code=204)
    return RedirectResponse(f"/app/exercises/{exercise.slug}?saved=1#code", status_code=303)

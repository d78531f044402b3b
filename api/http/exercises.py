from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter, HTTPException
from pydantic import BaseModel
from sqlmodel import Session

from api.content.catalog import HINT_RUNGS, Exercise, Lang
from api.content.followups import follow_ups_for
from api.http.deps import AppContext, AppDep, CurrentUser, ExerciseDep, SessionDep
from api.http.users import learner_lang
from api.learning import drafts, hints, practice, practice_pause, progress
from api.learning.practice import NextReviewPublic
from api.models import Draft, DraftSave, User

router = APIRouter(tags=["exercises"])


@router.get("/exercises")
def read_exercises(
    ctx: AppDep, user: CurrentUser, session: SessionDep, lang: Lang | None = None
) -> list[dict[str, Any]]:
    assert user.id is not None
    lang = lang or learner_lang(user)
    mine = progress.exercise_progress(session, user_id=user.id, catalog=ctx.catalog)
    return [
        {
            "slug": e.slug,
            "title": e.title(lang),
            "topic": e.meta.topic,
            "topics": list(e.meta.topics),
            "difficulty": e.meta.difficulty,
            "status": mine[e.slug]["status"],
        }
        for e in ctx.catalog.values()
    ]


@router.get("/exercises/{slug}")
def read_exercise(
    ctx: AppDep, exercise: ExerciseDep, user: CurrentUser, lang: Lang | None = None
) -> dict[str, Any]:
    """The prompt and the starter in ``lang``, by default the learner's preference."""
    lang = lang or learner_lang(user)  # learners only: served to authenticated learners
    return {
        "slug": exercise.slug,
        "title": exercise.title(lang),
        "topic": exercise.meta.topic,
        "topics": list(exercise.meta.topics),
        "kind": exercise.spec.kind,
        "difficulty": exercise.meta.difficulty,
        "lang": lang,
        "prompt": exercise.prompt[lang],
        "starter": exercise.starter_for(lang),
        "contract": {
            "class_name": exercise.spec.class_name,
            "signature": exercise.meta.signature,
            "parameters": [p.model_dump() for p in exercise.meta.parameters],
            "forbidden": exercise.meta.forbidden,
        },
        "known_mistakes": [m.name for m in exercise.spec.mistakes],
        # What an interviewer asks once the code runs; the full question, its answer and its
        # explanation are the question bank's (GET /questions/{question_id}).
        "follow_ups": [
            {"question_id": f.question, "ask": f.text(lang)}
            for f in follow_ups_for(ctx.settings.content_dir, exercise.slug)
        ],
    }


# --------------------------------------------------------------------------- hints and solution


def _not_during_interview(session: Session, user_id: int) -> None:
    """Help waits, like every other practice, while the learner's mock interview runs (the
    service-layer check, for callers that are not routes; api.http.hold refuses the routes
    first)."""
    practice_pause.ensure_open(session, user_id=user_id)


class HintPublic(BaseModel):
    exercise: str
    rung: int
    of: int
    kind: str
    lang: Lang
    text: str


@router.get("/exercises/{slug}/hints/{number}", response_model=HintPublic)
def read_hint(
    number: int, exercise: ExerciseDep, user: CurrentUser, session: SessionDep, lang: Lang = "en"
) -> HintPublic:
    """Rung ``number`` (1-based) of the hint ladder: concept, formula, the line usually wrong.
    Recorded: a pass after hints is rated Hard in review."""
    assert user.id is not None
    total = len(exercise.hints)
    if not 1 <= number <= total:
        raise HTTPException(
            404, detail=f"Hint {number} does not exist: {exercise.slug} has hints 1 to {total}"
        )
    _not_during_interview(session, user.id)
    hints.record(
        session, user_id=user.id, exercise=exercise.slug, kind="hint", rung=number, now=_now()
    )
    return HintPublic(
        exercise=exercise.slug,
        rung=number,
        of=total,
        kind=HINT_RUNGS[number - 1],
        lang=lang,
        text=exercise.hints[number - 1].text(lang),
    )


class SolutionPublic(BaseModel):
    exercise: str
    code: str
    reason: str


def _solution(
    ctx: AppContext, exercise: Exercise, user: User, session: Session, *, reveal: bool, lang: Lang
) -> SolutionPublic:
    assert user.id is not None
    _not_during_interview(session, user.id)
    passed, failed = hints.outcomes(session, user_id=user.id, exercise=exercise.slug)
    access = hints.solution_access(passed=passed, failed=failed, reveal=reveal, lang=lang)
    if not access.allowed:
        raise HTTPException(403, detail=access.reason)
    code = hints.worked_solution(ctx.settings.solutions_dir, exercise)
    if code is None:
        raise HTTPException(404, detail=f"This server has no worked solution for {exercise.slug}")
    hints.record(
        session, user_id=user.id, exercise=exercise.slug, kind="solution", rung=None, now=_now()
    )
    return SolutionPublic(exercise=exercise.slug, code=code, reason=access.reason)


@router.get("/exercises/{slug}/solution", response_model=SolutionPublic)
def read_solution(
    ctx: AppDep,
    exercise: ExerciseDep,
    user: CurrentUser,
    session: SessionDep,
    reveal: bool = False,
    lang: Lang = "en",
) -> SolutionPublic:
    """The worked solution: after a pass; or, after 3 failed attempts, with ``reveal=1``
    (then a later pass is rated Again). Otherwise 403 saying how many attempts unlock it."""
    return _solution(ctx, exercise, user, session, reveal=reveal, lang=lang)


@router.post("/exercises/{slug}/solution", response_model=SolutionPublic)
def reveal_solution(
    ctx: AppDep, exercise: ExerciseDep, user: CurrentUser, session: SessionDep, lang: Lang = "en"
) -> SolutionPublic:
    """The explicit request: the same as ``GET ...?reveal=1``."""
    return _solution(ctx, exercise, user, session, reveal=True, lang=lang)


class SolutionStatus(BaseModel):
    allowed: bool
    needs_reveal: bool
    seen: bool
    failed_attempts: int
    attempts_to_unlock: int
    reason: str


class HelpPublic(BaseModel):
    exercise: str
    hints_total: int
    hints_seen: list[int]
    solution: SolutionStatus
    # When the exercise's review card comes back (null before any graded submission).
    next_review: NextReviewPublic | None


@router.get("/exercises/{slug}/help", response_model=HelpPublic)
def read_help(
    exercise: ExerciseDep, user: CurrentUser, session: SessionDep, lang: Lang = "en"
) -> HelpPublic:
    """What help the learner has used for this exercise, whether the solution is open, and when
    the exercise comes back for review (which the help used has moved)."""
    assert user.id is not None
    passed, failed = hints.outcomes(session, user_id=user.id, exercise=exercise.slug)
    access = hints.solution_access(passed=passed, failed=failed, reveal=False, lang=lang)
    used = hints.seen(session, user_id=user.id, exercise=exercise.slug)
    due = practice.next_review(
        session, user_id=user.id, kind="exercise", item_id=exercise.slug, lang=lang, now=_now()
    )
    return HelpPublic(
        exercise=exercise.slug,
        hints_total=len(exercise.hints),
        hints_seen=used.hints,
        solution=SolutionStatus(
            allowed=access.allowed,
            needs_reveal=access.needs_reveal,
            seen=used.solution,
            failed_attempts=access.failed_attempts,
            attempts_to_unlock=access.attempts_to_unlock,
            reason=access.reason,
        ),
        next_review=NextReviewPublic.of(due) if due is not None else None,
    )


# --------------------------------------------------------------------------- drafts


class DraftPublic(BaseModel):
    exercise: str
    code: str
    updated_at: datetime


def _draft_public(row: Draft) -> DraftPublic:
    moment = row.updated_at if row.updated_at.tzinfo else row.updated_at.replace(tzinfo=UTC)
    return DraftPublic(exercise=row.exercise, code=row.code, updated_at=moment)


@router.get("/exercises/{slug}/draft", response_model=DraftPublic)
def read_draft(exercise: ExerciseDep, user: CurrentUser, session: SessionDep) -> DraftPublic:
    assert user.id is not None
    row = drafts.load(session, user_id=user.id, exercise=exercise.slug)
    if row is None:
        raise HTTPException(404, detail="No draft saved for this exercise")
    return _draft_public(row)


@router.put("/exercises/{slug}/draft", response_model=DraftPublic)
def save_draft(
    body: DraftSave, exercise: ExerciseDep, user: CurrentUser, session: SessionDep, ctx: AppDep
) -> DraftPublic:
    """Keep the code being written (up to 64 KiB, as a submission), replacing the last draft.
    Per learner: ADDNORM_DRAFT_SAVES_PER_HOUR saves, ADDNORM_DRAFTS_PER_LEARNER drafts and
    ADDNORM_DRAFT_BYTES_PER_LEARNER bytes in all."""
    assert user.id is not None
    ctx.client_limits.hit("draft_saves", user.id)
    quota = drafts.Quota(
        count=ctx.settings.drafts_per_learner, total_bytes=ctx.settings.draft_bytes_per_learner
    )
    try:
        row = drafts.save(
            session,
            user_id=user.id,
            exercise=exercise.slug,
            code=body.code,
            now=_now(),
            quota=quota,
        )
    except drafts.DraftTooLarge as exc:
        raise HTTPException(413, detail=str(exc)) from None
    except drafts.OverQuota as exc:
        raise HTTPException(413, detail=str(exc)) from None
    return _draft_public(row)


def _now() -> datetime:
    return datetime.now(UTC)

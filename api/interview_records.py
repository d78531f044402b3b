"""Mock interviews in the tables, and their report.

The thin adapter around api.interviews (what to ask, when time is up, how time was spent): it
reads and writes ``Interview`` and ``InterviewAttempt`` rows, always with the time passed in.

While an interview runs, answers are checked and stored on the attempt but kept out of the
learner's answers and review cards, so neither ``/progress`` nor ``/review`` tells whether an
answer was right. When it ends (the learner finishes it, or the first request after its deadline
finds it expired) the held answers are written as ordinary answers and their cards reviewed, once:
the state change is a conditional UPDATE, so two requests cannot both feed them. Coding items go
through the normal submission flow, which records the verdict and reviews the exercise's card as
it always does; the interview only withholds the verdict's details in its own responses.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from pydantic import BaseModel
from sqlalchemy import update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from api import interviews, practice, review, submissions
from api.catalog import Exercise, Lang
from api.interviews import InterviewState, ItemResult
from api.models import Interview, InterviewAttempt, QuestionAnswer, Submission
from api.practice import NextReviewPublic
from api.questions import (
    AnswerResult,
    AnswerShapeError,
    PublicQuestion,
    QuestionBank,
    Topic,
    check_answer,
    public_view,
)
from api.verdict_i18n import render

# --------------------------------------------------------------------------- errors


class InterviewError(Exception):
    """A request the interview cannot take; the message is the API's ``detail``."""


class InterviewNotFound(InterviewError):
    def __init__(self) -> None:
        super().__init__("Interview not found")


class ItemNotFound(InterviewError):
    def __init__(self, position: int, count: int) -> None:
        super().__init__(f"This interview has no item {position} (its items are 1..{count})")


class InterviewOver(InterviewError):
    def __init__(self, row: Interview) -> None:
        how = "ran out of time" if row.state == InterviewState.expired else "was finished"
        ended = _aware(row.ended_at or row.deadline).isoformat()
        super().__init__(
            f"The interview {how} at {ended}; read its report at GET /interviews/{row.id}"
        )


class InterviewRunning(InterviewError):
    def __init__(self, row: Interview) -> None:
        super().__init__(
            f"Interview {row.id} is still running (until {_aware(row.deadline).isoformat()}); "
            f"finish it with POST /interviews/{row.id}/finish first"
        )


class StartCollided(InterviewError):
    def __init__(self) -> None:
        super().__init__("Another interview was started and ended at this very moment; start again")


class WrongItemKind(InterviewError):
    pass


class AlreadyAnswered(InterviewError):
    def __init__(self, position: int) -> None:
        super().__init__(f"Item {position} is already answered; an answer cannot be changed")


class NothingToAsk(InterviewError):
    pass


class ItemRetired(InterviewError):
    def __init__(self, it: Item) -> None:
        super().__init__(f"Item {it.position} ({it.item_id}) is no longer served")


# --------------------------------------------------------------------------- public schemas


class ItemPublic(BaseModel):
    position: int
    kind: Literal["question", "exercise"]
    id: str
    topics: list[Topic]
    # Exercises: the title (GET /exercises/{id} has the prompt and starter). Questions: the
    # question as GET /questions/{id} shows it.
    title: str | None = None
    question: PublicQuestion | None = None
    # open, answered (a question), submitted (an exercise, at least once)
    status: Literal["open", "answered", "submitted"]
    attempts: int


class ItemReport(BaseModel):
    position: int
    kind: Literal["question", "exercise"]
    id: str
    topics: list[Topic]
    result: ItemResult
    time_spent_seconds: float
    attempts: int
    # Questions: the answer given and the key, explanation and source now revealed.
    answer: Any = None
    check: AnswerResult | None = None
    # Exercises: the last graded submission, in full (as GET /submissions/{id} shows it).
    verdict: dict[str, Any] | None = None
    submission_ids: list[int] = []
    next_review: NextReviewPublic | None = None


class TopicChange(BaseModel):
    before: float
    after: float
    change: float


class ReviewAdvice(BaseModel):
    position: int
    kind: Literal["question", "exercise"]
    id: str
    topics: list[Topic]
    reason: str
    next_review: NextReviewPublic | None = None


class Score(BaseModel):
    right: int
    total: int


class InterviewReport(BaseModel):
    ended_by: Literal["learner", "time"]
    time_used_seconds: float
    # Time after the last answer or submission: thinking that led nowhere, or time left over.
    time_unaccounted_seconds: float
    score: Score
    items: list[ItemReport]
    mastery: dict[Topic, TopicChange]
    # What went wrong or was not reached, weakest topic first.
    review: list[ReviewAdvice]
    weakest_topics: list[Topic]


class InterviewPublic(BaseModel):
    id: int
    state: InterviewState
    lang: Lang
    minutes: float
    topics: list[Topic]
    focus_topics: list[Topic]
    started_at: datetime
    deadline: datetime
    ended_at: datetime | None
    remaining_seconds: float
    items: list[ItemPublic]
    # Only once the interview has ended.
    report: InterviewReport | None = None


class InterviewSummary(BaseModel):
    id: int
    state: InterviewState
    minutes: float
    started_at: datetime
    deadline: datetime
    ended_at: datetime | None
    items: int


class AnswerRecorded(BaseModel):
    position: int
    recorded: bool
    remaining_seconds: float


class SubmissionRecorded(BaseModel):
    position: int
    # passed / not_passed, or pending while a queued submission waits for its verdict.
    result: Literal["passed", "not_passed", "pending"]
    remaining_seconds: float


# --------------------------------------------------------------------------- helpers


def _aware(moment: datetime) -> datetime:
    # SQLite returns naive datetimes; everything stored is UTC.
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


@dataclass(frozen=True)
class Item:
    position: int
    kind: Literal["question", "exercise"]
    item_id: str
    topics: list[Topic]


def _items(row: Interview) -> list[Item]:
    return [Item(i["position"], i["kind"], i["id"], list(i["topics"])) for i in row.items]


def item(row: Interview, position: int) -> Item:
    for it in _items(row):
        if it.position == position:
            return it
    raise ItemNotFound(position, len(row.items))


def _attempts(session: Session, row: Interview) -> list[InterviewAttempt]:
    return list(
        session.exec(
            select(InterviewAttempt)
            .where(InterviewAttempt.interview_id == row.id)
            .order_by(col(InterviewAttempt.at), col(InterviewAttempt.id))
        )
    )


def remaining_seconds(row: Interview, now: datetime) -> float:
    if row.state != InterviewState.running:
        return 0.0
    return round(max(0.0, (_aware(row.deadline) - now).total_seconds()), 1)


def _mastery_levels(
    session: Session, user_id: int, bank: QuestionBank, catalog: dict[str, Exercise]
) -> dict[str, float]:
    levels = practice.mastery(session, user_id=user_id, bank=bank, catalog=catalog)
    return {t: round(m.mastery, 4) for t, m in levels.items()}


def _known_right(session: Session, user_id: int) -> set[tuple[review.ItemKind, str]]:
    """Items whose latest answer was right or whose latest verdict passed."""
    latest: dict[tuple[review.ItemKind, str], bool] = {}
    for a in session.exec(
        select(QuestionAnswer)
        .where(QuestionAnswer.user_id == user_id)
        .order_by(col(QuestionAnswer.created_at), col(QuestionAnswer.id))
    ):
        latest[("question", a.question_id)] = a.correct
    for s in session.exec(
        select(Submission)
        .where(Submission.user_id == user_id, Submission.state == "done")
        .order_by(col(Submission.id))
        .options(*submissions.SUMMARY_ONLY)
    ):
        latest[("exercise", s.exercise)] = s.verdict == "passed"
    return {key for key, ok in latest.items() if ok}


# --------------------------------------------------------------------------- lifecycle


def get(session: Session, *, user_id: int, interview_id: int) -> Interview:
    row = session.get(Interview, interview_id)
    # Someone else's interview is as absent as one that never existed.
    if row is None or row.user_id != user_id:
        raise InterviewNotFound()
    return row


def list_for(session: Session, *, user_id: int) -> list[Interview]:
    return list(
        session.exec(
            select(Interview)
            .where(Interview.user_id == user_id)
            .order_by(col(Interview.id).desc())
            .limit(100)
        )
    )


def start(
    session: Session,
    *,
    user_id: int,
    bank: QuestionBank,
    catalog: dict[str, Exercise],
    minutes: float,
    topics: Sequence[Topic] | None,
    lang: Lang,
    now: datetime,
    rng: random.Random,
) -> Interview:
    """Compose and store a new interview; one may run at a time per learner."""
    settle_expired(session, user_id=user_id, bank=bank, catalog=catalog, now=now)
    running = session.exec(
        select(Interview).where(
            Interview.user_id == user_id, Interview.state == InterviewState.running
        )
    ).first()
    if running is not None:
        raise InterviewRunning(running)
    mastery = _mastery_levels(session, user_id, bank, catalog)
    plan = interviews.compose_interview(
        catalogue=practice.practice_catalogue(bank, catalog),
        mastery=mastery,  # type: ignore[arg-type]  # keys are the topics practice.mastery gave
        known_right=_known_right(session, user_id),
        minutes=minutes,
        rng=rng,
        topics=topics,
    )
    if not plan.items:
        raise NothingToAsk("No questions or exercises cover these topics")
    row = Interview(
        user_id=user_id,
        lang=lang,
        minutes=minutes,
        topics=list(topics or []),
        items=[
            {"position": n, "kind": i.kind, "id": i.item_id, "topics": list(i.topics)}
            for n, i in enumerate(plan.items, start=1)
        ],
        focus_topics=list(plan.focus_topics),
        mastery_before=mastery,
        state=InterviewState.running,
        started_at=now,
        deadline=now + timedelta(minutes=minutes),
    )
    session.add(row)
    try:
        session.commit()
    except IntegrityError:
        # Another start for this learner committed between the read above and this insert: the
        # one-running index refused ours. Answer as if it had been seen, with the winner.
        session.rollback()
        winner = session.exec(
            select(Interview).where(
                Interview.user_id == user_id, Interview.state == InterviewState.running
            )
        ).first()
        if winner is None:  # it ended in between
            raise StartCollided() from None
        raise InterviewRunning(winner) from None
    session.refresh(row)
    return row


def settle(
    session: Session,
    row: Interview,
    *,
    bank: QuestionBank,
    catalog: dict[str, Exercise],
    now: datetime,
) -> Interview:
    """End a running interview whose time is up (at its deadline, not at ``now``)."""
    state = interviews.state_at(
        now,
        deadline=_aware(row.deadline),
        ended_at=row.ended_at,
        state=InterviewState(row.state),
    )
    if state is InterviewState.expired and row.state == InterviewState.running:
        _end(session, row, InterviewState.expired, _aware(row.deadline), bank, catalog, now)
    return row


def settle_expired(
    session: Session,
    *,
    user_id: int,
    bank: QuestionBank,
    catalog: dict[str, Exercise],
    now: datetime,
) -> None:
    """End every interview of the learner whose time is up, so its answers reach review even if
    nobody opens it again."""
    for row in session.exec(
        select(Interview).where(
            Interview.user_id == user_id,
            Interview.state == InterviewState.running,
            col(Interview.deadline) <= now,
        )
    ).all():
        settle(session, row, bank=bank, catalog=catalog, now=now)


def holding(
    session: Session, *, user_id: int, kind: str, item_id: str, now: datetime
) -> Interview | None:
    """The learner's running interview that asks this item, if any (outside it, the item would
    be answered with full feedback)."""
    for row in session.exec(
        select(Interview).where(
            Interview.user_id == user_id,
            Interview.state == InterviewState.running,
            col(Interview.deadline) > now,
        )
    ):
        if any(i["kind"] == kind and i["id"] == item_id for i in row.items):
            return row
    return None


def held_exercises(session: Session, *, user_id: int, now: datetime) -> dict[str, datetime]:
    """The exercises the learner's running interview asks, each with when that interview
    started: their verdicts stay withheld from then until it ends (see api.routes.submissions)."""
    held: dict[str, datetime] = {}
    for row in session.exec(
        select(Interview).where(
            Interview.user_id == user_id,
            Interview.state == InterviewState.running,
            col(Interview.deadline) > now,
        )
    ):
        for i in row.items:
            if i["kind"] == "exercise":
                held[str(i["id"])] = _aware(row.started_at)
    return held


def finish(
    session: Session,
    row: Interview,
    *,
    bank: QuestionBank,
    catalog: dict[str, Exercise],
    now: datetime,
) -> Interview:
    """The learner ends the interview now; finishing an ended one changes nothing."""
    settle(session, row, bank=bank, catalog=catalog, now=now)
    if row.state == InterviewState.running:
        _end(session, row, InterviewState.finished, now, bank, catalog, now)
    return row


def _end(
    session: Session,
    row: Interview,
    state: InterviewState,
    ended_at: datetime,
    bank: QuestionBank,
    catalog: dict[str, Exercise],
    now: datetime,
) -> None:
    # End the read transaction first: the UPDATE must be the first statement of the writing one.
    session.commit()
    claimed = session.connection().execute(
        update(Interview)
        .where(col(Interview.id) == row.id, col(Interview.state) == InterviewState.running)
        .values(state=state.value, ended_at=ended_at)
    )
    if claimed.rowcount != 1:
        # Another request ended it first and fed its answers; read what it wrote.
        session.rollback()
        session.refresh(row)
        return
    # Feed the held answers to review, as answered when they were given but reviewed now (a card
    # cannot be reviewed before its last review, and the learner may have met it since).
    seen: set[int] = set()
    for attempt in _attempts(session, row):
        if attempt.kind != "question" or attempt.position in seen:
            continue
        seen.add(attempt.position)
        result = _recheck(bank, attempt.item_id, attempt.answer, "en")
        if result is None:
            continue
        practice.record_answer(
            session,
            user_id=row.user_id,
            question=bank.get(attempt.item_id),
            result=result,
            answered_at=_aware(attempt.at),
            now=now,
        )
    session.flush()
    session.execute(
        update(Interview)
        .where(col(Interview.id) == row.id)
        .values(mastery_after=_mastery_levels(session, row.user_id, bank, catalog))
    )
    session.commit()
    session.refresh(row)


def _recheck(bank: QuestionBank, question_id: str, held: object, lang: Lang) -> AnswerResult | None:
    """Check a held answer again (for the explanation in ``lang``, or to feed review); None when
    the question was retired or edited since so that the answer no longer fits it."""
    if question_id not in bank:
        return None
    try:
        return check_answer(bank.get(question_id), held, lang)
    except AnswerShapeError:
        return None


# --------------------------------------------------------------------------- answering


def _require_running(row: Interview, it: Item, kind: str) -> None:
    if row.state != InterviewState.running:
        raise InterviewOver(row)
    if it.kind != kind:
        where = "answers" if it.kind == "question" else "submissions"
        raise WrongItemKind(
            f"Item {it.position} is a {'question' if it.kind == 'question' else 'coding exercise'}"
            f": send it to POST /interviews/{row.id}/items/{it.position}/{where}"
        )


def answer(
    session: Session,
    row: Interview,
    *,
    position: int,
    raw_answer: object,
    bank: QuestionBank,
    now: datetime,
) -> InterviewAttempt:
    """Check and hold a question's answer (raises AnswerShapeError for a malformed one)."""
    assert row.id is not None
    it = item(row, position)
    _require_running(row, it, "question")
    if it.item_id not in bank:
        raise ItemRetired(it)
    if any(a.position == position for a in _attempts(session, row)):
        raise AlreadyAnswered(position)
    result = check_answer(bank.get(it.item_id), raw_answer, "en")
    attempt = InterviewAttempt(
        interview_id=row.id,
        position=position,
        kind="question",
        item_id=it.item_id,
        at=now,
        answer=result.answer,
        correct=result.correct,
    )
    # End the read transaction: the insert starts a writing one of its own.
    session.commit()
    session.add(attempt)
    session.commit()
    return attempt


def submittable(row: Interview, position: int, catalog: dict[str, Exercise]) -> Exercise:
    """The exercise of a coding item that may take a submission now."""
    it = item(row, position)
    _require_running(row, it, "exercise")
    if it.item_id not in catalog:
        raise ItemRetired(it)
    return catalog[it.item_id]


def record_submission(
    session: Session, row: Interview, *, position: int, submission_id: int, at: datetime
) -> None:
    assert row.id is not None
    it = item(row, position)
    session.add(
        InterviewAttempt(
            interview_id=row.id,
            position=position,
            kind="exercise",
            item_id=it.item_id,
            at=at,
            submission_id=submission_id,
        )
    )
    session.commit()


SubmissionOutcome = Literal["passed", "not_passed", "pending"]


def submission_result(verdict: str | None, state: str) -> SubmissionOutcome:
    if state != "done":
        return "pending"
    return "passed" if verdict == "passed" else "not_passed"


# --------------------------------------------------------------------------- views


def _describe_item(
    it: Item, bank: QuestionBank, catalog: dict[str, Exercise], lang: Lang
) -> dict[str, Any]:
    if it.kind == "question" and it.item_id in bank:
        return {"question": public_view(bank.get(it.item_id), lang)}
    if it.kind == "exercise" and it.item_id in catalog:
        return {"title": catalog[it.item_id].title(lang)}
    return {}


def view(
    session: Session,
    row: Interview,
    *,
    bank: QuestionBank,
    catalog: dict[str, Exercise],
    now: datetime,
) -> InterviewPublic:
    """The interview as its learner sees it: results only once it has ended."""
    assert row.id is not None
    lang: Lang = "zh" if row.lang == "zh" else "en"
    attempts = _attempts(session, row)
    items = []
    for it in _items(row):
        mine = [a for a in attempts if a.position == it.position]
        status: Literal["open", "answered", "submitted"] = "open"
        if mine:
            status = "answered" if it.kind == "question" else "submitted"
        items.append(
            ItemPublic(
                position=it.position,
                kind=it.kind,
                id=it.item_id,
                topics=it.topics,
                status=status,
                attempts=len(mine),
                **_describe_item(it, bank, catalog, lang),
            )
        )
    report = None
    if row.state != InterviewState.running:
        report = _report(session, row, attempts, bank, lang, now)
    return InterviewPublic(
        id=row.id,
        state=InterviewState(row.state),
        lang=lang,
        minutes=row.minutes,
        topics=row.topics,  # type: ignore[arg-type]  # validated when the interview started
        focus_topics=row.focus_topics,  # type: ignore[arg-type]
        started_at=_aware(row.started_at),
        deadline=_aware(row.deadline),
        ended_at=_aware(row.ended_at) if row.ended_at else None,
        remaining_seconds=remaining_seconds(row, now),
        items=items,
        report=report,
    )


def summary(row: Interview) -> InterviewSummary:
    assert row.id is not None
    return InterviewSummary(
        id=row.id,
        state=InterviewState(row.state),
        minutes=row.minutes,
        started_at=_aware(row.started_at),
        deadline=_aware(row.deadline),
        ended_at=_aware(row.ended_at) if row.ended_at else None,
        items=len(row.items),
    )


_REASONS: dict[ItemResult, str] = {
    ItemResult.wrong: "wrong answer",
    ItemResult.not_passed: "the last submission did not pass",
    ItemResult.not_answered: "not reached in time",
    ItemResult.pending: "submitted, not graded yet",
}


def _report(
    session: Session,
    row: Interview,
    attempts: list[InterviewAttempt],
    bank: QuestionBank,
    lang: Lang,
    now: datetime,
) -> InterviewReport:
    started = _aware(row.started_at)
    ended = _aware(row.ended_at or row.deadline)
    spent = interviews.time_spent(started, [(a.position, _aware(a.at)) for a in attempts], ended)
    reports: list[ItemReport] = []
    for it in _items(row):
        mine = [a for a in attempts if a.position == it.position]
        next_review = practice.next_review(
            session, user_id=row.user_id, kind=it.kind, item_id=it.item_id, lang=lang, now=now
        )
        entry = ItemReport(
            position=it.position,
            kind=it.kind,
            id=it.item_id,
            topics=it.topics,
            result=ItemResult.not_answered,
            time_spent_seconds=round(spent.get(it.position, timedelta()).total_seconds(), 3),
            attempts=len(mine),
            next_review=NextReviewPublic.of(next_review) if next_review else None,
        )
        if it.kind == "question" and mine:
            first = mine[0]
            entry.answer = first.answer
            entry.result = ItemResult.correct if first.correct else ItemResult.wrong
            entry.check = _recheck(bank, it.item_id, first.answer, lang)
        elif it.kind == "exercise" and mine:
            entry.submission_ids = [a.submission_id for a in mine if a.submission_id is not None]
            rows = [
                s
                for sid in entry.submission_ids
                if (s := submissions.get(session, user_id=row.user_id, submission_id=sid))
            ]
            graded = [s for s in rows if s.state == "done"]
            if graded:
                last = graded[-1]
                entry.verdict = render(submissions.public(last), lang)  # the interview's language
                entry.result = (
                    ItemResult.passed if last.verdict == "passed" else ItemResult.not_passed
                )
            elif rows:
                entry.result = ItemResult.pending
        reports.append(entry)

    after = row.mastery_after or row.mastery_before
    touched = sorted({t for it in _items(row) for t in it.topics}, key=lambda t: after.get(t, 0))
    mastery = {
        t: TopicChange(
            before=row.mastery_before.get(t, 0.0),
            after=after.get(t, 0.0),
            change=round(after.get(t, 0.0) - row.mastery_before.get(t, 0.0), 4),
        )
        for t in touched
    }
    weakness = {t: n for n, t in enumerate(touched)}
    missed = [r for r in reports if r.result in _REASONS]
    missed.sort(key=lambda r: (min(weakness.get(t, 0) for t in r.topics), r.position))
    used = (ended - started).total_seconds()
    return InterviewReport(
        ended_by="time" if row.state == InterviewState.expired else "learner",
        time_used_seconds=round(used, 3),
        time_unaccounted_seconds=round(
            max(0.0, used - sum(s.total_seconds() for s in spent.values())), 3
        ),
        score=Score(
            right=sum(r.result in (ItemResult.correct, ItemResult.passed) for r in reports),
            total=len(reports),
        ),
        items=reports,
        mastery=mastery,
        review=[
            ReviewAdvice(
                position=r.position,
                kind=r.kind,
                id=r.id,
                topics=r.topics,
                reason=_REASONS[r.result],
                next_review=r.next_review,
            )
            for r in missed
        ],
        weakest_topics=touched[:3],
    )

"""Mock interviews in the tables, and their report.

The thin adapter around api.learning.interviews (what to ask, when time is up, how time was
spent): it reads and writes ``Interview`` and ``InterviewAttempt`` rows, always with the time
passed in.

While an interview runs, answers are checked and stored on the attempt but kept out of the
learner's answers and review cards, so neither ``/progress`` nor ``/review`` tells whether an
answer was right. When it ends (the learner finishes it, or the first request after its deadline
finds it expired) the held answers are written as ordinary answers and their cards reviewed, once:
the state change is a conditional UPDATE, so two requests cannot both feed them. Coding items go
through the normal submission flow, which records the verdict and reviews the exercise's card as
it always does; the interview only withholds the verdict's details in its own responses.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel
from sqlalchemy import update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from api import plaintext
from api.content import interview_rubric as rubric
from api.content.catalog import Exercise, Lang
from api.content.followups import follow_ups_for
from api.content.interview_rubric import Dimension, Recommendation
from api.content.questions import (
    AnswerResult,
    AnswerShapeError,
    PublicQuestion,
    QuestionBank,
    Topic,
    check_answer,
    public_view,
)
from api.learning import interviews, practice, review, submissions
from api.learning.interviews import PRESETS, InterviewState, ItemResult
from api.learning.practice import NextReviewPublic
from api.learning.verdict_i18n import render
from api.models import Interview, InterviewAttempt, InterviewEvent, QuestionAnswer, Submission

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


class AttemptLimit(InterviewError):
    def __init__(self, position: int, limit: int) -> None:
        super().__init__(
            f"Item {position} has had its {limit} submissions; the interview takes no more for it"
        )


class UnansweredItems(InterviewError):
    """Finishing would leave items unanswered: the learner confirms first."""

    def __init__(self, row: Interview, positions: list[int]) -> None:
        self.positions = positions
        listed = ", ".join(str(p) for p in positions)
        super().__init__(
            f"Items {listed} are not answered yet; to end the interview anyway, send "
            f"POST /interviews/{row.id}/finish?confirm=true (they are reported as unanswered)"
        )


class NotEnded(InterviewError):
    def __init__(self, row: Interview) -> None:
        super().__init__(
            f"Interview {row.id} is still running: the rubric and the self-rating come at the end"
        )


class NothingToRate(InterviewError):
    def __init__(self, row: Interview) -> None:
        super().__init__(f"Interview {row.id} has no explain item to rate")


class ItemRetired(InterviewError):
    def __init__(self, it: Item) -> None:
        super().__init__(f"Item {it.position} ({it.item_id}) is no longer served")


# --------------------------------------------------------------------------- public schemas


ItemKind = Literal["question", "exercise", "follow_up", "explain"]


class ItemPublic(BaseModel):
    position: int
    kind: ItemKind
    id: str
    topics: list[Topic]
    difficulty: int
    # Exercises and explain items: the title, and (exercises) the prompt and the starter, since
    # practice routes such as GET /exercises/{slug} wait while the interview runs. Questions and
    # follow-ups: the question as GET /questions/{id} shows it (no key).
    title: str | None = None
    prompt: str | None = None
    starter: str | None = None
    question: PublicQuestion | None = None
    # follow_up: the interviewer's words, and the position of the exercise it follows.
    ask: str | None = None
    follows: int | None = None
    # open, answered (a question, follow-up or explanation), submitted (an exercise, at least once)
    status: Literal["open", "answered", "submitted"]
    attempts: int
    max_attempts: int | None = None
    budget_seconds: float
    time_spent_seconds: float


class ItemReport(BaseModel):
    position: int
    kind: ItemKind
    id: str
    topics: list[Topic]
    result: ItemResult
    time_spent_seconds: float
    budget_seconds: float
    over_budget: bool
    attempts: int
    max_attempts: int | None = None
    ask: str | None = None
    # Explain items: what the learner wrote, the model answer point by point and the rubric's
    # point names, in the report's language.
    explanation: str | None = None
    model_answer: dict[str, str] | None = None
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
    kind: ItemKind
    id: str
    topics: list[Topic]
    reason: str
    next_review: NextReviewPublic | None = None


class Score(BaseModel):
    right: int
    total: int


class RubricScore(BaseModel):
    dimension: Dimension
    name: str
    score: int | None  # 0..4; None when this interview held nothing to judge it by
    max_score: int = rubric.MAX_SCORE
    evidence: list[str]


class TrendPoint(BaseModel):
    id: int
    started_at: datetime
    preset: str
    score: float  # the rubric's mean, 0..4
    recommendation: Recommendation


class SelfRatingPublic(BaseModel):
    points: dict[str, int]
    names: dict[str, str]
    max_per_point: int = rubric.SELF_MAX


class InterviewReport(BaseModel):
    lang: Lang
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
    rubric: list[RubricScore]
    recommendation: Recommendation
    recommendation_name: str
    reasons: list[str]
    # None until the learner rates their explanation (POST /interviews/{id}/self-rating).
    self_rating: SelfRatingPublic | None = None
    unanswered: list[int]
    # The learner's ended interviews, oldest first, this one included.
    trend: list[TrendPoint] = []


class InterviewPublic(BaseModel):
    id: int
    state: InterviewState
    lang: Lang
    preset: str
    max_attempts: int
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
    preset: str
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
    # Only "received" while the interview runs: passed or not is the report's to tell, or a
    # learner would resubmit until it passes.
    result: Literal["received"] = "received"
    submission_id: int
    attempts: int
    attempts_left: int
    remaining_seconds: float


class ItemClock(BaseModel):
    position: int
    event: Literal["open", "leave"]
    budget_seconds: float
    time_spent_seconds: float
    remaining_seconds: float


# --------------------------------------------------------------------------- helpers


def _aware(moment: datetime) -> datetime:
    # SQLite returns naive datetimes; everything stored is UTC.
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


@dataclass(frozen=True)
class Item:
    position: int
    kind: ItemKind
    item_id: str
    topics: list[Topic]
    budget_seconds: float = 0.0
    difficulty: int = 2
    of: str | None = None  # follow_up: the slug of the exercise it follows
    ask: str | None = None
    ask_zh: str | None = None

    @property
    def answered_by_text(self) -> bool:
        return self.kind == "explain"

    @property
    def checked(self) -> bool:
        return self.kind in ("question", "follow_up")


def _old_budget(kind: str) -> float:
    # Interviews from before budgets were stored: the per-kind minutes they were planned with.
    return 60.0 * (
        interviews.MINUTES_PER_EXERCISE if kind == "exercise" else interviews.MINUTES_PER_QUESTION
    )


def _items(row: Interview) -> list[Item]:
    return [
        Item(
            i["position"],
            i["kind"],
            i["id"],
            list(i["topics"]),
            float(i.get("budget_seconds") or _old_budget(i["kind"])),
            int(i.get("difficulty", 2)),
            i.get("of"),
            i.get("ask"),
            i.get("ask_zh"),
        )
        for i in row.items
    ]


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


_DIFFICULTY = {"easy": 1, "medium": 2, "hard": 3}


def _round_catalogue(bank: QuestionBank, catalog: dict[str, Exercise]) -> list[review.ItemRef]:
    """The practice catalogue with each exercise's difficulty from its meta (for the ramp)."""
    return [
        dataclasses.replace(i, difficulty=_DIFFICULTY[catalog[i.item_id].meta.difficulty])
        if i.kind == "exercise"
        else i
        for i in practice.practice_catalogue(bank, catalog)
    ]


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
    preset: str = interviews.DEFAULT_PRESET,
    max_attempts: int = 3,
    content_dir: Path | None = None,
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
    follow_ups = (
        {
            slug: [(f.question, f.ask, f.ask_zh) for f in follow_ups_for(content_dir, slug)]
            for slug in catalog
        }
        if content_dir is not None
        else {}
    )
    planned, focus = interviews.compose_round(
        preset=PRESETS[preset],
        catalogue=_round_catalogue(bank, catalog),
        mastery=mastery,  # type: ignore[arg-type]  # keys are the topics practice.mastery gave
        known_right=_known_right(session, user_id),
        minutes=minutes,
        rng=rng,
        follow_ups=follow_ups,
        topics=topics,
    )
    if not planned:
        raise NothingToAsk("No questions or exercises cover these topics")
    items: list[dict[str, Any]] = []
    for n, p in enumerate(planned, start=1):
        entry: dict[str, Any] = {
            "position": n,
            "kind": p.kind,
            "id": p.item_id,
            "topics": list(p.topics),
            "difficulty": p.difficulty,
            "budget_seconds": p.budget_seconds,
        }
        if p.of is not None:
            entry["of"] = p.of
        if p.ask is not None:
            entry["ask"], entry["ask_zh"] = p.ask
        items.append(entry)
    row = Interview(
        user_id=user_id,
        lang=lang,
        minutes=minutes,
        topics=list(topics or []),
        items=items,
        focus_topics=list(focus),
        mastery_before=mastery,
        state=InterviewState.running,
        started_at=now,
        deadline=now + timedelta(minutes=minutes),
        preset=preset,
        max_attempts=max_attempts,
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


def finish(
    session: Session,
    row: Interview,
    *,
    bank: QuestionBank,
    catalog: dict[str, Exercise],
    now: datetime,
    confirm: bool = True,
) -> Interview:
    """The learner ends the interview now; finishing an ended one changes nothing. Without
    ``confirm``, items still unanswered refuse it (UnansweredItems), so a stray click does not
    end an interview half done."""
    settle(session, row, bank=bank, catalog=catalog, now=now)
    if row.state == InterviewState.running:
        if not confirm:
            left = unanswered(session, row)
            if left:
                raise UnansweredItems(row, left)
        _end(session, row, InterviewState.finished, now, bank, catalog, now)
    return row


def unanswered(session: Session, row: Interview) -> list[int]:
    done = {a.position for a in _attempts(session, row)}
    return [it.position for it in _items(row) if it.position not in done]


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
        if attempt.kind not in ("question", "follow_up") or attempt.position in seen:
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


_ROUTE = {
    "question": "answers",
    "follow_up": "answers",
    "explain": "answers",
    "exercise": "submissions",
}
_KIND_NAME = {
    "question": "question",
    "follow_up": "follow-up question",
    "explain": "explanation",
    "exercise": "coding exercise",
}

# An explanation is a few sentences; a bound keeps a pasted essay (or a megabyte) out.
MAX_EXPLANATION_CHARS = 4000


def _require_running(row: Interview, it: Item, kinds: tuple[str, ...]) -> None:
    if row.state != InterviewState.running:
        raise InterviewOver(row)
    if it.kind not in kinds:
        raise WrongItemKind(
            f"Item {it.position} is a {_KIND_NAME[it.kind]}: send it to "
            f"POST /interviews/{row.id}/items/{it.position}/{_ROUTE[it.kind]}"
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
    """Check and hold a question's or follow-up's answer (raises AnswerShapeError for a
    malformed one), or hold an explain item's text."""
    assert row.id is not None
    it = item(row, position)
    _require_running(row, it, ("question", "follow_up", "explain"))
    if any(a.position == position for a in _attempts(session, row)):
        raise AlreadyAnswered(position)
    if it.kind == "explain":
        text = plaintext.sanitised(raw_answer) if isinstance(raw_answer, str) else ""
        # PostgreSQL's JSON takes no NUL; nothing an explanation needs.
        text = text.replace("\x00", "").strip()
        if not text:
            raise WrongItemKind(f"Item {position} wants a few sentences of text as its answer")
        if len(text) > MAX_EXPLANATION_CHARS:
            raise WrongItemKind(
                f"An explanation is at most {MAX_EXPLANATION_CHARS} characters (this one: "
                f"{len(text)})"
            )
        attempt = InterviewAttempt(
            interview_id=row.id,
            position=position,
            kind="explain",
            item_id=it.item_id,
            at=now,
            answer=text,
        )
    else:
        if it.item_id not in bank:
            raise ItemRetired(it)
        result = check_answer(bank.get(it.item_id), raw_answer, "en")
        attempt = InterviewAttempt(
            interview_id=row.id,
            position=position,
            kind=it.kind,
            item_id=it.item_id,
            at=now,
            answer=result.answer,
            correct=result.correct,
        )
    _lock_running(session, row)
    # Checked again under the lock: two answers sent at once both passed the check above.
    if any(a.position == position for a in _attempts(session, row)):
        session.rollback()
        raise AlreadyAnswered(position)
    session.add(attempt)
    session.commit()
    return attempt


def _lock_running(session: Session, row: Interview) -> None:
    """Hold the interview's row until the caller commits, or raise InterviewOver.

    What an item may still take (one answer, ``max_attempts`` submissions) is a count of the
    attempts already stored: without a lock two requests sent at once both count, both find
    room, and both insert, so a learner could record four answers to one question or more
    submissions than the limit. The lock also refuses an interview that ended meanwhile."""
    if not _lock(session, row, running_only=True):
        session.rollback()
        session.refresh(row)
        raise InterviewOver(row)


def _lock(session: Session, row: Interview, *, running_only: bool = False) -> bool:
    """Lock the interview's row for the rest of the caller's transaction and read it again;
    False, nothing locked, when it is gone (or, with ``running_only``, no longer running).

    An UPDATE of the row (its state set to itself) is the lock on either database: PostgreSQL
    makes another writer of the row wait for this transaction, SQLite serialises writers
    outright. It is the first statement of the writing transaction (SQLite's lock upgrade)."""
    session.commit()
    guard = [col(Interview.id) == row.id]
    if running_only:
        guard.append(col(Interview.state) == InterviewState.running)
    locked = session.connection().execute(
        update(Interview).where(*guard).values(state=col(Interview.state))
    )
    if locked.rowcount != 1:
        return False
    session.refresh(row)
    return True


def reserve_attempt(
    session: Session, row: Interview, position: int, catalog: dict[str, Exercise], at: datetime
) -> tuple[Exercise, InterviewAttempt]:
    """Take one of a coding item's submissions before its code is graded: the exercise, and the
    attempt to ``attach`` the submission to (or ``release`` when it was not graded). Raises
    AttemptLimit when the item has had its ``max_attempts``, counting those still grading."""
    assert row.id is not None
    it = item(row, position)
    _require_running(row, it, ("exercise",))
    if it.item_id not in catalog:
        raise ItemRetired(it)
    _lock_running(session, row)
    made = sum(a.position == position for a in _attempts(session, row))
    if made >= row.max_attempts:
        session.rollback()
        raise AttemptLimit(position, row.max_attempts)
    # Stored without its submission while the code is graded; the report skips such an attempt
    # (it is what a service stopped mid-grading leaves), and it still counts against the limit.
    attempt = InterviewAttempt(
        interview_id=row.id, position=position, kind="exercise", item_id=it.item_id, at=at
    )
    session.add(attempt)
    session.commit()
    return catalog[it.item_id], attempt


def attach_submission(
    session: Session, row: Interview, attempt: InterviewAttempt, submission_id: int
) -> int:
    """Record the graded submission of a reserved attempt; answers how many the item has had."""
    attempt.submission_id = submission_id
    session.add(attempt)
    session.commit()
    return sum(a.position == attempt.position for a in _attempts(session, row))


def release_attempt(session: Session, attempt: InterviewAttempt) -> None:
    """Give back a reserved attempt whose code was not graded (the grader was busy or broke):
    the learner simply submits again."""
    session.rollback()
    session.delete(attempt)
    session.commit()


def _events(session: Session, row: Interview) -> list[InterviewEvent]:
    return list(
        session.exec(
            select(InterviewEvent)
            .where(InterviewEvent.interview_id == row.id)
            .order_by(col(InterviewEvent.at), col(InterviewEvent.id))
        )
    )


def record_event(
    session: Session,
    row: Interview,
    *,
    position: int,
    event: Literal["open", "leave"],
    now: datetime,
) -> ItemClock:
    """The learner opened or left an item: the clock per item runs from these moments."""
    assert row.id is not None
    it = item(row, position)
    if row.state != InterviewState.running or now >= _aware(row.deadline):
        raise InterviewOver(row)
    clock: list[interviews.Event] = [
        (_aware(a.at), a.position, "act") for a in _attempts(session, row)
    ]
    for e in _events(session, row):
        clock.append((_aware(e.at), e.position, "open" if e.event == "open" else "leave"))
    session.commit()
    # The item already open opened again, or a leave of an item that is not open, moves no
    # clock: not stored, so reloading an item's page adds no row, and leaving item 3 cannot stop
    # item 2's clock.
    current = interviews.open_item(clock)
    if (event == "open" and current != position) or (event == "leave" and current == position):
        session.add(InterviewEvent(interview_id=row.id, position=position, event=event, at=now))
        session.commit()
    spent = _spent(session, row, now).get(position, timedelta()).total_seconds()
    return ItemClock(
        position=position,
        event=event,
        budget_seconds=it.budget_seconds,
        time_spent_seconds=round(spent, 1),
        remaining_seconds=remaining_seconds(row, now),
    )


def leave_open(session: Session, row: Interview, *, now: datetime) -> None:
    """Stop the clock of whichever item is open (the learner went back to the list)."""
    if row.state != InterviewState.running:
        return
    events = _events(session, row)
    session.commit()
    if events and events[-1].event == "open":
        record_event(session, row, position=events[-1].position, event="leave", now=now)


def _spent(
    session: Session,
    row: Interview,
    until: datetime,
    attempts: list[InterviewAttempt] | None = None,
) -> dict[int, timedelta]:
    """Time per item position up to ``until`` (the end, for an ended interview)."""
    done = attempts if attempts is not None else _attempts(session, row)
    events: list[interviews.Event] = [(_aware(a.at), a.position, "act") for a in done]
    for e in _events(session, row):
        events.append((_aware(e.at), e.position, "open" if e.event == "open" else "leave"))
    return interviews.time_per_item(_aware(row.started_at), events, until)


SubmissionOutcome = Literal["passed", "not_passed", "pending"]


def submission_result(verdict: str | None, state: str) -> SubmissionOutcome:
    if state != "done":
        return "pending"
    return "passed" if verdict == "passed" else "not_passed"


# --------------------------------------------------------------------------- views


def _describe_item(
    row: Interview, it: Item, bank: QuestionBank, catalog: dict[str, Exercise], lang: Lang
) -> dict[str, Any]:
    if it.checked and it.item_id in bank:
        described: dict[str, Any] = {"question": public_view(bank.get(it.item_id), lang)}
        if it.kind == "follow_up":
            described["ask"] = (it.ask_zh if lang == "zh" else it.ask) or None
            described["follows"] = next(
                (
                    o.position
                    for o in _items(row)
                    if o.kind == "exercise" and o.item_id == it.of and o.position < it.position
                ),
                None,
            )
        return described
    if it.kind in ("exercise", "explain") and it.item_id in catalog:
        exercise = catalog[it.item_id]
        if it.kind == "explain":
            return {"title": exercise.title(lang)}
        return {
            "title": exercise.title(lang),
            "prompt": exercise.prompt[lang],
            "starter": exercise.starter_for(lang),
            "max_attempts": row.max_attempts,
        }
    return {}


def _lang(row: Interview, lang: Lang | None) -> Lang:
    if lang is not None:
        return lang
    return "zh" if row.lang == "zh" else "en"


def view(
    session: Session,
    row: Interview,
    *,
    bank: QuestionBank,
    catalog: dict[str, Exercise],
    now: datetime,
    lang: Lang | None = None,
) -> InterviewPublic:
    """The interview as its learner sees it, in ``lang`` (by default the one it was started
    in): results only once it has ended."""
    assert row.id is not None
    lang = _lang(row, lang)
    attempts = _attempts(session, row)
    until = now if row.state == InterviewState.running else _aware(row.ended_at or row.deadline)
    spent = _spent(session, row, min(until, _aware(row.deadline)), attempts)
    items = []
    for it in _items(row):
        mine = [a for a in attempts if a.position == it.position]
        status: Literal["open", "answered", "submitted"] = "open"
        if mine:
            status = "submitted" if it.kind == "exercise" else "answered"
        items.append(
            ItemPublic(
                position=it.position,
                kind=it.kind,
                id=it.item_id,
                topics=it.topics,
                difficulty=it.difficulty,
                status=status,
                attempts=len(mine),
                budget_seconds=it.budget_seconds,
                time_spent_seconds=round(spent.get(it.position, timedelta()).total_seconds(), 1),
                **_describe_item(row, it, bank, catalog, lang),
            )
        )
    report = None
    if row.state != InterviewState.running:
        report = _report(session, row, attempts, bank, catalog, lang, now)
    return InterviewPublic(
        id=row.id,
        state=InterviewState(row.state),
        lang=lang,
        preset=row.preset or "",
        max_attempts=row.max_attempts,
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
        preset=row.preset or "",
        minutes=row.minutes,
        started_at=_aware(row.started_at),
        deadline=_aware(row.deadline),
        ended_at=_aware(row.ended_at) if row.ended_at else None,
        items=len(row.items),
    )


_REASONS: dict[ItemResult, str] = {
    ItemResult.wrong: "wrong answer",
    ItemResult.not_passed: "the last submission did not pass",
    ItemResult.not_answered: "not answered",
    ItemResult.pending: "submitted, not graded yet",
}
_REASONS_ZH: dict[ItemResult, str] = {
    ItemResult.wrong: "回答错误",
    ItemResult.not_passed: "最后一次提交未通过",
    ItemResult.not_answered: "未作答",
    ItemResult.pending: "已提交，尚未评测",
}


def _mistake(verdict: dict[str, Any] | None) -> str | None:
    diagnosis = (verdict or {}).get("diagnosis")
    if isinstance(diagnosis, dict):
        name = diagnosis.get("name") or diagnosis.get("mistake") or diagnosis.get("title")
        return str(name)[:80] if name else None
    return None


def _as_int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _report(
    session: Session,
    row: Interview,
    attempts: list[InterviewAttempt],
    bank: QuestionBank,
    catalog: dict[str, Exercise],
    lang: Lang,
    now: datetime,
    *,
    with_trend: bool = True,
) -> InterviewReport:
    started = _aware(row.started_at)
    ended = _aware(row.ended_at or row.deadline)
    spent = _spent(session, row, ended, attempts)
    reports: list[ItemReport] = []
    exercise_facts: list[rubric.ExerciseFact] = []
    answer_facts: list[rubric.AnswerFact] = []
    explained, explain_words, has_explain = False, 0, False
    for it in _items(row):
        mine = [a for a in attempts if a.position == it.position]
        card_kind = "exercise" if it.kind in ("exercise", "explain") else "question"
        next_review = practice.next_review(
            session, user_id=row.user_id, kind=card_kind, item_id=it.item_id, lang=lang, now=now
        )
        seconds = spent.get(it.position, timedelta()).total_seconds()
        entry = ItemReport(
            position=it.position,
            kind=it.kind,
            id=it.item_id,
            topics=it.topics,
            result=ItemResult.not_answered,
            time_spent_seconds=round(seconds, 3),
            budget_seconds=it.budget_seconds,
            over_budget=seconds > it.budget_seconds,
            attempts=len(mine),
            max_attempts=row.max_attempts if it.kind == "exercise" else None,
            ask=(it.ask_zh if lang == "zh" else it.ask) if it.kind == "follow_up" else None,
            next_review=NextReviewPublic.of(next_review) if next_review else None,
        )
        cases = (0, 0)
        if it.checked and mine:
            first = mine[0]
            entry.answer = first.answer
            entry.result = ItemResult.correct if first.correct else ItemResult.wrong
            entry.check = _recheck(bank, it.item_id, first.answer, lang)
        elif it.kind == "explain":
            has_explain = True
            explained_exercise = catalog.get(it.item_id)
            if explained_exercise is not None and explained_exercise.model_answer is not None:
                entry.model_answer = explained_exercise.model_answer.text(lang)
            if mine:
                entry.explanation = str(mine[0].answer or "")
                entry.result = ItemResult.answered
                explained = True
                explain_words = rubric.explanation_words(entry.explanation)
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
                entry.verdict = render(submissions.public(last), lang)
                entry.result = (
                    ItemResult.passed if last.verdict == "passed" else ItemResult.not_passed
                )
                cases = (
                    _as_int(entry.verdict.get("cases_passed")),
                    _as_int(entry.verdict.get("cases_total")),
                )
            elif rows:
                entry.result = ItemResult.pending
        if it.kind == "exercise":
            exercise_facts.append(
                rubric.ExerciseFact(
                    slug=it.item_id,
                    result=entry.result.value,
                    attempts=len(mine),
                    max_attempts=row.max_attempts,
                    cases_passed=cases[0],
                    cases_total=cases[1],
                    mistake=_mistake(entry.verdict),
                    seconds=seconds,
                    budget_seconds=it.budget_seconds,
                )
            )
        elif it.checked:
            answer_facts.append(rubric.AnswerFact(it.kind, it.item_id, entry.result.value))
        reports.append(entry)

    rating = {k: int(v) for k, v in (row.self_rating or {}).items() if k in rubric.EXPLAIN_POINTS}
    facts = rubric.Facts(
        exercises=exercise_facts,
        answers=answer_facts,
        explained=explained,
        explain_words=explain_words,
        self_rating=rating or None,
        has_explain=has_explain,
    )
    scored = rubric.score(facts, lang)
    recommendation, reasons = rubric.recommend(facts, scored, lang)

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
    reasons_for = _REASONS_ZH if lang == "zh" else _REASONS
    return InterviewReport(
        lang=lang,
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
                reason=reasons_for[r.result],
                next_review=r.next_review,
            )
            for r in missed
        ],
        weakest_topics=touched[:3],
        rubric=[
            RubricScore(
                dimension=sc.dimension,
                name=rubric.DIMENSION_NAMES[sc.dimension][1 if lang == "zh" else 0],
                score=sc.score,
                evidence=sc.evidence,
            )
            for sc in scored
        ],
        recommendation=recommendation,
        recommendation_name=rubric.RECOMMENDATION_NAMES[recommendation][1 if lang == "zh" else 0],
        reasons=reasons,
        self_rating=SelfRatingPublic(
            points=rating,
            names={p: rubric.point_name(p, lang) for p in rubric.EXPLAIN_POINTS},
        )
        if rating
        else None,
        unanswered=[r.position for r in reports if r.result == ItemResult.not_answered],
        trend=_trend(session, row, bank, catalog, lang, now) if with_trend else [],
    )


def _mean_score(report: InterviewReport) -> float:
    judged = [r.score for r in report.rubric if r.score is not None]
    return round(sum(judged) / len(judged), 2) if judged else 0.0


TREND_LENGTH = 12


def _trend(
    session: Session,
    row: Interview,
    bank: QuestionBank,
    catalog: dict[str, Exercise],
    lang: Lang,
    now: datetime,
) -> list[TrendPoint]:
    """The learner's last ended interviews up to this one, oldest first, each by its rubric."""
    past = session.exec(
        select(Interview)
        .where(
            Interview.user_id == row.user_id,
            Interview.state != InterviewState.running,
            col(Interview.id) <= row.id,
        )
        .order_by(col(Interview.id).desc())
        .limit(TREND_LENGTH)
    ).all()
    points = []
    for other in reversed(past):
        assert other.id is not None
        rep = _report(
            session, other, _attempts(session, other), bank, catalog, lang, now, with_trend=False
        )
        points.append(
            TrendPoint(
                id=other.id,
                started_at=_aware(other.started_at),
                preset=other.preset or "",
                score=_mean_score(rep),
                recommendation=rep.recommendation,
            )
        )
    return points


def rate_self(
    session: Session,
    row: Interview,
    *,
    points: dict[str, int],
    catalog: dict[str, Exercise],
    now: datetime,
) -> Interview:
    """The learner's rating of their explanation, point by point against the model answer:
    kept for the report and fed to the explained exercise's review card, once."""
    if row.state == InterviewState.running:
        raise NotEnded(row)
    explain = next((it for it in _items(row) if it.kind == "explain"), None)
    if explain is None:
        raise NothingToRate(row)
    # Whether this is the first rating is read under the row's lock: two ratings sent at once
    # both found none and both fed the review card.
    if not _lock(session, row):
        raise InterviewNotFound()
    first = row.self_rating is None
    row.self_rating = {
        p: max(0, min(rubric.SELF_MAX, int(points.get(p, 0)))) for p in rubric.EXPLAIN_POINTS
    }
    session.add(row)
    if first and explain.item_id in catalog:
        exercise = catalog[explain.item_id]
        practice.record_self_rating(
            session,
            user_id=row.user_id,
            exercise=exercise,
            grade=rubric.self_rating_grade(row.self_rating),
            now=now,
        )
    session.commit()
    session.refresh(row)
    return row

"""The operator's cohort view: what the verdicts already say, added up over the learners.

Per exercise: how many learners attempted and solved it, the median attempts and the median
time to the first pass, and the named mistakes (a verdict's ``diagnosis.name``) that failing
submissions made most often, each with an example verdict. Per topic: mastery across the
cohort (api.learning.review.topic_mastery for each learner). Per learner: a row of progress. And the
cohort's mock interviews, scored as their learners' reports score them.

``build`` is the pure core (records in, view out, no clock, no database); ``read_cohort`` is the
adapter that loads the records with a handful of queries, whatever the cohort's size.
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, cast

from pydantic import BaseModel
from sqlalchemy import func
from sqlmodel import Session, col, select

from api.content.catalog import Exercise
from api.content.questions import QuestionBank
from api.learning import interview_records, practice, review
from api.models import Draft, Interview, QuestionAnswer, Submission, User

# Mistakes listed per exercise: the ones worth a word to the whole group.
TOP_MISTAKES = 5
# Interviews listed (the most recent first); each is scored from its attempts.
MAX_INTERVIEWS = 200


def _aware(moment: datetime) -> datetime:
    # SQLite hands back naive datetimes; everything stored is UTC.
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


@dataclass(frozen=True)
class Graded:
    """One graded submission, as the cohort view needs it (no code, no full verdict)."""

    submission_id: int
    user_id: int
    exercise: str
    verdict: str
    at: datetime  # when it was submitted
    completed_at: datetime
    mistake: str | None = None
    mistake_title: str | None = None
    mistake_title_zh: str | None = None


@dataclass(frozen=True)
class Learner:
    user_id: int
    name: str
    created_at: datetime
    disabled: bool
    last_active: datetime | None


class MistakeCount(BaseModel):
    name: str
    title: str
    title_zh: str
    # Failing submissions that named it, and how many learners made them.
    count: int
    learners: int
    # The most recent such verdict: JSON for the operator's token, and the page.
    example_submission_id: int
    example: str
    example_page: str


class ExerciseStats(BaseModel):
    slug: str
    title: str
    title_zh: str
    learners_attempted: int
    learners_solved: int
    submissions: int
    # Over the learners who solved it: submissions up to and including the first pass, and
    # seconds from the first submission to the first pass.
    median_attempts_to_pass: float | None
    median_seconds_to_pass: float | None
    mistakes: list[MistakeCount]


class TopicStats(BaseModel):
    topic: str
    mean_mastery: float
    median_mastery: float
    min_mastery: float
    max_mastery: float
    # Learners with any answer or verdict in the topic.
    learners_active: int


class LearnerRow(BaseModel):
    id: int
    name: str
    disabled: bool
    created_at: datetime
    last_active: datetime | None
    attempted: int
    solved: int
    # The mean of the topics' mastery (0..1), and each topic's.
    mastery: float
    topics: dict[str, float]
    exercises: dict[str, str]  # slug -> not_started | attempted | solved


class InterviewRow(BaseModel):
    id: int
    learner_id: int
    learner: str
    state: str
    minutes: float
    started_at: datetime
    ended_at: datetime | None
    right: int | None
    total: int


class InterviewSummary(BaseModel):
    count: int
    ended: int
    # Over the ended interviews: the mean of right / total.
    mean_score: float | None
    interviews: list[InterviewRow]


class CohortView(BaseModel):
    learners_total: int
    exercises: list[ExerciseStats]
    topics: list[TopicStats]
    learners: list[LearnerRow]
    interviews: InterviewSummary


def _median(values: Sequence[float]) -> float | None:
    return round(float(statistics.median(values)), 3) if values else None


def exercise_stats(slug: str, exercise: Exercise | None, graded: Sequence[Graded]) -> ExerciseStats:
    """One exercise's line of the view, from its graded submissions (any order)."""
    by_learner: dict[int, list[Graded]] = defaultdict(list)
    for g in sorted(graded, key=lambda g: g.submission_id):
        by_learner[g.user_id].append(g)
    attempts_to_pass: list[float] = []
    seconds_to_pass: list[float] = []
    for history in by_learner.values():
        first_pass = next((i for i, g in enumerate(history) if g.verdict == "passed"), None)
        if first_pass is None:
            continue
        attempts_to_pass.append(first_pass + 1)
        seconds_to_pass.append((history[first_pass].at - history[0].at).total_seconds())
    named = [g for g in graded if g.verdict != "passed" and g.mistake]
    counts = Counter(g.mistake for g in named)
    mistakes = []
    for name, count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0] or ""))[:TOP_MISTAKES]:
        mine = [g for g in named if g.mistake == name]
        example = max(mine, key=lambda g: g.submission_id)
        mistakes.append(
            MistakeCount(
                name=cast(str, name),
                title=example.mistake_title or cast(str, name),
                title_zh=example.mistake_title_zh or example.mistake_title or cast(str, name),
                count=count,
                learners=len({g.user_id for g in mine}),
                example_submission_id=example.submission_id,
                example=f"/admin/submissions/{example.submission_id}",
                example_page=f"/app/admin/submissions/{example.submission_id}",
            )
        )
    return ExerciseStats(
        slug=slug,
        title=exercise.title("en") if exercise else slug,
        title_zh=exercise.title("zh") if exercise else slug,
        learners_attempted=len(by_learner),
        learners_solved=len(attempts_to_pass),
        submissions=len(graded),
        median_attempts_to_pass=_median(attempts_to_pass),
        median_seconds_to_pass=_median(seconds_to_pass),
        mistakes=mistakes,
    )


def build(
    *,
    learners: Sequence[Learner],
    graded: Sequence[Graded],
    answers: Sequence[tuple[int, review.AnswerRecord]],
    catalog: dict[str, Exercise],
    catalogue: Sequence[review.ItemRef],
    interviews: InterviewSummary,
) -> CohortView:
    """The cohort view from its records; ``answers`` are (user id, answer)."""
    ids = {learner.user_id for learner in learners}
    graded = [g for g in graded if g.user_id in ids]
    by_exercise: dict[str, list[Graded]] = defaultdict(list)
    by_user: dict[int, list[Graded]] = defaultdict(list)
    for g in graded:
        by_exercise[g.exercise].append(g)
        by_user[g.user_id].append(g)
    answers_by_user: dict[int, list[review.AnswerRecord]] = defaultdict(list)
    for user_id, answer in answers:
        answers_by_user[user_id].append(answer)

    rows: list[LearnerRow] = []
    topic_levels: dict[str, list[float]] = defaultdict(list)
    topic_active: Counter[str] = Counter()
    for learner in learners:
        mine = by_user.get(learner.user_id, [])
        levels = review.topic_mastery(
            catalogue=catalogue,
            answers=answers_by_user.get(learner.user_id, []),
            verdicts=[review.VerdictRecord(g.exercise, g.verdict, g.completed_at) for g in mine],
        )
        for topic, level in levels.items():
            topic_levels[topic].append(level.mastery)
            topic_active[topic] += level.attempted > 0
        status = dict.fromkeys(catalog, "not_started")
        for g in mine:
            if g.exercise in status and status[g.exercise] != "solved":
                status[g.exercise] = "solved" if g.verdict == "passed" else "attempted"
        rows.append(
            LearnerRow(
                id=learner.user_id,
                name=learner.name,
                disabled=learner.disabled,
                created_at=learner.created_at,
                last_active=learner.last_active,
                attempted=sum(s != "not_started" for s in status.values()),
                solved=sum(s == "solved" for s in status.values()),
                mastery=round(statistics.fmean(m.mastery for m in levels.values()), 4)
                if levels
                else 0.0,
                topics={t: round(m.mastery, 4) for t, m in levels.items()},
                exercises=status,
            )
        )
    topics = [
        TopicStats(
            topic=topic,
            mean_mastery=round(statistics.fmean(values), 4),
            median_mastery=round(float(statistics.median(values)), 4),
            min_mastery=round(min(values), 4),
            max_mastery=round(max(values), 4),
            learners_active=topic_active[topic],
        )
        for topic, values in topic_levels.items()
    ]
    return CohortView(
        learners_total=len(learners),
        exercises=[
            exercise_stats(slug, exercise, by_exercise.get(slug, []))
            for slug, exercise in catalog.items()
        ],
        topics=topics,
        learners=rows,
        interviews=interviews,
    )


# --------------------------------------------------------------------------- the adapter


def _learners(session: Session) -> list[Learner]:
    users = list(session.exec(select(User).where(User.role == "learner").order_by(col(User.id))))
    last: dict[int, datetime] = {}
    # The latest moment each learner did anything recorded: submitted, answered, drafted.
    moments: list[tuple[Any, Any]] = [
        (Submission.created_at, Submission.user_id),
        (QuestionAnswer.created_at, QuestionAnswer.user_id),
        (Draft.updated_at, Draft.user_id),
        (Interview.started_at, Interview.user_id),
    ]
    for column, owner in moments:
        for user_id, moment in session.exec(select(owner, func.max(column)).group_by(owner)):
            if moment is not None:
                moment = _aware(moment)
                if user_id not in last or moment > last[user_id]:
                    last[user_id] = moment
    return [
        Learner(
            user_id=cast(int, u.id),
            name=u.name,
            created_at=_aware(u.created_at),
            disabled=u.disabled_at is not None,
            last_active=last.get(cast(int, u.id)),
        )
        for u in users
    ]


def _graded(session: Session) -> list[Graded]:
    result: Any = Submission.result
    diagnosis = col(result)["diagnosis"]
    rows = session.exec(
        select(  # type: ignore[call-overload]
            Submission.id,
            Submission.user_id,
            Submission.exercise,
            Submission.verdict,
            Submission.created_at,
            Submission.completed_at,
            diagnosis["name"].as_string(),
            diagnosis["title"].as_string(),
            diagnosis["title_zh"].as_string(),
        )
        .where(Submission.state == "done")
        .order_by(col(Submission.id))
    )
    return [
        Graded(
            submission_id=sid,
            user_id=uid,
            exercise=exercise,
            verdict=verdict or "",
            at=_aware(created),
            completed_at=_aware(completed or created),
            mistake=name,
            mistake_title=title,
            mistake_title_zh=title_zh,
        )
        for sid, uid, exercise, verdict, created, completed, name, title, title_zh in rows
    ]


def _interviews(
    session: Session,
    names: dict[int, str],
    *,
    bank: QuestionBank,
    catalog: dict[str, Exercise],
    now: datetime,
) -> InterviewSummary:
    found = list(
        session.exec(
            select(Interview)
            .where(col(Interview.user_id).in_(list(names)))
            .order_by(col(Interview.id).desc())
            .limit(MAX_INTERVIEWS)
        )
    )
    rows = []
    scores = []
    for row in found:
        right: int | None = None
        if row.state != "running":
            # The score the learner's own report gives, so the two never disagree.
            report = interview_records.view(session, row, bank=bank, catalog=catalog, now=now)
            assert report.report is not None
            right = report.report.score.right
            if report.report.score.total:
                scores.append(right / report.report.score.total)
        rows.append(
            InterviewRow(
                id=cast(int, row.id),
                learner_id=row.user_id,
                learner=names[row.user_id],
                state=row.state,
                minutes=row.minutes,
                started_at=_aware(row.started_at),
                ended_at=_aware(row.ended_at) if row.ended_at else None,
                right=right,
                total=len(row.items),
            )
        )
    return InterviewSummary(
        count=len(rows),
        ended=sum(r.state != "running" for r in rows),
        mean_score=round(statistics.fmean(scores), 4) if scores else None,
        interviews=rows,
    )


def read_cohort(
    session: Session, *, bank: QuestionBank, catalog: dict[str, Exercise], now: datetime
) -> CohortView:
    learners = _learners(session)
    answers = [
        (a.user_id, review.AnswerRecord(a.question_id, a.correct, _aware(a.created_at)))
        for a in session.exec(select(QuestionAnswer))
    ]
    view = build(
        learners=learners,
        graded=_graded(session),
        answers=answers,
        catalog=catalog,
        catalogue=practice.practice_catalogue(bank, catalog),
        interviews=_interviews(
            session,
            {learner.user_id: learner.name for learner in learners},
            bank=bank,
            catalog=catalog,
            now=now,
        ),
    )
    session.commit()  # end the read transaction (see api.http.deps.current_user)
    return view

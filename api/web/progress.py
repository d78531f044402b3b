"""The progress page: mastery per topic and exercise status as SVG, streak, recent activity."""

from __future__ import annotations

from datetime import UTC, datetime

from fastapi import APIRouter, Request
from fastapi.responses import Response
from sqlmodel import col, select

from api.http.deps import AppDep, SessionDep
from api.http.downloads import learner_export
from api.learning import export, practice, submissions
from api.learning import progress as exercise_progress
from api.models import QuestionAnswer, Submission
from api.web.charts import Activity, exercise_rows, mastery_chart, streak
from api.web.i18n import text, topic_name
from api.web.render import render
from api.web.session import LearnerDep, WebDep

router = APIRouter(include_in_schema=False)

RECENT = 10


def _utc(moment: datetime) -> datetime:
    # SQLite hands back naive datetimes; everything stored is UTC.
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


@router.get("/app/progress")
def read_progress_page(
    request: Request, web: WebDep, user: LearnerDep, session: SessionDep, ctx: AppDep
) -> Response:
    assert user.id is not None
    topics = practice.mastery(session, user_id=user.id, bank=ctx.questions, catalog=ctx.catalog)
    chart = mastery_chart(
        {t: m.mastery for t, m in topics.items()},
        {t: topic_name(t, web.lang) for t in topics},
        {
            t: text("topic_counts", web.lang).format(tried=m.attempted, total=m.total)
            for t, m in topics.items()
        },
    )
    exercises = exercise_progress.exercise_progress(session, user_id=user.id, catalog=ctx.catalog)
    rows, rows_height = exercise_rows(
        [
            (
                slug,
                e.title(web.lang),
                exercises[slug]["status"],
                text("status_" + exercises[slug]["status"], web.lang),
                int(exercises[slug]["attempts"]),
            )
            for slug, e in ctx.catalog.items()
        ]
    )
    answers = session.exec(
        select(QuestionAnswer)
        .where(QuestionAnswer.user_id == user.id)
        .order_by(col(QuestionAnswer.id).desc())
    ).all()
    done = session.exec(
        select(Submission)
        .where(Submission.user_id == user.id, Submission.state == "done")
        .order_by(col(Submission.id).desc())
        .options(*submissions.SUMMARY_ONLY)
    ).all()
    now = datetime.now(UTC)
    days = {_utc(a.created_at).date() for a in answers}
    days |= {_utc(s.completed_at or s.created_at).date() for s in done}
    recent = sorted(
        [
            Activity(
                _utc(a.created_at),
                "answer",
                a.question_id,
                "correct" if a.correct else "incorrect",
                f"/app/quiz/{a.question_id}",
            )
            for a in answers[:RECENT]
        ]
        + [
            Activity(
                _utc(s.completed_at or s.created_at),
                "submission",
                s.exercise,
                s.verdict or "",
                f"/app/submissions/{s.id}",
            )
            for s in done[:RECENT]
        ],
        key=lambda a: a.at,
        reverse=True,
    )[:RECENT]
    return render(
        request,
        web,
        "progress.html",
        chart=chart,
        topics=topics,
        exercises=exercises,
        catalog=ctx.catalog,
        rows=rows,
        rows_height=rows_height,
        solved=sum(1 for r in rows if r.status == "solved"),
        streak=streak(days, now.date()),
        recent=recent,
    )


@router.get("/app/progress/export.{fmt}")
def download_my_data(
    fmt: export.Format, user: LearnerDep, session: SessionDep, table: str | None = None
) -> Response:
    """The signed-in learner's own data, as the API's GET /users/me/export gives it."""
    return learner_export(session, user, fmt, table)

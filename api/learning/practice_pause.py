"""Practice is paused while a mock interview runs: the one rule every front end obeys.

A running interview keeps its secrets only if nothing graded can be had beside it: not a
verdict, not a question's key, not progress or review moving, not a hint. Rather than list what
each item would give away (a twin exercise, the same question on another page, a counter that
moves), practice as a whole waits until the interview ends. ``ensure_open`` is the service-layer
check; ``api.http.hold`` calls it for every route that is not on its allow-list, and the practice
services call it again themselves, so a caller that is not a route (a notebook helper, a script)
meets the same rule.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlmodel import Session, col, select

from api.models import Interview


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


class PracticePaused(Exception):
    """The learner's interview is running: the request waits for it to end."""

    def __init__(self, interview_id: int, deadline: datetime) -> None:
        self.interview_id = interview_id
        self.deadline = _aware(deadline)
        self.url = f"/interviews/{interview_id}"
        self.page = f"/app/interviews/{interview_id}"
        super().__init__(
            f"Practice is paused while your mock interview {interview_id} runs (until "
            f"{self.deadline.isoformat()}): nothing graded is shown until it ends. Continue it "
            f"at {self.url} (in the browser: {self.page}), or end it with POST "
            f"{self.url}/finish?confirm=true"
        )

    def detail_zh(self) -> str:
        return (
            f"模拟面试 {self.interview_id} 正在进行（截止 {self.deadline.isoformat()}），"
            f"练习暂停，结束前不显示任何评测结果。请到 {self.url}（网页：{self.page}）继续，"
            f"或用 POST {self.url}/finish?confirm=true 结束它。"
        )


def running(session: Session, *, user_id: int, now: datetime) -> Interview | None:
    """The learner's interview that is running at ``now`` (one at most: a unique index)."""
    return session.exec(
        select(Interview).where(
            Interview.user_id == user_id,
            Interview.state == "running",
            col(Interview.deadline) > now,
        )
    ).first()


def ensure_open(session: Session, *, user_id: int, now: datetime | None = None) -> None:
    """Raise :class:`PracticePaused` while the learner has an interview running."""
    row = running(session, user_id=user_id, now=now or datetime.now(UTC))
    # End the read transaction: the caller may write next (SQLite's lock upgrade).
    session.commit()
    if row is not None:
        assert row.id is not None
        raise PracticePaused(row.id, row.deadline)

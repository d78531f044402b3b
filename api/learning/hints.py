"""Hints before answers: which help a learner may see, what they saw, and what it costs.

Each exercise has a ladder of hints (``exercises/<slug>/hints.yaml``: concept, formula, the line
usually wrong) and a worked solution (``solutions/<slug>.py``). The solution opens after a pass,
or on explicit request after ``SOLUTION_AFTER_FAILURES`` failed attempts. Everything shown is
recorded (``HelpUse``), and the next pass is rated lower for it
(``api.learning.review.rate_exercise``).

``solution_access`` is pure, like api.learning.review; the rest is the thin adapter over the tables.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import NamedTuple

from sqlmodel import Session, col, select

from api.content.catalog import Exercise, Lang
from api.learning.review import HelpTaken
from api.models import HelpUse, Submission

# Three honest tries before the answer: enough that the learner met the problem, few enough
# that someone stuck is not left to guess.
SOLUTION_AFTER_FAILURES = 3


@dataclass(frozen=True)
class SolutionAccess:
    allowed: bool
    # The learner has earned it by failing, but must still ask for it explicitly.
    needs_reveal: bool
    failed_attempts: int
    attempts_to_unlock: int
    reason: str


def _reason(*, passed: bool, failed: int, allowed: bool, needs_reveal: bool, lang: Lang) -> str:
    left = max(0, SOLUTION_AFTER_FAILURES - failed)
    if passed:
        if lang == "zh":
            return "你已通过这道题，可以查看参考解答。"
        return "You have passed this exercise: the worked solution is open."
    if allowed:
        if lang == "zh":
            return "已按你的要求显示参考解答。通过之前看过解答，这道题下次复习会记为“重来”。"
        return (
            "Revealed on your request. A pass after reading it is rated Again, so the "
            "exercise comes back for review soon."
        )
    if needs_reveal:
        if lang == "zh":
            return (
                f"你已失败 {failed} 次，可以查看参考解答：请明确请求（?reveal=1）。"
                "查看后，这道题下次复习的评分会降低，会更早再次出现。"
            )
        return (
            f"You have failed {failed} times, so the worked solution can be revealed: ask for "
            "it explicitly (?reveal=1). Seeing it lowers this exercise's next review rating, "
            "so it comes back sooner."
        )
    if lang == "zh":
        return (
            f"参考解答在你通过这道题之后，或失败满 {SOLUTION_AFTER_FAILURES} 次之后开放："
            f"还差 {left} 次失败的提交。先试试提示吧。"
        )
    attempts = "attempt" if left == 1 else "attempts"
    return (
        f"The worked solution opens once you pass this exercise, or after "
        f"{SOLUTION_AFTER_FAILURES} failed attempts: {left} more failed {attempts} unlock it. "
        "Try the hints first."
    )


def solution_access(*, passed: bool, failed: int, reveal: bool, lang: Lang) -> SolutionAccess:
    """Whether the worked solution may be shown now, and why (or why not) in the learner's words."""
    earned = failed >= SOLUTION_AFTER_FAILURES
    allowed = passed or (earned and reveal)
    needs_reveal = not passed and earned and not reveal
    return SolutionAccess(
        allowed=allowed,
        needs_reveal=needs_reveal,
        failed_attempts=failed,
        attempts_to_unlock=0 if passed else max(0, SOLUTION_AFTER_FAILURES - failed),
        reason=_reason(
            passed=passed, failed=failed, allowed=allowed, needs_reveal=needs_reveal, lang=lang
        ),
    )


# --------------------------------------------------------------------------- the tables


def outcomes(session: Session, *, user_id: int, exercise: str) -> tuple[bool, int]:
    """(ever passed, number of graded submissions that did not pass) for this exercise."""
    verdicts = session.exec(
        select(Submission.verdict).where(
            Submission.user_id == user_id,
            Submission.exercise == exercise,
            Submission.state == "done",
        )
    ).all()
    session.commit()  # end the read transaction (see api.http.deps.current_user)
    return "passed" in verdicts, sum(v != "passed" for v in verdicts)


def record(
    session: Session, *, user_id: int, exercise: str, kind: str, rung: int | None, now: datetime
) -> None:
    """Note that this help was shown, once per rung between two passes: reading the same hint
    again (every GET of it) adds nothing that ``taken_since`` could tell apart, so a learner's
    rows stay bounded by the hints times the passes, not by how often a page is reloaded."""
    latest = session.exec(
        select(HelpUse.at)
        .where(
            HelpUse.user_id == user_id,
            HelpUse.exercise == exercise,
            HelpUse.kind == kind,
            HelpUse.rung == rung if rung is not None else col(HelpUse.rung).is_(None),
        )
        .order_by(col(HelpUse.at).desc())
        .limit(1)
    ).first()
    if latest is not None:
        passed = last_pass(session, user_id=user_id, exercise=exercise, before_id=None)
        if passed is None or _aware(latest) > _aware(passed.at):
            session.commit()  # end the read transaction
            return
    session.add(HelpUse(user_id=user_id, exercise=exercise, kind=kind, rung=rung, at=now))
    session.commit()


@dataclass(frozen=True)
class HelpSeen:
    hints: list[int]  # the rungs shown, each once, in order
    solution: bool


def seen(session: Session, *, user_id: int, exercise: str) -> HelpSeen:
    rows = session.exec(
        select(HelpUse).where(HelpUse.user_id == user_id, HelpUse.exercise == exercise)
    ).all()
    return HelpSeen(
        hints=sorted({r.rung for r in rows if r.kind == "hint" and r.rung is not None}),
        solution=any(r.kind == "solution" for r in rows),
    )


def _aware(moment: datetime) -> datetime:
    # SQLite returns naive datetimes; everything stored is UTC.
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def taken_since(
    session: Session, *, user_id: int, exercise: str, since: datetime | None
) -> HelpTaken:
    """The most help shown for this exercise after ``since`` (the last pass; None: ever)."""
    rows = session.exec(
        select(HelpUse.kind, HelpUse.at).where(
            HelpUse.user_id == user_id, HelpUse.exercise == exercise
        )
    ).all()
    kinds = {kind for kind, at in rows if since is None or _aware(at) > _aware(since)}
    if "solution" in kinds:
        return "solution"
    return "hints" if "hint" in kinds else "none"


class LastPass(NamedTuple):
    id: int
    at: datetime


def last_pass(
    session: Session, *, user_id: int, exercise: str, before_id: int | None
) -> LastPass | None:
    """The learner's last pass before submission ``before_id`` (None: of all): its id and when
    it was graded."""
    # Three columns of one row, found through the (user, exercise, id) index: not the Submission
    # objects, whose stored verdicts (tens of KiB of JSON each) the ORM would load and decode.
    query = select(Submission.id, Submission.completed_at, Submission.created_at).where(
        Submission.user_id == user_id,
        Submission.exercise == exercise,
        Submission.state == "done",
        Submission.verdict == "passed",
    )
    if before_id is not None:
        query = query.where(col(Submission.id) < before_id)
    row = session.exec(query.order_by(col(Submission.id).desc()).limit(1)).first()
    if row is None or row[0] is None:
        return None
    return LastPass(row[0], row[1] or row[2])


def worked_solution(solutions_dir: Path, exercise: Exercise) -> str | None:
    """The worked solution's source, or None when this installation has none for it."""
    path = solutions_dir / f"{exercise.slug}.py"
    return path.read_text(encoding="utf-8") if path.is_file() else None

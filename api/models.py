"""Tables and the schemas the API returns. Imports nothing from the app above it.

Schema families per entity, after the FastAPI template: ``XCreate`` in, ``X`` the table,
``XPublic`` out; a table model is never returned directly.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal

from sqlalchemy import JSON, Column, Index, UniqueConstraint, text
from sqlmodel import Field, SQLModel


def utcnow() -> datetime:
    return datetime.now(UTC)


# Every table's ids only rise on SQLite too, as PostgreSQL's sequences do: without AUTOINCREMENT
# the newest learner's id, deleted, goes to the next one to sign up (migration 0011 says more).
IDS_NEVER_REUSED: dict[str, Any] = {"sqlite_autoincrement": True}


class User(SQLModel, table=True):
    __table_args__ = IDS_NEVER_REUSED
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=80)
    token_hash: str = Field(index=True, unique=True, max_length=64)
    created_at: datetime = Field(default_factory=utcnow)
    # The language verdicts and starters are given in when a request does not say (?lang=).
    lang: str = Field(default="en", max_length=8, sa_column_kwargs={"server_default": "en"})
    # learner | operator. Operators are made on the host (`addnorm admin create-operator`),
    # never over HTTP, so no request can raise its own role.
    role: str = Field(
        default="learner", max_length=16, sa_column_kwargs={"server_default": "learner"}
    )
    # Set by an operator: the token is refused (403, saying why) until it is cleared.
    disabled_at: datetime | None = None


# The two roles a token can carry (User.role).
Role = Literal["learner", "operator"]


# The languages a learner can read the service in (the same as api.content.catalog.Lang).
LearnerLang = Literal["en", "zh"]


class UserCreate(SQLModel):
    name: str = Field(min_length=1, max_length=80)
    # An operator's invite code: required when ADDNORM_REGISTRATION=invite, ignored otherwise.
    invite: str | None = Field(default=None, max_length=128)


class UserUpdate(SQLModel):
    lang: LearnerLang | None = None


class UserPublic(SQLModel):
    id: int
    name: str
    lang: LearnerLang = "en"


class UserCreated(UserPublic):
    token: str


class Submission(SQLModel, table=True):
    # A learner's history on one exercise, in order: the review card reads the last pass and
    # the failures since it on every verdict, which must not cost more as the history grows.
    __table_args__ = (
        Index("ix_submission_learner_exercise", "user_id", "exercise", "id"),
        IDS_NEVER_REUSED,
    )

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="user.id", index=True)
    exercise: str = Field(index=True, max_length=64)
    code: str
    # queued (queue mode) -> grading -> done, or grader_failed when grading itself broke (never
    # the learner's fault). A row left queued/grading by a dead process is graded again.
    state: str = Field(default="grading", max_length=16, index=True)
    verdict: str | None = Field(default=None, max_length=16)
    message: str = ""
    result: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    created_at: datetime = Field(default_factory=utcnow)
    completed_at: datetime | None = None
    # Recovery bookkeeping: when the task was last sent to the queue, when grading last began,
    # and how many times it began (a submission that keeps killing its grader is closed).
    sent_at: datetime | None = None
    started_at: datetime | None = None
    attempts: int = Field(default=0, sa_column_kwargs={"server_default": "0"})


class SubmissionCreate(SQLModel):
    code: str


class QuestionAnswer(SQLModel, table=True):
    __table_args__ = IDS_NEVER_REUSED
    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="user.id", index=True)
    question_id: str = Field(index=True, max_length=80)
    topic: str = Field(max_length=32)
    answer: Any = Field(sa_column=Column(JSON, nullable=True))
    correct: bool
    created_at: datetime = Field(default_factory=utcnow)


class ReviewCard(SQLModel, table=True):
    """Spaced-repetition state of one item (a question or an exercise) for one learner."""

    __table_args__ = (UniqueConstraint("user_id", "kind", "item_id"), IDS_NEVER_REUSED)
    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="user.id", index=True)
    kind: str = Field(max_length=16)  # question | exercise | follow_up | explain
    item_id: str = Field(max_length=80)
    topic: str = Field(max_length=32)
    card: str  # the fsrs card state as JSON (api.learning.review owns the format)
    due: datetime = Field(index=True)
    updated_at: datetime = Field(default_factory=utcnow)


class Interview(SQLModel, table=True):
    """A timed mock interview: its items are fixed when it starts (see api.learning.interviews)."""

    # One running interview per learner, kept by the database: two starts at the same moment
    # both pass the "is one running?" read, and only this index refuses the second insert.
    __table_args__ = (
        Index(
            "uq_interview_one_running",
            "user_id",
            unique=True,
            sqlite_where=text("state = 'running'"),
            postgresql_where=text("state = 'running'"),
        ),
        IDS_NEVER_REUSED,
    )

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="user.id", index=True)
    lang: str = Field(max_length=8)
    minutes: float
    topics: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    # [{"position", "kind", "id", "topics"}], in the order asked.
    items: list[dict[str, Any]] = Field(
        default_factory=list, sa_column=Column(JSON, nullable=False)
    )
    focus_topics: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    # Topic mastery when it started, and when it ended (frozen for the report).
    mastery_before: dict[str, float] = Field(
        default_factory=dict, sa_column=Column(JSON, nullable=False)
    )
    mastery_after: dict[str, float] | None = Field(default=None, sa_column=Column(JSON))
    # running -> finished (ended by the learner) or expired (time ran out).
    state: str = Field(default="running", max_length=16)
    started_at: datetime = Field(default_factory=utcnow)
    deadline: datetime
    ended_at: datetime | None = None
    # phone_screen | onsite | concepts (api.learning.interviews.PRESETS); "" for interviews from
    # before.
    preset: str = Field(default="", max_length=32)
    # Submissions allowed per coding item, fixed when the interview starts.
    max_attempts: int = 3
    # The learner's rating of their explanation against the rubric, given after the end.
    self_rating: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON))


class InterviewEvent(SQLModel, table=True):
    """An item of an interview opened or left: the time per item is measured between them."""

    __table_args__ = IDS_NEVER_REUSED
    id: int | None = Field(default=None, primary_key=True)
    interview_id: int = Field(foreign_key="interview.id", index=True)
    position: int
    event: str = Field(max_length=8)  # open | leave
    at: datetime = Field(default_factory=utcnow)


class InterviewAttempt(SQLModel, table=True):
    """One answer or one code submission given during an interview."""

    __table_args__ = IDS_NEVER_REUSED
    id: int | None = Field(default=None, primary_key=True)
    interview_id: int = Field(foreign_key="interview.id", index=True)
    position: int
    kind: str = Field(max_length=16)  # question | exercise | follow_up | explain
    item_id: str = Field(max_length=80)
    at: datetime = Field(default_factory=utcnow)
    # Questions: the checked answer, held back from the learner until the interview ends.
    answer: Any = Field(default=None, sa_column=Column(JSON, nullable=True))
    correct: bool | None = None
    # Exercises: the submission graded through the normal submission flow.
    submission_id: int | None = Field(default=None, foreign_key="submission.id")


class HelpUse(SQLModel, table=True):
    """A hint rung or the worked solution shown to a learner: it lowers the exercise's next
    review rating (see api.help)."""

    __table_args__ = IDS_NEVER_REUSED
    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="user.id", index=True)
    exercise: str = Field(index=True, max_length=64)
    kind: str = Field(max_length=16)  # hint | solution
    rung: int | None = None  # the hint's number (1-based); None for the solution
    at: datetime = Field(default_factory=utcnow)


class Draft(SQLModel, table=True):
    """The code a learner is writing for an exercise, not yet submitted: one per exercise."""

    __table_args__ = (UniqueConstraint("user_id", "exercise"), IDS_NEVER_REUSED)
    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="user.id", index=True)
    exercise: str = Field(max_length=64)
    code: str
    updated_at: datetime = Field(default_factory=utcnow)


class DraftSave(SQLModel):
    code: str


class Invite(SQLModel, table=True):
    """A code an operator made that lets ``uses`` learners sign up until ``expires_at``
    (ADDNORM_REGISTRATION=invite). Only the code's hash is stored, as for tokens."""

    __table_args__ = IDS_NEVER_REUSED
    id: int | None = Field(default=None, primary_key=True)
    code_hash: str = Field(index=True, unique=True, max_length=64)
    uses: int
    used: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    expires_at: datetime
    created_at: datetime = Field(default_factory=utcnow)
    revoked_at: datetime | None = None


class BrowserSession(SQLModel, table=True):
    """A signed-in browser: its cookie is a random id of its own (only the hash is kept), never
    the learner's API token. Ended by signing out, by token rotation, or by the operator; it
    expires at ``expires_at`` whatever happens (see api.learning.sessions)."""

    __table_args__ = IDS_NEVER_REUSED
    id: int | None = Field(default=None, primary_key=True)
    id_hash: str = Field(index=True, unique=True, max_length=64)
    user_id: int = Field(foreign_key="user.id", index=True)
    # The secret this browser's CSRF tokens are an HMAC of: a new one with every session.
    csrf_secret: str = Field(max_length=64)
    created_at: datetime = Field(default_factory=utcnow)
    expires_at: datetime
    ended_at: datetime | None = None

"""The operator's JSON API under ``/admin``: invitations, learners, the cohort view, exports,
the service's health in detail. Every route needs an operator's token (``CurrentOperator``):
401 without a token, 403 with a learner's."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from fastapi import APIRouter, HTTPException
from fastapi.responses import Response
from pydantic import BaseModel, Field, model_validator
from sqlmodel import Session

from api.content.catalog import Lang
from api.http import health
from api.http.deps import AppDep, CurrentOperator, RowId, SessionDep
from api.http.downloads import AS_FILE, cohort_export, learner_export
from api.http.users import add_learner, learner_lang
from api.learning import cohort, export, learners, registration, submissions
from api.learning.verdict_i18n import render
from api.models import Invite, Submission, User, UserCreate, UserCreated

router = APIRouter(prefix="/admin", tags=["admin"])


class InviteCreate(BaseModel):
    uses: int = Field(default=1, ge=1, le=registration.MAX_USES)
    # Either a moment, or hours from now (a week when neither is given).
    expires_at: datetime | None = None
    expires_in_hours: float | None = Field(default=None, gt=0, le=24 * 366, allow_inf_nan=False)

    @model_validator(mode="after")
    def _one_expiry(self) -> InviteCreate:
        if self.expires_at is not None and self.expires_in_hours is not None:
            raise ValueError("give expires_at or expires_in_hours, not both")
        if self.expires_at is not None and self.expires_at.tzinfo is None:
            raise ValueError("expires_at needs a time zone (e.g. 2027-01-31T18:00:00Z)")
        if self.expires_at is not None:
            try:
                # 9999-12-31T23:00-01:00 is a valid moment with no UTC datetime: it overflowed
                # in deadline() and answered 500.
                self.expires_at.astimezone(UTC)
            except OverflowError:
                raise ValueError(
                    "expires_at is out of range: an invite may stay valid a year at most"
                ) from None
        return self

    def deadline(self, now: datetime) -> datetime:
        if self.expires_at is not None:
            when = self.expires_at.astimezone(UTC)
        else:
            when = now + timedelta(hours=self.expires_in_hours or 24 * 7)
        if when <= now:
            raise HTTPException(422, detail="expires_at is in the past")
        if when - now > registration.MAX_LIFETIME:
            raise HTTPException(422, detail="An invite may stay valid a year at most")
        return when


class InviteCreated(BaseModel):
    id: int
    code: str
    uses: int
    expires_at: datetime


class InvitePublic(BaseModel):
    id: int
    uses: int
    used: int
    expires_at: datetime
    created_at: datetime
    state: Literal["open", "used_up", "expired", "revoked"]


class LearnerUpdate(BaseModel):
    name: str | None = Field(default=None, min_length=1, max_length=80)
    disabled: bool | None = None


class LearnerPublic(cohort.LearnerRow):
    lang: str


class TokenIssued(BaseModel):
    id: int
    name: str
    token: str


class Deleted(BaseModel):
    id: int
    # Rows deleted per table, the learner's own row included.
    rows: dict[str, int]


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def invite_public(row: Invite) -> InvitePublic:
    assert row.id is not None
    return InvitePublic(
        id=row.id,
        uses=row.uses,
        used=row.used,
        expires_at=_aware(row.expires_at),
        created_at=_aware(row.created_at),
        state=registration.state(row),  # type: ignore[arg-type]
    )


def make_invite(session: Session, body: InviteCreate) -> InviteCreated:
    row, code = registration.create_invite(
        session, uses=body.uses, expires_at=body.deadline(datetime.now(UTC))
    )
    assert row.id is not None
    return InviteCreated(id=row.id, code=code, uses=row.uses, expires_at=_aware(row.expires_at))


@router.post("/invites", status_code=201, response_model=InviteCreated)
def create_invite(body: InviteCreate, operator: CurrentOperator, session: SessionDep) -> Any:
    """An invite code for ADDNORM_REGISTRATION=invite, good for ``uses`` sign-ups until it
    expires. The code is shown once, here."""
    del operator
    return make_invite(session, body)


@router.get("/invites", response_model=list[InvitePublic])
def read_invites(operator: CurrentOperator, session: SessionDep) -> Any:
    del operator
    return [invite_public(r) for r in registration.invites(session)]


@router.delete("/invites/{invite_id}", response_model=InvitePublic)
def revoke_invite(invite_id: RowId, operator: CurrentOperator, session: SessionDep) -> Any:
    del operator
    row = registration.revoke(session, invite_id=invite_id)
    if row is None:
        raise HTTPException(404, detail="Invite not found")
    return invite_public(row)


def learner_rows(session: Session, ctx: AppDep) -> dict[int, cohort.LearnerRow]:
    view = cohort.read_cohort(
        session, bank=ctx.questions, catalog=ctx.catalog, now=datetime.now(UTC)
    )
    return {row.id: row for row in view.learners}


def learner_public(session: Session, ctx: AppDep, user: User) -> LearnerPublic:
    row = learner_rows(session, ctx)[user.id or 0]
    return LearnerPublic(**row.model_dump(), lang=learner_lang(user))


def _learner(session: Session, user_id: int) -> User:
    user = learners.learner(session, user_id)
    if user is None:
        raise HTTPException(404, detail="Learner not found")
    return user


@router.get("/learners", response_model=list[cohort.LearnerRow])
def read_learners(operator: CurrentOperator, session: SessionDep, ctx: AppDep) -> Any:
    """Every learner: last active, exercises attempted and solved, mastery per topic."""
    del operator
    return list(learner_rows(session, ctx).values())


@router.post("/learners", status_code=201, response_model=UserCreated)
def create_learner(body: UserCreate, operator: CurrentOperator, session: SessionDep) -> Any:
    """A learner made by the operator, whatever ADDNORM_REGISTRATION says (the only way when
    it is ``closed``). The token is shown once, here: hand it to the learner."""
    del operator
    return add_learner(session, name=body.name)


@router.patch("/learners/{user_id}", response_model=LearnerPublic)
def update_learner(
    user_id: RowId, body: LearnerUpdate, operator: CurrentOperator, session: SessionDep, ctx: AppDep
) -> Any:
    """Rename (``name``), disable or enable (``disabled``) a learner. A disabled learner's token
    is refused (403) until they are enabled again; nothing of theirs is lost."""
    del operator
    user = _learner(session, user_id)
    if body.name is not None:
        learners.rename(session, user, body.name)
    if body.disabled is not None:
        learners.set_disabled(session, user, body.disabled)
    return learner_public(session, ctx, user)


@router.post("/learners/{user_id}/token", response_model=TokenIssued)
def reissue_token(user_id: RowId, operator: CurrentOperator, session: SessionDep) -> Any:
    """A new token for a learner who lost theirs: the old one stops working at once, and the
    new one is shown once, here."""
    del operator
    user = _learner(session, user_id)
    token = learners.reissue_token(session, user)
    return TokenIssued(id=user_id, name=user.name, token=token)


@router.delete("/learners/{user_id}", response_model=Deleted)
def delete_learner(user_id: RowId, operator: CurrentOperator, session: SessionDep) -> Any:
    """Delete a learner and everything they own (submissions, drafts, answers, review cards,
    interviews, help taken, ...), in one transaction. There is no undo but a backup."""
    del operator
    _learner(session, user_id)
    rows = learners.delete_learner(session, user_id=user_id)
    if rows is None:  # another deletion of this learner came first
        raise HTTPException(404, detail="Learner not found")
    return Deleted(id=user_id, rows=rows)


@router.get("/learners/{user_id}/export", response_model=None, responses=AS_FILE)
def export_learner(
    user_id: RowId,
    operator: CurrentOperator,
    session: SessionDep,
    format: export.Format = "json",
    table: str | None = None,
) -> Response:
    """One learner's data: JSON (everything), or one table as CSV (``table=submission``, ...)."""
    del operator
    return learner_export(session, _learner(session, user_id), format, table)


@router.get("/cohort", response_model=cohort.CohortView, responses=AS_FILE)
def read_cohort(
    operator: CurrentOperator,
    session: SessionDep,
    ctx: AppDep,
    format: export.Format | None = None,
    table: str | None = None,
) -> Any:
    """The cohort view. ``format=csv`` (one ``table``: learners, exercises, mistakes, topics,
    interviews) or ``format=json`` downloads it as a file."""
    del operator
    view = cohort.read_cohort(
        session, bank=ctx.questions, catalog=ctx.catalog, now=datetime.now(UTC)
    )
    if format is not None:
        return cohort_export(view, format, table)
    return view


@router.get("/submissions/{submission_id}")
def read_submission(
    submission_id: RowId, operator: CurrentOperator, session: SessionDep, lang: Lang = "en"
) -> dict[str, Any]:
    """Any learner's submission with its verdict: the examples the cohort view links to."""
    del operator
    row = session.get(Submission, submission_id)
    if row is None:
        raise HTTPException(404, detail="Submission not found")
    return {**render(submissions.public(row), lang), "user_id": row.user_id, "code": row.code}


@router.get("/health")
def read_health(operator: CurrentOperator, ctx: AppDep) -> dict[str, Any]:
    """The service in detail (sandbox layers, pool, queue), for operators only."""
    del operator
    return health.health_detail(ctx)

"""A learner's unsubmitted code per exercise, kept on the server so it follows them to another
browser or device. One row per (learner, exercise), overwritten on every save."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from api import plaintext
from api.grading.static import MAX_CODE_BYTES
from api.models import Draft

# The same bound as a submission: a draft is code that is meant to be submitted.
MAX_DRAFT_BYTES = MAX_CODE_BYTES


class DraftTooLarge(ValueError):
    def __init__(self, size: int) -> None:
        super().__init__(f"The draft is {size} bytes; the limit is {MAX_DRAFT_BYTES // 1024} KiB")


def load(session: Session, *, user_id: int, exercise: str) -> Draft | None:
    row = session.exec(
        select(Draft).where(Draft.user_id == user_id, Draft.exercise == exercise)
    ).first()
    # End the read transaction (see api.deps.current_user: SQLite's lock upgrade).
    session.commit()
    return row


def save(session: Session, *, user_id: int, exercise: str, code: str, now: datetime) -> Draft:
    """Store the draft (sanitised like submitted code); raises DraftTooLarge."""
    # A lone surrogate is valid JSON but not UTF-8: replaced before anything encodes it.
    code = plaintext.sanitised(code)
    size = len(code.encode())
    if size > MAX_DRAFT_BYTES:
        raise DraftTooLarge(size)
    for _ in range(2):
        row = load(session, user_id=user_id, exercise=exercise)
        if row is None:
            row = Draft(user_id=user_id, exercise=exercise, code=code, updated_at=now)
        else:
            row.code, row.updated_at = code, now
        session.add(row)
        try:
            session.commit()
        except IntegrityError:
            # Two first saves at once (the editor's and a tab closing): the other one created
            # the row; overwrite it.
            session.rollback()
            continue
        session.refresh(row)
        return row
    raise RuntimeError("the draft could not be saved")

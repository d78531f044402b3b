"""An operator's hold on learners: rename, disable, a new token, and deletion with every row
they own.

What a learner owns is read from the tables themselves (``SQLModel.metadata``), not listed by
hand: a row is theirs when it has a ``user_id`` (or any column referring to ``user.id``), or
refers to such a row (an interview's attempts, through ``interview_id``). So a table added later
is deleted and exported with the rest without anyone remembering to add it here.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, Table, delete, false, or_, select, update
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlmodel import Session, SQLModel, col

import api.models  # noqa: F401  (registers every table on SQLModel.metadata)
from api.learning import sessions
from api.learning.tokens import hash_token, new_token
from api.models import Submission, User, utcnow

USER_TABLE = "user"


@dataclass(frozen=True)
class Owned:
    """A table holding a learner's rows, and how to find them."""

    table: Table
    # Columns naming the learner directly (user_id, or another reference to user.id).
    direct: tuple[str, ...]
    # (column, parent table, parent's key column): rows referring to a row the learner owns.
    through: tuple[tuple[str, Table, str], ...]

    def rows_of(self, user_id: int) -> ColumnElement[bool]:
        """The WHERE clause selecting this table's rows that belong to ``user_id``."""
        clauses: list[ColumnElement[bool]] = [self.table.c[c] == user_id for c in self.direct]
        for column, parent, key in self.through:
            parent_owned = owned_tables()[parent.name]
            clauses.append(
                self.table.c[column].in_(select(parent.c[key]).where(parent_owned.rows_of(user_id)))
            )
        return or_(false(), *clauses)


def _direct_columns(table: Table) -> tuple[str, ...]:
    names = []
    for column in table.columns:
        refers_to_user = any(fk.column.table.name == USER_TABLE for fk in column.foreign_keys)
        if column.name == "user_id" or refers_to_user:
            names.append(column.name)
    return tuple(names)


_OWNED: dict[str, Owned] | None = None


def owned_tables() -> dict[str, Owned]:
    """Every table with rows a learner owns, parents before the tables that refer to them."""
    global _OWNED
    if _OWNED is not None:
        return _OWNED
    found: dict[str, Owned] = {}
    for table in SQLModel.metadata.sorted_tables:  # referred-to tables first
        if table.name == USER_TABLE:
            continue
        direct = _direct_columns(table)
        through = tuple(
            (column.name, fk.column.table, fk.column.name)
            for column in table.columns
            for fk in column.foreign_keys
            if fk.column.table.name in found
        )
        if direct or through:
            found[table.name] = Owned(table, direct, through)
    _OWNED = found
    return found


# A deletion meets the learner's own requests still running: one may insert a row after the
# children's deletion (the user's then fails on its foreign key), or PostgreSQL may end one of
# the two to break a deadlock. Either way this transaction is rolled back whole and run again.
_DELETE_TRIES = 5


def delete_learner(session: Session, *, user_id: int) -> dict[str, int] | None:
    """Delete a learner and every row they own, in one transaction; the rows deleted per table,
    or None when there is no such user (another deletion of them came first). Children go
    first, so foreign keys hold throughout."""
    for _ in range(_DELETE_TRIES - 1):
        try:
            return _delete_once(session, user_id)
        except (IntegrityError, OperationalError):
            session.rollback()
    return _delete_once(session, user_id)


def _delete_once(session: Session, user_id: int) -> dict[str, int] | None:
    if session.get(User, user_id, populate_existing=True) is None:
        return None
    # The learner's submissions first, FOR UPDATE (PostgreSQL): a grading recording its verdict
    # holds its submission's row and then the review card's, so taking the submissions before
    # any card is the one order in which the two never wait for each other in a circle.
    session.execute(
        select(Submission.__table__.c.id)  # type: ignore[attr-defined]
        .where(Submission.__table__.c.user_id == user_id)  # type: ignore[attr-defined]
        .with_for_update()
    ).all()
    counts: dict[str, int] = {}
    for owned in reversed(list(owned_tables().values())):
        result = session.execute(delete(owned.table).where(owned.rows_of(user_id)))
        counts[owned.table.name] = int(result.rowcount)  # type: ignore[attr-defined]
    gone = session.execute(delete(User.__table__).where(User.__table__.c.id == user_id))  # type: ignore[attr-defined]
    if gone.rowcount != 1:  # type: ignore[attr-defined]
        # Another deletion of this learner committed first: only one of them says it deleted.
        session.rollback()
        return None
    counts[USER_TABLE] = 1
    session.commit()
    return counts


def owned_rows(session: Session, *, user_id: int) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """Every row the learner owns, table by table (for the data export). Columns holding a
    secret or its hash (``*_hash``, ``*_secret``) are left out: of no use to anyone reading an
    export, and a browser session's CSRF secret would let its holder forge that session's forms."""
    for name, owned in owned_tables().items():
        columns = [c for c in owned.table.columns if not c.name.endswith(("_hash", "_secret"))]
        rows = session.execute(
            select(*columns).where(owned.rows_of(user_id)).order_by(*owned.table.primary_key)
        )
        yield name, [dict(row._mapping) for row in rows]


def learner(session: Session, user_id: int) -> User | None:
    """A learner (not an operator: operators are managed on the host)."""
    user = session.get(User, user_id)
    return user if user is not None and user.role == "learner" else None


def rename(session: Session, user: User, name: str) -> User:
    user.name = name.strip() or name
    session.add(user)
    session.commit()
    session.refresh(user)
    return user


def set_disabled(session: Session, user: User, disabled: bool) -> User:
    if disabled and user.disabled_at is None:
        user.disabled_at = utcnow()
    elif not disabled:
        user.disabled_at = None
    session.add(user)
    session.commit()
    session.refresh(user)
    if disabled:
        # Ended, not merely hidden: enabling the learner again must not revive old cookies.
        assert user.id is not None
        sessions.end_sessions(session, user.id)
    return user


def reissue_token(session: Session, user: User) -> str:
    """A new token for the learner; the old one stops working with this commit (only the hash
    is stored, and it is replaced), and every browser session of theirs ends with it (a lost or
    leaked token may have opened some)."""
    token = new_token()
    user.token_hash = hash_token(token)
    session.add(user)
    session.commit()
    session.refresh(user)
    assert user.id is not None
    sessions.end_sessions(session, user.id)
    return token


def rotate_token(session: Session, user: User) -> str | None:
    """``reissue_token`` for the learner's own request, which carried the token it replaces:
    None, nothing changed, when another request replaced that token first. Two rotations sent
    at once with one token would otherwise both answer a new token, and only the later one
    would work."""
    assert user.id is not None
    carried = user.token_hash
    token = new_token()
    session.commit()  # end the read: the guarded UPDATE is the first statement of the write
    taken = session.execute(
        update(User)
        .where(col(User.id) == user.id, col(User.token_hash) == carried)
        .values(token_hash=hash_token(token))
    )
    if taken.rowcount != 1:  # type: ignore[attr-defined]
        session.rollback()
        return None
    # The learner's sessions end in the same transaction (``end_sessions`` commits both): a
    # request signed in by one of them that reads the learner after the new token is written
    # then finds its session over. Ended in a second transaction, a tab whose sign-in fell
    # between the two read the new token as the one it carried and rotated again: two tabs
    # were each shown a token, and only the later one worked.
    sessions.end_sessions(session, user.id)
    return token


def create_operator(session: Session, *, name: str) -> tuple[User, str]:
    """An operator's user and token: only ever called on the host (``addnorm admin``)."""
    token = new_token()
    user = User(name=name.strip() or name, token_hash=hash_token(token), role="operator")
    session.add(user)
    session.commit()
    session.refresh(user)
    return user, token

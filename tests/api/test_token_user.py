"""One lookup of a bearer token per request: the practice hold asks first, on the request's
session, and the route's sign-in finds its answer (``deps.token_user``). Counted on a real
SQLite database: the statements the engine runs."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import event
from sqlmodel import Session, SQLModel
from starlette.requests import Request

from api.db import make_engine
from api.http.deps import hash_token, token_user
from api.models import User


def _request() -> Request:
    return Request({"type": "http", "method": "POST", "path": "/", "headers": [], "state": {}})


@pytest.fixture
def counted(tmp_path: Path) -> Iterator[tuple[Session, list[str], list[Session]]]:
    engine = make_engine(f"sqlite:///{tmp_path / 'users.db'}")
    SQLModel.metadata.create_all(engine)
    with Session(engine) as setup:
        setup.add(User(name="ada", token_hash=hash_token("ada-token")))
        setup.commit()
    lookups: list[str] = []

    @event.listens_for(engine, "before_cursor_execute")
    def count(_conn, _cursor, statement, *_rest):  # type: ignore[no-untyped-def]
        if "token_hash" in statement and statement.lstrip().upper().startswith("SELECT"):
            lookups.append(statement)

    opened: list[Session] = []
    with Session(engine, expire_on_commit=False) as session:
        yield session, lookups, opened
    for other in opened:
        other.close()
    engine.dispose()


def test_the_second_question_of_one_request_is_answered_without_the_database(
    counted: tuple[Session, list[str], list[Session]],
) -> None:
    session, lookups, _ = counted
    request = _request()
    first = token_user(request, session, "ada-token")
    again = token_user(request, session, "ada-token")
    assert first is not None and first.name == "ada"
    assert again is first
    assert len(lookups) == 1


def test_another_token_another_session_or_another_request_asks_again(
    counted: tuple[Session, list[str], list[Session]],
) -> None:
    session, lookups, opened = counted
    request = _request()
    assert token_user(request, session, "ada-token") is not None
    # Another token on the same request: not the remembered answer (a stranger's is None).
    assert token_user(request, session, "someone-else") is None
    assert len(lookups) == 2
    # The remembered user belongs to one session: another session looks it up itself.
    other = Session(session.get_bind(), expire_on_commit=False)
    opened.append(other)
    found = token_user(request, other, "someone-else")
    assert found is None and len(lookups) == 3
    # A new request remembers nothing.
    assert token_user(_request(), session, "ada-token") is not None
    assert len(lookups) == 4

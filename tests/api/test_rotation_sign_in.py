"""A token rotation and a sign-in read of the same learner, interleaved on purpose, on SQLite
and on PostgreSQL (tests/api/conftest.py): a request signed in by one of the learner's sessions
must never find that session live beside the new token. It did between the rotation's two
commits (the token written, the sessions not yet ended), and a second tab then rotated again
with the token it found: tests/browser/test_sessions_http.py's two tabs, each shown a token, in
about 1 run of 30."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from sqlalchemy import Engine
from sqlmodel import Session

from api import db
from api.learning import learners, sessions
from api.learning.tokens import hash_token
from api.models import User


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    engine = db.make_engine(database_url)
    db.migrate(engine)
    yield engine
    engine.dispose()


def test_a_sign_in_during_a_rotation_sees_the_old_token_or_no_session(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    now = datetime.now(UTC)
    with Session(engine, expire_on_commit=False) as s:
        user = User(name="rotates", token_hash=hash_token("old token"))
        s.add(user)
        s.commit()
        assert user.id is not None
        cookie = sessions.begin(s, user_id=user.id, hours=1, now=now).cookie

    # The rotation stops where its sessions are about to end, until the read below is done.
    reached, resume = threading.Event(), threading.Event()
    real_end = sessions.end_sessions

    def paused_end(session: Session, user_id: int, **kwargs: object) -> int:
        reached.set()
        assert resume.wait(30)
        return real_end(session, user_id)

    monkeypatch.setattr(sessions, "end_sessions", paused_end)
    rotated: list[str | None] = []

    def rotate() -> None:
        with Session(engine, expire_on_commit=False) as s:
            found = sessions.find(s, cookie, now=now)
            assert found is not None
            rotated.append(learners.rotate_token(s, found[1]))

    rotation = threading.Thread(target=rotate)
    rotation.start()
    try:
        assert reached.wait(30), "the rotation never reached the end of the sessions"
        with Session(engine, expire_on_commit=False) as s:
            seen = sessions.find(s, cookie, now=now)
    finally:
        resume.set()
        rotation.join(30)
    assert rotated and rotated[0] is not None
    # Live beside the old token (the rotation not yet visible), or not live at all: never the
    # session live beside the new token.
    if seen is not None:
        assert seen[1].token_hash == hash_token("old token")
    with Session(engine) as s:
        assert sessions.find(s, cookie, now=now) is None
        current = s.get(User, user.id)
        assert current is not None and current.token_hash == hash_token(rotated[0])

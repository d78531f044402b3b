"""Rotations of one token sent at once: one new token, and it works.

Each request carried the same token; each used to write a new one and answer it, so all but the
last answer handed the learner a token that never worked. The token a request carried is now
the guard of its replacement: the first rotation wins, the others are refused as if sent after
it (401). Runs on SQLite and on PostgreSQL (tests/api/conftest.py).
"""

from __future__ import annotations

import httpx

from tests.support import Server, at_once

AT_ONCE = 8


def test_one_of_simultaneous_rotations_gives_the_token(server: Server) -> None:
    token = server.new_learner("rotates twice")

    def rotate() -> httpx.Response:
        with server.client(token) as client:
            return client.post("/users/me/token")

    answers = at_once(AT_ONCE, rotate)
    statuses = sorted(a.status_code for a in answers)
    assert statuses == [200] + [401] * (AT_ONCE - 1), statuses
    new = next(a for a in answers if a.status_code == 200).json()["token"]
    with server.client(new) as client:
        assert client.get("/users/me").status_code == 200
    with server.client(token) as client:
        assert client.get("/users/me").status_code == 401

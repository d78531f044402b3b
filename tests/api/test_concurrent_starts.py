"""Two starts of a mock interview at the same moment: one interview, never two, never a 500.

The route reads "is one running?" and then inserts; two requests can both pass the read. The
database's partial unique index (one running interview per learner) refuses the second insert,
which the learner reads as the usual 409 naming the interview that runs. Runs on SQLite and on
PostgreSQL (tests/api/conftest.py).
"""

from __future__ import annotations

from tests.support import Server, at_once

STARTS = 8


def test_simultaneous_starts_give_one_interview(server: Server) -> None:
    token = server.new_learner("racer")

    def start() -> int:
        with server.client(token) as client:
            return client.post("/interviews", json={"minutes": 30}).status_code

    statuses = at_once(STARTS, start)
    assert statuses.count(201) == 1, statuses
    assert sorted(set(statuses)) == [201, 409], statuses

    with server.client(token) as client:
        listed = client.get("/interviews")
    assert listed.status_code == 200
    running = [i for i in listed.json() if i["state"] == "running"]
    assert len(running) == 1, listed.json()


def test_a_refused_start_names_the_running_interview(server: Server) -> None:
    token = server.new_learner("second")
    with server.client(token) as client:
        first = client.post("/interviews", json={"minutes": 30})
        assert first.status_code == 201
        second = client.post("/interviews", json={"minutes": 30})
    assert second.status_code == 409
    assert f"Interview {first.json()['id']} is still running" in second.json()["detail"]

"""The API suite runs twice: on SQLite (the embedded default) and on PostgreSQL (a database of
its own, created for the session and dropped afterwards)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.services import postgres_database
from tests.support import Server, start_server, stop_server


@pytest.fixture(scope="session", params=["sqlite", "postgresql"])
def database_url(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path_factory.mktemp('sqlite') / 'addnorm.db'}"
    else:
        with postgres_database() as url:
            yield url


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory, database_url: str) -> Iterator[Server]:
    # Generous per-minute limit: the variant tables submit many times for one learner.
    srv = start_server(
        tmp_path_factory.mktemp("server"),
        ADDNORM_SUBMISSIONS_PER_MINUTE="1000",
        ADDNORM_DATABASE_URL=database_url,
    )
    yield srv
    stop_server(srv)

"""Shared fixtures: a real server over HTTP, on a real SQLite file, with the real sandbox."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.support import Server, start_server, stop_server


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    # Generous per-minute limit: the variant tables submit many times for one learner.
    srv = start_server(tmp_path_factory.mktemp("server"), ADDNORM_SUBMISSIONS_PER_MINUTE="1000")
    yield srv
    stop_server(srv)


@pytest.fixture
def token(server: Server) -> str:
    return server.new_learner()


@pytest.fixture
def api(server: Server, token: str) -> Iterator[httpx.Client]:
    with server.client(token) as c:
        yield c

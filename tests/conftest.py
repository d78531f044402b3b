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


# The quick tier (`bash scripts/test --quick`, CONTRIBUTING.md): the tests that start no
# server, grader pool, browser, notebook kernel, cluster or subprocess. Selected here from what
# each test uses, so a new test lands in the right tier without a decorator.
_HEAVY_DIRS = {"browser", "sandbox", "hostile", "queue", "deploy", "fuzz", "notebooks"}
_HEAVY_FIXTURES = {
    "server",
    "token",
    "api",
    "learner",
    "signed_up",
    "grader",
    "run",
    "tight",
    "insecure_server",
    "live_server",
    "formula_server",
    "own_database",
}
# A module that imports any of these starts processes of its own.
_HEAVY_NAMES = ("subprocess", "Popen", "start_server", "learner_env", "GraderPool")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        parts = item.path.relative_to(config.rootpath).parts
        module = getattr(item, "module", None)
        heavy = (
            (len(parts) > 2 and parts[1] in _HEAVY_DIRS)
            or bool(_HEAVY_FIXTURES & set(getattr(item, "fixturenames", ())))
            or any(hasattr(module, name) for name in _HEAVY_NAMES)
            or item.get_closest_marker("slow") is not None
        )
        if not heavy:
            item.add_marker(pytest.mark.quick)

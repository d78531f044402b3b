"""Shared fixtures: a real server over HTTP, on a real SQLite file, with the real sandbox."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import httpx
import pytest

from tests import report
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
# A module that imports any of these starts processes of its own; so does a fixture defined in
# such a module (tests/admin/conftest.py's `deployment`, whatever the fixture is called).
_HEAVY_NAMES = (
    "subprocess",
    "Popen",
    "start_server",
    "run_script",
    "learner_env",
    "GraderPool",
    "psycopg",
)

# Tests that must not run beside each other under pytest-xdist (`--dist loadgroup` sends one
# group to one worker, in order): they watch timing (the fair-turn and grading-turn schedulers,
# connection and body deadlines, a grader killed mid-job) or run clusters of workers, brokers and
# network namespaces whose start-up deadlines assume no twin cluster starting beside them.
# Everything else runs on any worker: each worker has its own session server (a free port, a
# data directory under its own basetemp), its own PostgreSQL database and Redis key prefix.
_SERIAL = "serial"
_SERIAL_DIRS = {"queue", "deploy"}
_SERIAL_FILES = {
    "tests/api/test_grading_turns.py",
    "tests/api/test_fairness.py",
    "tests/api/test_resilience.py",
    "tests/api/test_recovery.py",
    "tests/api/test_concurrent_starts.py",
    "tests/hostile/test_service_bounds.py",
    "tests/hostile/test_shared_deployment.py",
}


def _imports_heavy_names(module: ModuleType | None) -> bool:
    return module is not None and any(hasattr(module, name) for name in _HEAVY_NAMES)


def _starts_processes(module: ModuleType | None) -> bool:
    """The module imports one of the names above, or a helper of the suite from a module that
    does (``from tests.admin.conftest import deploy``)."""
    if module is None:
        return False
    if _imports_heavy_names(module):
        return True
    for value in vars(module).values():
        home = getattr(value, "__module__", None)
        suite_helper = isinstance(home, str) and home.startswith("tests.")
        if suite_helper and home != module.__name__ and _imports_heavy_names(sys.modules.get(home)):
            return True
    return False


def _heavy_fixture(item: pytest.Item, tests_dir: Path) -> bool:
    """A fixture of the test's closure defined in one of the suite's modules that starts
    processes (pytest's own fixtures are not looked at)."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return False
    for defs in info.name2fixturedefs.values():
        for fixturedef in defs:
            module = sys.modules.get(getattr(fixturedef.func, "__module__", ""))
            path = getattr(module, "__file__", None)
            if path and Path(path).is_relative_to(tests_dir) and _starts_processes(module):
                return True
    return False


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    tests_dir = config.rootpath / "tests"
    for item in items:
        relative = item.path.relative_to(config.rootpath)
        parts = relative.parts
        heavy = (
            (len(parts) > 2 and parts[1] in _HEAVY_DIRS)
            or bool(_HEAVY_FIXTURES & set(getattr(item, "fixturenames", ())))
            or _starts_processes(getattr(item, "module", None))
            or _heavy_fixture(item, tests_dir)
            or item.get_closest_marker("slow") is not None
        )
        if not heavy:
            item.add_marker(pytest.mark.quick)
        if (len(parts) > 2 and parts[1] in _SERIAL_DIRS) or relative.as_posix() in _SERIAL_FILES:
            item.add_marker(pytest.mark.xdist_group(_SERIAL))


# The suite's end-of-run tables (the hostile verdicts, the question bank's guessing
# strategies): tests add lines to ``tests.report``; under pytest-xdist each worker hands its
# lines to the controller, which prints them all once, as a serial run does.
@pytest.hookimpl(trylast=True)  # after the conftests that add lines
def pytest_sessionfinish(session: pytest.Session) -> None:
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput["addnorm_report"] = report.dump()


@pytest.hookimpl(optionalhook=True)  # pytest-xdist's hook: absent under -p no:xdist
def pytest_testnodedown(node: object, error: object) -> None:
    output = getattr(node, "workeroutput", {})
    if "addnorm_report" in output:
        report.load(output["addnorm_report"])


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    for title, lines in report.sections():
        terminalreporter.write_sep("-", title)
        for line in lines:
            terminalreporter.write_line(line)

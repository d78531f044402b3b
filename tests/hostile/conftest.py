"""Fixtures of the hostile suite: a fresh attack context per test, and a table of the verdicts
observed, printed at the end of the run."""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests import report
from tests.hostile.probes import Ctx, Listener
from tests.support import Server

OBSERVED: list[tuple[str, str, str, float]] = []
# Round two: attack, verdict or status, service RSS growth, DB growth (or bytes sent).
FIGURES: list[tuple[str, str, int, int]] = []


def submit_attack(
    api: httpx.Client, path: str, code: str, *, profile: str, name: str, verdicts: set[str]
) -> tuple[httpx.Response, float]:
    """Submit an attack: (the answer, its seconds). A ``timeout`` the attack does not expect is
    tried once more, and the second answer is the one judged.

    The grading deadline is wall-clock. A machine stalled past it (seen once in CI, while Redis
    reads on loopback timed out on the other worker) ends the child before the attack's first
    line runs: the attack was not tried at all. An attack that truly holds the grader to its
    deadline answers ``timeout`` the second time too, and fails."""
    for attempt in (1, 2):
        started = time.monotonic()
        r = api.post(path, json={"code": code})
        elapsed = time.monotonic() - started
        verdict = r.json().get("verdict", "?") if r.status_code == 201 else f"HTTP {r.status_code}"
        OBSERVED.append((profile, name if attempt == 1 else f"{name} (again)", verdict, elapsed))
        if verdict != "timeout" or "timeout" in verdicts:
            break
    return r, elapsed


def make_ctx(server: Server) -> Ctx:
    listener = Listener(Path("/tmp") / f"hx-{secrets.token_hex(6)}.sock")
    ctx = Ctx(server, listener)
    ctx.set_up()
    return ctx


def drop_ctx(ctx: Ctx) -> None:
    ctx.clean_up()
    ctx.listener.close()


@pytest.fixture
def ctx(server: Server) -> Iterator[Ctx]:
    c = make_ctx(server)
    yield c
    drop_ctx(c)


def pytest_sessionfinish(session: pytest.Session) -> None:
    # Printed under the summary by tests/conftest.py (tests/report.py: every xdist worker's rows).
    report.add(
        "round two: service RSS growth and DB growth (or bytes sent)",
        [
            f"{name:55} {verdict:9} RSS +{rss_growth >> 10:7} KiB {other:>12}"
            for name, verdict, rss_growth, other in FIGURES
        ],
    )
    report.add(
        "hostile submissions: verdicts observed",
        [
            f"{profile:9} {name:48} {verdict:9} {seconds:6.2f} s"
            for profile, name, verdict, seconds in OBSERVED
        ],
    )

"""Fixtures of the hostile suite: a fresh attack context per test, and a table of the verdicts
observed, printed at the end of the run."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import report
from tests.hostile.probes import Ctx, Listener
from tests.support import Server

OBSERVED: list[tuple[str, str, str, float]] = []
# Round two: attack, verdict or status, service RSS growth, DB growth (or bytes sent).
FIGURES: list[tuple[str, str, int, int]] = []


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

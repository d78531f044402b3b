"""api.queue.outage: a store that does not answer is two lines in the log, a fault a traceback.

The real failures, from a real Redis and a real PostgreSQL: a port where nothing listens, and a
database that does not exist. (The cut link of tests/deploy/test_multihost.py is the same on a
worker's log, end to end.)"""

from __future__ import annotations

import logging
from collections.abc import Callable

import pytest
import redis
from sqlalchemy import create_engine, text

from api.queue.outage import Outage
from tests.support import free_port


def _unreachable_redis() -> Exception:
    client = redis.Redis(port=free_port(), socket_connect_timeout=1)
    try:
        client.ping()
    except Exception as exc:  # the failure is what the test needs
        return exc
    raise AssertionError("a Redis answered on a free port")


def _missing_database() -> Exception:
    engine = create_engine("postgresql+psycopg://127.0.0.1:5432/addnorm_no_such_database")
    try:
        with engine.connect() as c:
            c.execute(text("SELECT 1"))
    except Exception as exc:
        return exc
    finally:
        engine.dispose()
    raise AssertionError("a database of that name exists")


@pytest.mark.parametrize(
    ("failure", "store"), [(_unreachable_redis, "Redis"), (_missing_database, "the database")]
)
def test_an_outage_is_one_line_when_it_starts_and_one_when_it_ends(
    caplog: pytest.LogCaptureFixture, failure: Callable[[], Exception], store: str
) -> None:
    exc = failure()
    outage = Outage(logging.getLogger("addnorm.test"), "the sweep", 1.0)
    with caplog.at_level(logging.INFO, logger="addnorm.test"):
        for _ in range(5):
            outage.failed(exc)
        outage.ended()
        outage.ended()  # nothing more to say
    lines = [(r.levelname, r.getMessage(), r.exc_info) for r in caplog.records]
    assert len(lines) == 2, lines
    (first_level, first, first_exc), (second_level, second, second_exc) = lines
    assert first_level == second_level == "WARNING" and first_exc is None is second_exc
    assert first.startswith(f"the sweep: {store} does not answer (") and "every 1 s" in first
    assert "\n" not in first
    assert second.startswith("the sweep: answered again after ")


def test_any_other_failure_is_a_traceback_every_time(caplog: pytest.LogCaptureFixture) -> None:
    outage = Outage(logging.getLogger("addnorm.test"), "the sweep", 1.0)
    with caplog.at_level(logging.INFO, logger="addnorm.test"):
        rows: dict[str, int] = {}
        for _ in range(3):
            try:
                rows["missing"]  # a fault of the sweep's own
            except KeyError as exc:
                outage.failed(exc)
        outage.ended()  # it was never an outage
    assert [r.levelname for r in caplog.records] == ["ERROR"] * 3
    assert all(r.exc_info and r.exc_info[0] is KeyError for r in caplog.records)
    assert caplog.records[0].getMessage() == "the sweep failed; trying again in 1 s"

"""Queue-mode fixtures: a PostgreSQL database and a Redis key prefix of this session's own."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.services import SYSTEM_REDIS, postgres_database, redis_prefix


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    with postgres_database() as url:
        yield url


@pytest.fixture(scope="session")
def prefix() -> Iterator[str]:
    with redis_prefix() as p:
        yield p


def queue_settings(database_url: str, broker_url: str, prefix: str) -> dict[str, str]:
    """Queue mode with deadlines short enough for a test to watch recovery happen: a job lasts
    at most 2 + 1 s, the sweeper re-sends after 6 s, Redis redelivers after 10 s."""
    return {
        "ADDNORM_DATABASE_URL": database_url,
        "ADDNORM_BROKER_URL": broker_url,
        "ADDNORM_REDIS_PREFIX": prefix,
        "ADDNORM_TIME_LIMIT_SECONDS": "2",
        "ADDNORM_QUEUE_TIMEOUT_SECONDS": "1",
        "ADDNORM_VISIBILITY_TIMEOUT_SECONDS": "10",
        "ADDNORM_SWEEP_AFTER_SECONDS": "6",
        "ADDNORM_SWEEP_INTERVAL_SECONDS": "1",
        "ADDNORM_SUBMISSIONS_PER_MINUTE": "1000",
        "ADDNORM_MAX_CONCURRENT_GRADINGS": "20",
    }


@pytest.fixture(scope="session")
def queue_env(pg_url: str, prefix: str) -> dict[str, str]:
    return queue_settings(pg_url, SYSTEM_REDIS, prefix)

"""How a loop that retries logs its failures, so that a cluster's ordinary outages read as
such in the logs and faults still stand out."""

from __future__ import annotations

import logging
import time

import redis
from sqlalchemy.exc import OperationalError


class Outage:
    """How a loop that retries logs its failures. Redis or the database not answering (a host
    cut off, a restart: part of a cluster's life) is one warning when it starts and one when it
    ends, where a worker cut off for an hour used to write a traceback every interval; anything
    else is a traceback each time, as a fault should be."""

    def __init__(self, logger: logging.Logger, what: str, every: float) -> None:
        self.log = logger
        self.what = what
        self.every = every
        self.since: float | None = None

    def failed(self, exc: BaseException) -> None:
        store = _store_of(exc)
        if store is None:
            self.log.error("%s failed; trying again in %g s", self.what, self.every, exc_info=exc)
            return
        if self.since is None:
            self.since = time.monotonic()
            reason = " ".join(str(exc).split())[:300]
            self.log.warning(
                "%s: %s does not answer (%s: %s); trying again every %g s",
                self.what,
                store,
                type(exc).__name__,
                reason,
                self.every,
            )

    def ended(self) -> None:
        if self.since is not None:
            self.log.warning(
                "%s: answered again after %.0f s", self.what, time.monotonic() - self.since
            )
            self.since = None


def _store_of(exc: BaseException) -> str | None:
    """Which store ``exc`` says is unreachable, or None when it is another kind of failure."""
    if isinstance(exc, redis.exceptions.ConnectionError | redis.exceptions.TimeoutError):
        return "Redis"
    if isinstance(exc, OperationalError):
        return "the database"
    return None

"""'Your verdict is stored': a Redis pub/sub notice from the worker to the API process that
waits for it. Only a wake-up call: the verdict itself is read from the database, so a lost
notice costs the learner a 202 and a poll, never a verdict."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import redis

log = logging.getLogger("addnorm.notices")


class VerdictNotices:
    def __init__(self, client: redis.Redis, *, prefix: str) -> None:
        self.client = client
        self.prefix = prefix

    def channel(self, submission_id: int) -> str:
        return f"{self.prefix}verdict:{submission_id}"

    def publish(self, submission_id: int) -> None:
        try:
            self.client.publish(self.channel(submission_id), "stored")
        except redis.RedisError as exc:
            log.warning("could not announce verdict %s: %s", submission_id, exc)

    @contextmanager
    def awaiting(self, submission_id: int) -> Iterator[Callable[[float], bool]]:
        """Subscribe before the task is sent (a verdict faster than the subscription would be
        missed otherwise); yields ``wait(seconds) -> bool`` (True when the notice came)."""
        pubsub = self.client.pubsub(ignore_subscribe_messages=True)
        try:
            pubsub.subscribe(self.channel(submission_id))
        except redis.RedisError as exc:
            log.warning("cannot wait for verdict %s: %s", submission_id, exc)
            pubsub.close()
            yield lambda _seconds: False
            return

        def wait(seconds: float) -> bool:
            deadline = time.monotonic() + seconds
            try:
                while (left := deadline - time.monotonic()) > 0:
                    if pubsub.get_message(timeout=left) is not None:
                        return True
            except redis.RedisError as exc:
                log.warning("lost the wait for verdict %s: %s", submission_id, exc)
            return False

        try:
            yield wait
        finally:
            pubsub.close()

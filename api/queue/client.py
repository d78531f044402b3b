"""The API's side of queue mode: send a stored submission to the workers, wait for its notice."""

from __future__ import annotations

import logging
import time

import redis

from api.config import Settings
from api.queue.celery_app import GRADE_TASK, make_celery
from api.queue.fair import FairQueue, fair_queue
from api.queue.notices import VerdictNotices

log = logging.getLogger("addnorm.queue")


class GradingQueue:
    def __init__(self, settings: Settings) -> None:
        url = settings.shared_redis_url
        assert url is not None
        self.celery = make_celery(settings)
        self.redis = redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=2)
        self.notices = VerdictNotices(self.redis, prefix=settings.redis_prefix)
        self.verdict_wait = settings.verdict_wait_seconds
        self.prefix = settings.redis_prefix
        self.sweep_interval = settings.sweep_interval_seconds
        self.fair: FairQueue = fair_queue(self.redis, settings)

    def reserve(self, address: str) -> str | None:
        """A place in line for one more job of ``address``: its token, ``""`` when Redis cannot
        be reached (the job then goes straight to Celery), None when the address has its
        ``gradings_per_address`` jobs pending or running already."""
        try:
            return self.fair.reserve(address)
        except redis.RedisError as exc:
            log.warning("fair turns unavailable, sending in arrival order: %s", exc)
            return ""

    def unreserve(self, address: str, token: str) -> None:
        if token:
            try:
                self.fair.unreserve(address, token)
            except redis.RedisError as exc:
                log.warning("could not give back a place in line (it lapses): %s", exc)

    def submit(self, submission_id: int, *, address: str, user_id: int, token: str) -> list[int]:
        """Put a stored job in line and send what has a slot now (this job, if one is free for
        it; otherwise a worker sends it when one is). The ids sent, to mark as sent."""
        if token:
            try:
                due = self.fair.enqueue(
                    submission_id, address=address, user_id=user_id, token=token
                )
            except redis.RedisError as exc:
                log.warning("fair turns unavailable, sending in arrival order: %s", exc)
            else:
                return [s for s in due if self.send(s)]
        return [submission_id] if self.send(submission_id) else []

    def send(self, submission_id: int) -> bool:
        """Enqueue; False when the broker cannot be reached (the row stays `queued` and the
        sweeper re-sends it later, so the learner is not told to resubmit)."""
        try:
            self.celery.send_task(GRADE_TASK, args=[submission_id])
        except Exception as exc:
            log.warning(
                "could not enqueue submission %s (the sweeper will): %s", submission_id, exc
            )
            return False
        return True

    def live_workers(self) -> int | None:
        """Workers that announced themselves within three sweep intervals (None: Redis is
        unreachable)."""
        try:
            return int(
                self.redis.zcount(
                    f"{self.prefix}workers", time.time() - 3 * self.sweep_interval, "+inf"
                )
            )
        except redis.RedisError:
            return None

    def turns(self) -> dict[str, int] | None:
        """The fair turns' slots, running and pending jobs (None: Redis is unreachable)."""
        try:
            return self.fair.status()
        except redis.RedisError:
            return None

    def ping(self) -> bool:
        try:
            return bool(self.redis.ping())
        except redis.RedisError:
            return False

    def close(self) -> None:
        self.redis.close()
        self.celery.close()

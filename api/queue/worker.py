"""``addnorm worker``: a Celery worker that owns one warm grader pool.

Celery's threads pool, not prefork: the grader's zygote already forks a locked-down child per
submission, and forking a process that imported torch is what the zygote exists to avoid. Each
thread takes one task at a time (prefetch 1) and grades it through the same service function
the embedded API uses. A sweeper thread re-sends rows nobody is working on.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import redis
import torch
from celery import Celery
from sqlalchemy import Engine
from sqlmodel import Session

from api import db
from api.config import Settings
from api.content.catalog import Exercise, load_catalog
from api.grading import longlived
from api.grading.grader import Grader
from api.grading.pool import GradingLost, PoolBusy
from api.grading.startup import pool_for
from api.learning import submissions
from api.learning.submitting import grade_stored
from api.models import Submission
from api.queue.celery_app import GRADE_TASK, QUEUE, make_celery
from api.queue.fair import FairQueue, fair_queue
from api.queue.notices import VerdictNotices
from api.queue.outage import Outage
from api.queue.sweeper import Policy, sweep

log = logging.getLogger("addnorm.worker")

# Touched every sweep interval in the data directory: a stale file means a stuck worker.
HEARTBEAT = "worker-heartbeat"


@dataclass
class WorkerContext:
    settings: Settings
    engine: Engine
    catalog: dict[str, Exercise]
    grader: Grader
    notices: VerdictNotices
    redis: redis.Redis
    fair: FairQueue


def sweep_policy(settings: Settings) -> Policy:
    return Policy(
        stale_after=timedelta(seconds=settings.sweep_after_seconds),
        give_up_after=timedelta(seconds=settings.give_up_after_seconds),
        max_attempts=settings.max_attempts,
    )


def grade_task(ctx: WorkerContext, task: Any, submission_id: int) -> str:
    """The task body: grade, store once, announce. Acked (late) only when it returns."""
    # Names the submission (Celery's own lines name only the task): which host graded what.
    log.info("grading submission %s", submission_id)
    try:
        row = grade_stored(
            ctx.engine, submission_id=submission_id, catalog=ctx.catalog, grader=ctx.grader
        )
    except (GradingLost, PoolBusy) as exc:
        # The pool restarts itself; the row stays `grading` and counts the attempt.
        with Session(ctx.engine) as session:
            stored = session.get(Submission, submission_id)
            tries = stored.attempts if stored is not None else ctx.settings.max_attempts
        if tries < ctx.settings.max_attempts:
            log.warning("submission %s: %s; trying again", submission_id, exc)
            raise task.retry(countdown=1, max_retries=None) from exc
        with Session(ctx.engine, expire_on_commit=False) as session:
            row = submissions.close(
                session,
                submission_id=submission_id,
                reason=f"not graded: {exc} ({tries} tries); please resubmit",
            )
    # The job is over: its slot goes to the next job in fair turn (api.queue.fair).
    send_due(ctx, task.app, release=submission_id)
    if row is None:
        return "already recorded"
    ctx.notices.publish(submission_id)
    return row.state


def send_due(ctx: WorkerContext, app: Celery, *, release: int | None = None) -> None:
    """Free ``release``'s slot (if given) and send to Celery every pending job that has a
    slot now. Without Redis nothing is sent here: the rows stay `queued` for the sweeper."""
    try:
        due = ctx.fair.dispatch() if release is None else ctx.fair.release(release)
    except redis.RedisError as exc:
        log.warning("fair turns unavailable (the sweeper re-sends what waits): %s", exc)
        return
    for submission_id in due:
        try:
            app.send_task(GRADE_TASK, args=[submission_id])
        except Exception as exc:
            log.warning("could not send submission %s (the sweeper will): %s", submission_id, exc)
            continue
        with Session(ctx.engine) as session:
            submissions.mark_sent(session, submission_id=submission_id)


def register(app: Celery, ctx: WorkerContext) -> None:
    def grade_submission(task: Any, submission_id: int) -> str:
        return grade_task(ctx, task, int(submission_id))

    app.task(name=GRADE_TASK, bind=True, acks_late=True, reject_on_worker_lost=True)(
        grade_submission
    )


class Sweeper(threading.Thread):
    """Every interval, one worker of the cluster (a Redis lock decides which) re-sends rows
    stuck without a verdict and closes those past hope."""

    def __init__(self, ctx: WorkerContext, app: Celery, *, node: str) -> None:
        super().__init__(name="addnorm-sweeper", daemon=True)
        self.ctx = ctx
        self.app = app
        self.node = node
        self.stopped = threading.Event()

    def announce(self) -> None:
        """Say 'alive' where the API's /health counts live workers (a sorted set by time)."""
        key = f"{self.ctx.settings.redis_prefix}workers"
        now = time.time()
        self.ctx.redis.zadd(key, {self.node: now})
        self.ctx.redis.zremrangebyscore(
            key, "-inf", now - 10 * self.ctx.settings.sweep_interval_seconds
        )
        self.ctx.fair.announce(self.node, self.slots)

    @property
    def slots(self) -> int:
        """Jobs this worker grades at once: its threads, at most its grader's slots."""
        s = self.ctx.settings
        return min(s.worker_concurrency or s.grader_slots, s.grader_slots)

    def regrade(self, submission_id: int) -> None:
        if self.ctx.fair.is_pending(submission_id):
            return  # waiting for its fair turn, not lost: a release sends it
        self.app.send_task(GRADE_TASK, args=[submission_id])
        with Session(self.ctx.engine) as session:
            submissions.mark_sent(session, submission_id=submission_id)

    def sweep_once(self) -> None:
        interval = self.ctx.settings.sweep_interval_seconds
        lock = f"{self.ctx.settings.redis_prefix}sweeper"
        if not self.ctx.redis.set(lock, "1", nx=True, px=max(1, int(interval * 900))):
            return  # another worker swept within this interval
        sweep(
            self.ctx.engine,
            now=datetime.now(UTC),
            policy=sweep_policy(self.ctx.settings),
            regrade=self.regrade,
        )

    def run(self) -> None:
        heartbeat = self.ctx.settings.data_dir / HEARTBEAT
        every = self.ctx.settings.sweep_interval_seconds
        outage = Outage(log, "the sweep", every)
        try:
            # Counted in the cluster's capacity from the start, not one interval later.
            self.announce()
            send_due(self.ctx, self.app)
        except Exception as exc:
            outage.failed(exc)
        while not self.stopped.wait(every):
            try:
                # The container health check reads this file's age (docker-compose.cluster.yml).
                heartbeat.touch()
                self.announce()
                # Slots whose leases lapsed, or of workers that joined, go to pending jobs.
                send_due(self.ctx, self.app)
                self.sweep_once()
            except Exception as exc:
                outage.failed(exc)
            else:
                outage.ended()


def build_worker_context(settings: Settings) -> WorkerContext:
    torch.set_num_threads(1)
    catalog = load_catalog(settings.content_dir)
    engine = db.make_engine(settings.sqlalchemy_url)
    db.migrate(engine)
    pool = pool_for(settings, catalog)
    pool.start()
    grader = Grader(pool, time_limit=settings.time_limit_seconds)
    grader.warm_up([e.spec for e in catalog.values()])
    longlived.settle()  # what warming up loaded lives as long as the worker
    url = settings.shared_redis_url
    assert url is not None
    client = redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=2)
    notices = VerdictNotices(client, prefix=settings.redis_prefix)
    return WorkerContext(
        settings, engine, catalog, grader, notices, client, fair_queue(client, settings)
    )


def run_worker(settings: Settings) -> int:
    """Run until SIGTERM (warm shutdown: the running tasks finish) or SIGINT."""
    app = make_celery(settings)
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    ctx = build_worker_context(settings)
    register(app, ctx)
    # One node name per process: several workers may run on one host.
    node = f"addnorm-{os.getpid()}@{socket.gethostname()}"
    sweeper = Sweeper(ctx, app, node=node)
    sweeper.start()
    concurrency = settings.worker_concurrency or settings.grader_slots
    log.info(
        "worker: %s threads, grader pool of %s slots, sandbox %s",
        concurrency,
        settings.grader_slots,
        settings.sandbox,
    )
    try:
        worker = app.Worker(
            pool="threads",
            concurrency=concurrency,
            queues=[QUEUE],
            without_gossip=True,
            without_mingle=True,
            without_heartbeat=True,
            loglevel="INFO",
            hostname=node,
        )
        worker.start()
        return int(worker.exitcode or 0)
    finally:
        sweeper.stopped.set()
        with contextlib.suppress(redis.RedisError):
            ctx.redis.zrem(f"{settings.redis_prefix}workers", node)
            ctx.fair.withdraw(node)
        ctx.grader.pool.close()
        ctx.redis.close()
        ctx.engine.dispose()

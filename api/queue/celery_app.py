"""The Celery app both sides share: the API sends with it, ``addnorm worker`` consumes.

Settings chosen so a learner's submission survives the loss of any one process:
late acknowledgement (a task is acked after its verdict is stored, not when it is received),
rejection on worker loss, prefetch 1 (a dying worker holds at most one task per thread), and a
visibility timeout above the longest job (Redis hands an unacked task to another worker after
it). The verdict write is idempotent (``api.learning.submissions.finish``), so a redelivery is
harmless.
"""

from __future__ import annotations

from celery import Celery

from api.config import Settings

GRADE_TASK = "addnorm.grade_submission"
QUEUE = "grading"


def make_celery(settings: Settings) -> Celery:
    if settings.broker_url is None:
        raise ValueError("queue mode needs ADDNORM_BROKER_URL (a redis:// URL)")
    app = Celery("addnorm", broker=settings.broker_url, set_as_current=False)
    app.conf.update(
        task_default_queue=QUEUE,
        task_serializer="json",
        accept_content=["json"],
        # Verdicts go to the database, notices through Redis pub/sub: no result backend.
        task_ignore_result=True,
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        broker_transport_options={
            "visibility_timeout": settings.visibility_timeout_seconds,
            # Every key (queues, unacked set) under the deployment's prefix: several
            # deployments, or test sessions, can share one Redis.
            "global_keyprefix": settings.redis_prefix,
        },
        broker_connection_retry_on_startup=True,
        # A send that cannot reach Redis gives up within about two seconds: the row is already
        # stored `queued`, and the sweeper re-sends it once Redis is back.
        task_publish_retry_policy={
            "max_retries": 3,
            "interval_start": 0,
            "interval_step": 0.5,
            "interval_max": 1,
        },
        worker_hijack_root_logger=False,
        worker_send_task_events=False,
        enable_utc=True,
    )
    return app

"""Queue mode and recovery: the Celery app and task, the worker, the sweeper that re-sends what
was lost, and the embedded service's start-up recovery. See docs/operations.md, "Queue mode".

May import: ``api.learning`` (the one service function that grades a stored submission),
``api.content``, ``api.grading`` and the bottom (``api.config``, ``api.models``, ``api.db``).
Never ``api.http`` or ``api.web``, which import it to send work.
"""

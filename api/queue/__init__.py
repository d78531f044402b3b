"""Queue mode and recovery: the Celery app and task, the worker, the sweeper that re-sends what
was lost, and the embedded service's start-up recovery. See docs/operations.md, "Queue mode"."""

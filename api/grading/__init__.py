"""Grading: code in, verdict out. The pool and the zygote (warm torch, forked slots), the
sandbox, the harness that runs an exercise's scenario in the child, the spec contract and its
drawing helpers, and, in the trusted parent, the verdict and the diagnosis of a known mistake.
The API, a queue worker, the CLI and the tests all call it the same way (``grader.grade``).

May import: nothing of the app but the ``api`` package itself; never FastAPI, Starlette,
SQLModel, SQLAlchemy, Alembic, Celery or Redis, nor ``api.db``/``api.models``
(tests/test_layers.py holds it to that).
"""

"""Grading: code in, verdict out. The pool and the zygote (warm torch, forked slots), the
sandbox, the harness that runs an exercise's scenario in the child, the spec contract and its
drawing helpers, and, in the trusted parent, the verdict and the diagnosis of a known mistake.
The API and a queue worker record ``Grader.grade_for_record`` (the verdict as a submission keeps
it, ``stored``); the CLI and the tests read the whole verdict, ``Grader.grade``.

May import: nothing of the app but the ``api`` package itself; never FastAPI, Starlette,
SQLModel, SQLAlchemy, Alembic, Celery or Redis, nor ``api.db``/``api.models``
(tests/test_layers.py holds it to that).
"""

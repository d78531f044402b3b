"""Migration 0004_learner_lang on SQLite and on PostgreSQL: existing learners read English, the
column goes down and comes up again, and the models match the migrated schema."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import Engine, create_engine, inspect, text
from sqlmodel import SQLModel

import api.models  # noqa: F401  (the tables SQLModel.metadata compares against)
from api import db
from tests.services import postgres_database


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    if request.param == "sqlite":
        eng = create_engine(f"sqlite:///{tmp_path / 'migrate.db'}")
        yield eng
        eng.dispose()
    else:
        with postgres_database() as url:
            eng = create_engine(url)
            yield eng
            eng.dispose()


def _migrate(engine: Engine, revision: str, *, down: bool = False) -> None:
    db.migrate(engine, revision, down=down)


def _user_columns(engine: Engine) -> set[str]:
    return {c["name"] for c in inspect(engine).get_columns("user")}


def test_existing_learners_read_english_and_the_column_goes_down_and_up(engine: Engine) -> None:
    _migrate(engine, "0003_queue")
    assert "lang" not in _user_columns(engine)
    with engine.begin() as conn:
        conn.execute(
            text(
                'INSERT INTO "user" (name, token_hash, created_at) '
                "VALUES ('before', 'h0', CURRENT_TIMESTAMP)"
            )
        )
    _migrate(engine, "head")
    assert "lang" in _user_columns(engine)
    with engine.begin() as conn:
        assert conn.execute(text('SELECT lang FROM "user"')).scalar_one() == "en"
        conn.execute(text("UPDATE \"user\" SET lang = 'zh'"))
    with engine.connect() as conn:
        drift = compare_metadata(MigrationContext.configure(conn), SQLModel.metadata)
    # Only user.lang is this migration's (PostgreSQL reports unrelated timestamp types).
    assert [d for d in drift if "'lang'" in repr(d)] == []
    lang = next(c for c in inspect(engine).get_columns("user") if c["name"] == "lang")
    assert lang["nullable"] is False and "en" in str(lang["default"])
    _migrate(engine, "0003_queue", down=True)
    assert "lang" not in _user_columns(engine)
    _migrate(engine, "head")
    with engine.connect() as conn:
        assert conn.execute(text('SELECT name, lang FROM "user"')).one() == ("before", "en")

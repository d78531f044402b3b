"""Migration 0011_ids_never_reused on SQLite: every table rebuilt with AUTOINCREMENT, with every
row, index and reference as it was; all of it or none of it; and the engine handed back to the
app with its foreign keys on. (On PostgreSQL it is a no-op: tests/api/test_learner_lang_migration.py
migrates PostgreSQL through it to head.)"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlalchemy.exc import IntegrityError

from api import db

BEFORE = "0010_interview_plan"
NOW = "2026-12-04 12:00:00"


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    eng = db.make_engine(f"sqlite:///{tmp_path / 'addnorm.db'}")
    yield eng
    eng.dispose()


def _fill(engine: Engine) -> None:
    """Three learners with a row in every table; the newest (3) has the highest id in each."""
    with engine.begin() as c:
        for u in (1, 2, 3):
            c.exec_driver_sql(
                'INSERT INTO "user" (id, name, token_hash, created_at) VALUES (?, ?, ?, ?)',
                (u, f"learner {u}", f"hash {u}", NOW),
            )
            c.exec_driver_sql(
                "INSERT INTO submission (id, user_id, exercise, code, state, message, result,"
                " created_at) VALUES (?, ?, 'layer_norm', 'x = 1', 'done', '', '{}', ?)",
                (10 + u, u, NOW),
            )
            c.exec_driver_sql(
                "INSERT INTO questionanswer (id, user_id, question_id, topic, answer, correct,"
                " created_at) VALUES (?, ?, 'q', 'ffn', '1', 1, ?)",
                (20 + u, u, NOW),
            )
            c.exec_driver_sql(
                "INSERT INTO reviewcard (id, user_id, kind, item_id, topic, card, due, updated_at)"
                " VALUES (?, ?, 'question', 'q', 'ffn', '{}', ?, ?)",
                (30 + u, u, NOW, NOW),
            )
            c.exec_driver_sql(
                "INSERT INTO interview (id, user_id, lang, minutes, topics, items, focus_topics,"
                " mastery_before, state, started_at, deadline) VALUES"
                " (?, ?, 'en', 30, '[]', '[]', '[]', '{}', 'running', ?, ?)",
                (40 + u, u, NOW, NOW),
            )
            c.exec_driver_sql(
                "INSERT INTO interviewattempt (id, interview_id, position, kind, item_id, at,"
                " submission_id) VALUES (?, ?, 1, 'exercise', 'layer_norm', ?, ?)",
                (50 + u, 40 + u, NOW, 10 + u),
            )
            c.exec_driver_sql(
                "INSERT INTO interviewevent (id, interview_id, position, event, at)"
                " VALUES (?, ?, 1, 'open', ?)",
                (60 + u, 40 + u, NOW),
            )
            c.exec_driver_sql(
                "INSERT INTO helpuse (id, user_id, exercise, kind, rung, at)"
                " VALUES (?, ?, 'layer_norm', 'hint', 1, ?)",
                (70 + u, u, NOW),
            )
            c.exec_driver_sql(
                "INSERT INTO draft (id, user_id, exercise, code, updated_at)"
                " VALUES (?, ?, 'layer_norm', 'y = 2', ?)",
                (80 + u, u, NOW),
            )
            c.exec_driver_sql(
                "INSERT INTO browsersession (id, id_hash, user_id, csrf_secret, created_at,"
                " expires_at) VALUES (?, ?, ?, 's', ?, ?)",
                (90 + u, f"session {u}", u, NOW, NOW),
            )
            c.exec_driver_sql(
                "INSERT INTO invite (id, code_hash, uses, expires_at, created_at)"
                " VALUES (?, ?, 1, ?, ?)",
                (100 + u, f"code {u}", NOW, NOW),
            )


def _tables(engine: Engine) -> list[str]:
    with engine.connect() as c:
        return [
            row[0]
            for row in c.exec_driver_sql(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
                " AND name != 'alembic_version' ORDER BY name"
            )
        ]


def _snapshot(engine: Engine) -> dict[str, object]:
    """Every row of every table, every index's statement, and each table's columns and
    references, as SQLite reports them."""
    with engine.connect() as c:
        shot: dict[str, object] = {}
        for table in _tables(engine):
            shot[f"rows {table}"] = c.exec_driver_sql(f'SELECT * FROM "{table}" ORDER BY id').all()
            shot[f"columns {table}"] = c.exec_driver_sql(f'PRAGMA table_xinfo("{table}")').all()
            shot[f"references {table}"] = c.exec_driver_sql(
                f'PRAGMA foreign_key_list("{table}")'
            ).all()
        shot["indexes"] = c.exec_driver_sql(
            "SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'index' ORDER BY name"
        ).all()
        return shot


def _version(engine: Engine) -> str:
    with engine.connect() as c:
        return str(c.exec_driver_sql("SELECT version_num FROM alembic_version").scalar_one())


def test_every_table_keeps_its_rows_and_ids_only_rise(engine: Engine) -> None:
    db.migrate(engine, BEFORE)
    _fill(engine)
    before = _snapshot(engine)
    db.migrate(engine)
    assert _version(engine) == "0011_ids_never_reused"
    assert _snapshot(engine) == before
    with engine.connect() as c:
        autoincrement = c.exec_driver_sql(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE '%AUTOINCREMENT%'"
        ).all()
        assert sorted(r[0] for r in autoincrement) == _tables(engine)
        assert c.exec_driver_sql("PRAGMA integrity_check").scalar_one() == "ok"
        assert c.exec_driver_sql("PRAGMA foreign_key_check").all() == []
        # The partial index still allows one running interview a learner.
        with pytest.raises(IntegrityError):
            c.exec_driver_sql(
                "INSERT INTO interview (user_id, lang, minutes, topics, items, focus_topics,"
                " mastery_before, state, started_at, deadline) VALUES"
                " (1, 'en', 30, '[]', '[]', '[]', '{}', 'running', ?, ?)",
                (NOW, NOW),
            )
    # The newest learner goes, with their rows: the next ones get ids above theirs.
    with engine.begin() as c:
        for table in ("interviewattempt", "interviewevent"):
            c.exec_driver_sql(f"DELETE FROM {table} WHERE interview_id = 43")
        for table in ("submission", "questionanswer", "reviewcard", "interview", "helpuse"):
            c.exec_driver_sql(f"DELETE FROM {table} WHERE user_id = 3")
        for table in ("draft", "browsersession"):
            c.exec_driver_sql(f"DELETE FROM {table} WHERE user_id = 3")
        c.exec_driver_sql('DELETE FROM "user" WHERE id = 3')
        c.exec_driver_sql("DELETE FROM invite WHERE id = 103")
        new_user = c.exec_driver_sql(
            "INSERT INTO \"user\" (name, token_hash, created_at) VALUES ('next', 'h', ?)", (NOW,)
        ).lastrowid
        new_submission = c.exec_driver_sql(
            "INSERT INTO submission (user_id, exercise, code, state, message, result, created_at)"
            " VALUES (?, 'layer_norm', '', 'done', '', '{}', ?)",
            (new_user, NOW),
        ).lastrowid
        new_invite = c.exec_driver_sql(
            "INSERT INTO invite (code_hash, uses, expires_at, created_at) VALUES ('next', 1, ?, ?)",
            (NOW, NOW),
        ).lastrowid
    assert (new_user, new_submission, new_invite) == (4, 14, 104)


def test_the_engine_enforces_foreign_keys_after_migrating(engine: Engine) -> None:
    """The migration switches foreign keys off on its connection: the pool gets it back on."""
    db.migrate(engine)
    for _ in range(3):  # whichever pooled connection comes next
        with engine.begin() as c:
            assert c.exec_driver_sql("PRAGMA foreign_keys").scalar_one() == 1
            with pytest.raises(IntegrityError):
                c.exec_driver_sql(
                    "INSERT INTO draft (user_id, exercise, code, updated_at)"
                    " VALUES (999, 'layer_norm', '', ?)",
                    (NOW,),
                )


def test_a_schema_it_does_not_know_stops_it_and_nothing_is_half_done(
    engine: Engine, tmp_path: Path
) -> None:
    """A table 0011 cannot read (here, the last it rebuilds, changed by hand) fails the start-up;
    the tables rebuilt before it are rolled back with the rest, so the database is exactly as it
    was, and the next start tries again."""
    db.migrate(engine, BEFORE)
    _fill(engine)
    engine.dispose()
    raw = sqlite3.connect(tmp_path / "addnorm.db")
    raw.executescript(
        "DROP INDEX ix_browsersession_id_hash; DROP INDEX ix_browsersession_user_id;"
        " ALTER TABLE browsersession RENAME TO old_session;"
        " CREATE TABLE browsersession (id BIGINT PRIMARY KEY, id_hash TEXT, user_id INTEGER,"
        " csrf_secret TEXT, created_at TEXT, expires_at TEXT, ended_at TEXT);"
        " INSERT INTO browsersession SELECT * FROM old_session; DROP TABLE old_session;"
    )
    raw.close()
    before = _snapshot(engine)
    with pytest.raises(RuntimeError, match="browsersession"):
        db.migrate(engine)
    assert _version(engine) == BEFORE
    assert _snapshot(engine) == before
    with engine.connect() as c:
        rebuilt = c.exec_driver_sql(
            "SELECT name FROM sqlite_master"
            " WHERE sql LIKE '%AUTOINCREMENT%' OR name = 'sqlite_sequence'"
        ).all()
    assert rebuilt == []

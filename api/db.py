"""The engine, sessions, and migrations to head at start-up. SQLite in WAL mode by default;
PostgreSQL (``postgresql+psycopg://``) when ADDNORM_DATABASE_URL names it."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, Engine, event, text
from sqlmodel import Session, create_engine

from api import jsonbody

MIGRATIONS = Path(__file__).resolve().parent / "migrations"

# Any constant: every API and worker process that starts at once migrates under this lock.
_MIGRATION_LOCK = 0x616464_6E6F726D


# A stored verdict is tens of KiB of JSON, written and read back on every submission: see
# api.jsonbody for why orjson.
_JSON_COLUMNS: dict[str, Any] = {
    "json_serializer": jsonbody.dumps_text,
    "json_deserializer": jsonbody.loads,
}


def make_engine(url: str) -> Engine:
    if url.startswith("sqlite:///"):
        Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(
            url, connect_args={"check_same_thread": False, "timeout": 30}, **_JSON_COLUMNS
        )

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
            cur = dbapi_connection.cursor()
            # WAL: readers never block the writer, and a crash mid-write loses nothing committed.
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute("PRAGMA busy_timeout=30000")
            cur.close()

        return engine
    if url.startswith("postgresql"):
        # Columns are naive timestamps holding UTC (as on SQLite): pin the session's time zone so
        # an aware datetime is stored as UTC whatever the server's default zone is.
        return create_engine(
            url,
            pool_pre_ping=True,
            pool_size=10,
            max_overflow=20,
            connect_args={"options": "-c timezone=UTC"},
            **_JSON_COLUMNS,
        )
    return create_engine(url, pool_pre_ping=True, **_JSON_COLUMNS)


def migrate(engine: Engine, revision: str = "head", *, down: bool = False) -> None:
    """Upgrade (or, for tests, ``down``-grade) the database to ``revision``, in one transaction."""
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    with engine.connect() as connection:
        sqlite = connection.dialect.name == "sqlite"
        with _sqlite_migration_mode(connection) if sqlite else nullcontext(), connection.begin():
            if sqlite:
                # pysqlite opens a transaction only before a write, so a migration's first
                # CREATE TABLE would commit by itself; this makes the whole migration one unit.
                connection.exec_driver_sql("BEGIN IMMEDIATE")
            if connection.dialect.name == "postgresql":
                # N replicas start together: one migrates, the others wait and then find it done.
                connection.execute(
                    text("SELECT pg_advisory_xact_lock(:key)"), {"key": _MIGRATION_LOCK}
                )
            cfg.attributes["connection"] = connection
            (command.downgrade if down else command.upgrade)(cfg, revision)
            if sqlite:
                _require_foreign_keys_hold(connection)


@contextmanager
def _sqlite_migration_mode(connection: Connection) -> Iterator[None]:
    """Foreign keys off and transactions begun by hand while migrating; as they were after.

    A revision that rebuilds a table drops the old one, which foreign keys would refuse (or
    empty the tables that refer to it); SQLite lets them be switched only outside a transaction.
    """
    raw = connection.connection.driver_connection
    assert isinstance(raw, sqlite3.Connection)
    saved = raw.isolation_level
    raw.isolation_level = None
    connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
    connection.commit()
    try:
        yield
    finally:
        raw.isolation_level = saved
        connection.exec_driver_sql("PRAGMA foreign_keys=ON")
        connection.commit()


def _require_foreign_keys_hold(connection: Connection) -> None:
    broken = connection.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
    if broken:
        # Raised inside the transaction: the migration is rolled back, nothing half-done stays.
        raise RuntimeError(f"migration left rows that refer to nothing: {broken[:5]}")


def sessions(engine: Engine) -> Iterator[Session]:
    with Session(engine) as session:
        yield session

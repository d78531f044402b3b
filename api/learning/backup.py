"""Backup and restore of the SQLite database while the service runs.

SQLite's online backup API (``sqlite3.Connection.backup``) copies a consistent snapshot page by
page under the database's own locks, so the service keeps answering: a plain file copy of a WAL
database taken mid-write can miss the commits still in the ``-wal`` file, or tear a page.
Restore runs the same API the other way, into the live database, after checking the backup is an
addnorm database that SQLite finds intact. PostgreSQL has its own tools (pg_dump, pg_restore):
see docs/operators.md.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

# Pages copied per step: small steps let the service's writers in between them.
PAGES_PER_STEP = 256


class BackupError(Exception):
    """A backup or restore that cannot be done; the message says why, for the operator."""


def sqlite_path(url: str) -> Path:
    if not url.startswith("sqlite:///"):
        raise BackupError(
            "addnorm admin backup/restore handle SQLite only; for PostgreSQL use pg_dump and "
            "pg_restore (docs/operators.md)"
        )
    return Path(url.removeprefix("sqlite:///"))


def _check(connection: sqlite3.Connection, what: str) -> None:
    try:
        ok = connection.execute("PRAGMA integrity_check").fetchone()
        tables = {r[0] for r in connection.execute("SELECT name FROM sqlite_master")}
    except sqlite3.DatabaseError as exc:
        raise BackupError(f"{what} is not a SQLite database: {exc}") from None
    if not ok or ok[0] != "ok":
        raise BackupError(f"{what} is damaged: {ok[0] if ok else 'no answer'}")
    if not {"alembic_version", "user", "submission"} <= tables:
        raise BackupError(f"{what} is not an addnorm database (no user/submission tables)")


def backup(url: str, destination: Path) -> int:
    """Copy the live database to ``destination`` (a new file); returns its size in bytes."""
    source_path = sqlite_path(url)
    if not source_path.exists():
        raise BackupError(f"no database at {source_path}")
    if destination.exists():
        raise BackupError(f"{destination} exists already: choose a new file")
    destination.parent.mkdir(parents=True, exist_ok=True)
    source = sqlite3.connect(source_path, timeout=30)
    target = sqlite3.connect(destination)
    try:
        source.backup(target, pages=PAGES_PER_STEP)
        _check(target, str(destination))
    finally:
        target.close()
        source.close()
    return destination.stat().st_size


def restore(url: str, source_file: Path) -> None:
    """Replace the database's content with the backup's (the service may be running: its next
    read sees the restored data). Migrations to head run afterwards (api.db.migrate)."""
    target_path = sqlite_path(url)
    if not source_file.is_file():
        raise BackupError(f"no backup at {source_file}")
    source = sqlite3.connect(f"file:{source_file}?mode=ro", uri=True)
    try:
        _check(source, str(source_file))
        target_path.parent.mkdir(parents=True, exist_ok=True)
        target = sqlite3.connect(target_path, timeout=30)
        try:
            source.backup(target, pages=PAGES_PER_STEP)
        finally:
            target.close()
    finally:
        source.close()

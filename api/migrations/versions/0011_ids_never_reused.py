"""SQLite: row ids are never handed out twice (AUTOINCREMENT on every table with an id)

Revision ID: 0011_ids_never_reused
Revises: 0010_interview_plan
Create Date: 2026-12-04 23:00:00

Without AUTOINCREMENT, SQLite gives a new row the largest id in its table plus one: delete the
newest learner and the next one to sign up gets their id. An operator's page still showing the
deleted learner then disables, re-issues a token for or exports the newcomer; a grading run that
outlived its submission could write into another learner's. PostgreSQL's sequences never go
back, so this is a no-op there.

SQLite cannot add AUTOINCREMENT in place: each table is rebuilt by the procedure SQLite documents
for a change ALTER TABLE cannot make (https://www.sqlite.org/lang_altertable.html, "Making Other
Kinds Of Table Schema Changes"): a new table from the old one's own CREATE statement with the id
column made ``INTEGER PRIMARY KEY AUTOINCREMENT``, the rows copied with their ids, the old table
dropped, the new one renamed, and the old table's indexes created again from their own
statements (the partial index on running interviews included). Foreign keys must be off while
this runs (``api.db.migrate`` does that, and checks them all before committing). Copying the
rows records the largest id in ``sqlite_sequence``, the high-water mark no id goes below again.
"""

from __future__ import annotations

import re

from alembic import op
from sqlalchemy import Connection

revision = "0011_ids_never_reused"
down_revision = "0010_interview_plan"
branch_labels = None
depends_on = None

# Every table of this revision with an integer id (alembic_version has none).
TABLES = (
    "user",
    "submission",
    "questionanswer",
    "reviewcard",
    "interview",
    "interviewattempt",
    "interviewevent",
    "helpuse",
    "draft",
    "invite",
    "browsersession",
)

# How SQLAlchemy writes the id column and the table's primary key, in every revision so far.
_ID_COLUMN = re.compile(r"(\n\s*)id INTEGER NOT NULL,")
_PRIMARY_KEY = re.compile(r",\s*\n\s*PRIMARY KEY \(id\)")


def _autoincrement_ddl(create: str, table: str, new_name: str) -> str:
    """``create`` for ``new_name``, its id column the rowid that AUTOINCREMENT keeps rising."""
    head = re.match(rf'CREATE TABLE ("?){re.escape(table)}\1 \(', create)
    body, ids = _ID_COLUMN.subn(r"\1id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,", create)
    body, keys = _PRIMARY_KEY.subn("", body)
    if head is None or ids != 1 or keys != 1:
        # A schema this revision does not know: stop rather than guess (nothing is changed yet).
        raise RuntimeError(f"0011: cannot find {table}'s id column and primary key: {create!r}")
    return f'CREATE TABLE "{new_name}" (' + body[head.end() :]


def _rebuild(bind: Connection, table: str) -> None:
    create = bind.exec_driver_sql(
        "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)
    ).scalar_one()
    if "AUTOINCREMENT" in create:
        return
    indexes = [
        row[0]
        for row in bind.exec_driver_sql(
            "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? "
            "AND sql IS NOT NULL",  # NULL: the automatic index of a UNIQUE clause, rebuilt by it
            (table,),
        )
    ]
    columns = ", ".join(
        f'"{row[1]}"' for row in bind.exec_driver_sql(f'PRAGMA table_info("{table}")')
    )
    new_name = f"_0011_{table}"
    bind.exec_driver_sql(_autoincrement_ddl(create, table, new_name))
    bind.exec_driver_sql(
        f'INSERT INTO "{new_name}" ({columns}) SELECT {columns} FROM "{table}" ORDER BY id'
    )
    bind.exec_driver_sql(f'DROP TABLE "{table}"')
    bind.exec_driver_sql(f'ALTER TABLE "{new_name}" RENAME TO "{table}"')
    for statement in indexes:
        bind.exec_driver_sql(statement)


def upgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name != "sqlite":
        return
    if bind.exec_driver_sql("PRAGMA foreign_keys").scalar_one():
        raise RuntimeError("0011 rebuilds tables: run it with foreign keys off (api.db.migrate)")
    for table in TABLES:
        _rebuild(bind, table)


def downgrade() -> None:
    # AUTOINCREMENT changes no column and no query: the tables stay as they are.
    pass

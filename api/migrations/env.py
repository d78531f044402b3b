"""Alembic environment: migrations run on the connection the app hands over (see api.db)."""

from __future__ import annotations

from alembic import context
from sqlmodel import SQLModel

import api.models  # noqa: F401  (registers the tables on SQLModel.metadata)

connection = context.config.attributes["connection"]
context.configure(
    connection=connection,
    target_metadata=SQLModel.metadata,
    render_as_batch=True,  # SQLite cannot ALTER most things; batch mode copies the table
)
with context.begin_transaction():
    context.run_migrations()

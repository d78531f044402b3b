"""one running interview per learner, kept by a partial unique index

Revision ID: 0006_one_running
Revises: 0005_hints
Create Date: 2026-11-30 14:15:00

Before the index, two concurrent starts could both be stored. Such pairs are settled first:
every running interview of a learner but the newest is marked finished, so the index can be
built on any database this project wrote.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006_one_running"
down_revision = "0005_hints"
branch_labels = None
depends_on = None

RUNNING = sa.text("state = 'running'")


def upgrade() -> None:
    op.execute(
        """
        UPDATE interview SET state = 'finished', ended_at = started_at
        WHERE state = 'running' AND id NOT IN (
            SELECT MAX(id) FROM interview WHERE state = 'running' GROUP BY user_id
        )
        """
    )
    op.create_index(
        "uq_interview_one_running",
        "interview",
        ["user_id"],
        unique=True,
        sqlite_where=RUNNING,
        postgresql_where=RUNNING,
    )


def downgrade() -> None:
    op.drop_index("uq_interview_one_running", table_name="interview")

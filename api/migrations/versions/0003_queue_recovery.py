"""queue mode and recovery: submission.sent_at, started_at, attempts, index on state

Revision ID: 0003_queue
Revises: 0002_interviews
Create Date: 2026-11-30 10:55:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003_queue"
down_revision = "0002_interviews"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("submission", schema=None) as batch_op:
        batch_op.add_column(sa.Column("sent_at", sa.DateTime(), nullable=True))
        batch_op.add_column(sa.Column("started_at", sa.DateTime(), nullable=True))
        batch_op.add_column(sa.Column("attempts", sa.Integer(), server_default="0", nullable=False))
        # The sweeper and start-up recovery look rows up by state.
        batch_op.create_index(batch_op.f("ix_submission_state"), ["state"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("submission", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_submission_state"))
        batch_op.drop_column("attempts")
        batch_op.drop_column("started_at")
        batch_op.drop_column("sent_at")

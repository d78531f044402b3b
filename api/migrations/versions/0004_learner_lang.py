"""learner language: user.lang, the language verdicts and starters default to

Revision ID: 0004_learner_lang
Revises: 0003_queue
Create Date: 2026-11-30 14:05:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004_learner_lang"
down_revision = "0003_queue"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("user", schema=None) as batch_op:
        # Existing learners keep reading English until they choose otherwise.
        batch_op.add_column(
            sa.Column("lang", sa.String(length=8), server_default="en", nullable=False)
        )


def downgrade() -> None:
    with op.batch_alter_table("user", schema=None) as batch_op:
        batch_op.drop_column("lang")

"""an index on a learner's submissions of one exercise, in order

Revision ID: 0007_submission_history
Revises: 0006_one_running
Create Date: 2026-11-30 18:20:00

Every verdict reschedules the exercise's review card from the learner's last pass and the
failures since it: two lookups that this index answers without scanning the history.
"""

from __future__ import annotations

from alembic import op

revision = "0007_submission_history"
down_revision = "0006_one_running"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_submission_learner_exercise", "submission", ["user_id", "exercise", "id"])


def downgrade() -> None:
    op.drop_index("ix_submission_learner_exercise", table_name="submission")

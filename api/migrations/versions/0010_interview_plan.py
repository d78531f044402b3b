"""an interview's preset, attempt limit and self-rating; the item open/leave events

Revision ID: 0010_interview_plan
Revises: 0009_operators
Create Date: 2026-12-01 20:40:00

Interviews now follow a preset (phone screen, on-site round, concept screen), limit submissions
per exercise, and end with the learner rating their explanation against a rubric. The time spent
on each item is measured from the moments it was opened and left, stored as events.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010_interview_plan"
down_revision = "0009_operators"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("interview") as batch:
        batch.add_column(
            sa.Column("preset", sa.String(length=32), nullable=False, server_default="")
        )
        batch.add_column(
            sa.Column("max_attempts", sa.Integer(), nullable=False, server_default="3")
        )
        batch.add_column(sa.Column("self_rating", sa.JSON(), nullable=True))
    op.create_table(
        "interviewevent",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("interview_id", sa.Integer(), sa.ForeignKey("interview.id"), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("event", sa.String(length=8), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_interviewevent_interview_id", "interviewevent", ["interview_id"])


def downgrade() -> None:
    op.drop_index("ix_interviewevent_interview_id", table_name="interviewevent")
    op.drop_table("interviewevent")
    with op.batch_alter_table("interview") as batch:
        batch.drop_column("self_rating")
        batch.drop_column("max_attempts")
        batch.drop_column("preset")

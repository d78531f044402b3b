"""interviews: timed mock interviews and the attempts given during them

Revision ID: 0002_interviews
Revises: 0001
Create Date: 2026-11-30 10:50:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002_interviews"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "interview",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("lang", sa.String(length=8), nullable=False),
        sa.Column("minutes", sa.Float(), nullable=False),
        sa.Column("topics", sa.JSON(), nullable=False),
        sa.Column("items", sa.JSON(), nullable=False),
        sa.Column("focus_topics", sa.JSON(), nullable=False),
        sa.Column("mastery_before", sa.JSON(), nullable=False),
        sa.Column("mastery_after", sa.JSON(), nullable=True),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("started_at", sa.DateTime(), nullable=False),
        sa.Column("deadline", sa.DateTime(), nullable=False),
        sa.Column("ended_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(["user_id"], ["user.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("interview", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_interview_user_id"), ["user_id"], unique=False)

    op.create_table(
        "interviewattempt",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("interview_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("item_id", sa.String(length=80), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
        sa.Column("answer", sa.JSON(), nullable=True),
        sa.Column("correct", sa.Boolean(), nullable=True),
        sa.Column("submission_id", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(["interview_id"], ["interview.id"]),
        sa.ForeignKeyConstraint(["submission_id"], ["submission.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("interviewattempt", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_interviewattempt_interview_id"), ["interview_id"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("interviewattempt", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_interviewattempt_interview_id"))
    op.drop_table("interviewattempt")
    with op.batch_alter_table("interview", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_interview_user_id"))
    op.drop_table("interview")

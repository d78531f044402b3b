"""hints and drafts: help a learner used (hint rungs, the worked solution), and saved drafts

Revision ID: 0005_hints
Revises: 0004_learner_lang
Create Date: 2026-11-30 14:20:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005_hints"
down_revision = "0004_learner_lang"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "helpuse",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("exercise", sa.String(length=64), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("rung", sa.Integer(), nullable=True),
        sa.Column("at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["user.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("helpuse", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_helpuse_user_id"), ["user_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_helpuse_exercise"), ["exercise"], unique=False)

    op.create_table(
        "draft",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("exercise", sa.String(length=64), nullable=False),
        sa.Column("code", sa.String(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["user.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("user_id", "exercise"),
    )
    with op.batch_alter_table("draft", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_draft_user_id"), ["user_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("draft", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_draft_user_id"))
    op.drop_table("draft")
    with op.batch_alter_table("helpuse", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_helpuse_exercise"))
        batch_op.drop_index(batch_op.f("ix_helpuse_user_id"))
    op.drop_table("helpuse")

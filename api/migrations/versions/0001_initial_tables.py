"""initial tables

Revision ID: 0001
Revises:
Create Date: 2026-11-29 13:07:05.040294
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:

    op.create_table(
        "user",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=80), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("user", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_user_token_hash"), ["token_hash"], unique=True)

    op.create_table(
        "questionanswer",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("question_id", sa.String(length=80), nullable=False),
        sa.Column("topic", sa.String(length=32), nullable=False),
        sa.Column("answer", sa.JSON(), nullable=True),
        sa.Column("correct", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["user.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("questionanswer", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_questionanswer_question_id"), ["question_id"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_questionanswer_user_id"), ["user_id"], unique=False)

    op.create_table(
        "reviewcard",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("item_id", sa.String(length=80), nullable=False),
        sa.Column("topic", sa.String(length=32), nullable=False),
        sa.Column("card", sa.String(), nullable=False),
        sa.Column("due", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["user.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("user_id", "kind", "item_id"),
    )
    with op.batch_alter_table("reviewcard", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_reviewcard_due"), ["due"], unique=False)
        batch_op.create_index(batch_op.f("ix_reviewcard_user_id"), ["user_id"], unique=False)

    op.create_table(
        "submission",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("exercise", sa.String(length=64), nullable=False),
        sa.Column("code", sa.String(), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("verdict", sa.String(length=16), nullable=True),
        sa.Column("message", sa.String(), nullable=False),
        sa.Column("result", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("completed_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["user.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("submission", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_submission_exercise"), ["exercise"], unique=False)
        batch_op.create_index(batch_op.f("ix_submission_user_id"), ["user_id"], unique=False)


def downgrade() -> None:

    with op.batch_alter_table("submission", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_submission_user_id"))
        batch_op.drop_index(batch_op.f("ix_submission_exercise"))

    op.drop_table("submission")
    with op.batch_alter_table("reviewcard", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_reviewcard_user_id"))
        batch_op.drop_index(batch_op.f("ix_reviewcard_due"))

    op.drop_table("reviewcard")
    with op.batch_alter_table("questionanswer", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_questionanswer_user_id"))
        batch_op.drop_index(batch_op.f("ix_questionanswer_question_id"))

    op.drop_table("questionanswer")
    with op.batch_alter_table("user", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_user_token_hash"))

    op.drop_table("user")

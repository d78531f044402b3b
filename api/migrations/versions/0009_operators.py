"""operators and invitations: user.role, user.disabled_at, the invite table

Revision ID: 0009_operators
Revises: 0008_browser_sessions
Create Date: 2026-12-01 20:20:00

Every existing user stays a learner; operators are made on the host afterwards.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009_operators"
down_revision = "0008_browser_sessions"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("user", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("role", sa.String(length=16), server_default="learner", nullable=False)
        )
        batch_op.add_column(sa.Column("disabled_at", sa.DateTime(), nullable=True))
    op.create_table(
        "invite",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("code_hash", sa.String(length=64), nullable=False),
        sa.Column("uses", sa.Integer(), nullable=False),
        sa.Column("used", sa.Integer(), server_default="0", nullable=False),
        sa.Column("expires_at", sa.DateTime(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("revoked_at", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_invite_code_hash", "invite", ["code_hash"], unique=True)


def downgrade() -> None:
    op.drop_index("ix_invite_code_hash", table_name="invite")
    op.drop_table("invite")
    with op.batch_alter_table("user", schema=None) as batch_op:
        batch_op.drop_column("disabled_at")
        batch_op.drop_column("role")

"""browser sessions: a server-side record per signed-in browser, apart from the API token

Revision ID: 0008_browser_sessions
Revises: 0007_submission_history
Create Date: 2026-12-01 20:40:00

Before this the session cookie held the API token itself, so signing out could not end
anything. Cookies set by older versions hold a token and find no row here: those browsers are
signed out by the upgrade and sign in again.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008_browser_sessions"
down_revision = "0007_submission_history"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "browsersession",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("id_hash", sa.String(length=64), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("csrf_secret", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("expires_at", sa.DateTime(), nullable=False),
        sa.Column("ended_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(["user_id"], ["user.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("browsersession", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_browsersession_id_hash"), ["id_hash"], unique=True)
        batch_op.create_index(batch_op.f("ix_browsersession_user_id"), ["user_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("browsersession", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_browsersession_user_id"))
        batch_op.drop_index(batch_op.f("ix_browsersession_id_hash"))
    op.drop_table("browsersession")

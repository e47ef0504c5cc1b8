"""learn: lesson progress per account (docs/learn.md)

Revision ID: 0015
Revises: 0014
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "lesson_progress",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("lesson", sa.String(length=40), nullable=False),
        sa.Column("exercise", sa.String(length=40), nullable=False),
        sa.Column("solved_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("user_id", "lesson", "exercise"),
    )


def downgrade() -> None:
    op.drop_table("lesson_progress")

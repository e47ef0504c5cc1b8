"""accounts: closing an account, and the names held after it closed (docs/web.md)

Revision ID: 0014
Revises: 0013
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.add_column(sa.Column("closed_at", sa.DateTime(timezone=True), nullable=True))
    op.create_table(
        "held_names",
        sa.Column("name_key", sa.String(length=24), primary_key=True),
        sa.Column("held_until", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("held_names")
    with op.batch_alter_table("users") as batch:
        batch.drop_column("closed_at")

"""decks: players' custom decks; the creator's deck copied into an invitation; a game's options

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "decks",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("owner_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=40), nullable=False),
        sa.Column("name_key", sa.String(length=40), nullable=False),
        sa.Column("cards", sa.JSON(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["owner_id"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("owner_id", "name_key", name="uq_decks_owner_name"),
    )
    with op.batch_alter_table("decks", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_decks_owner_id"), ["owner_id"], unique=False)
    with op.batch_alter_table("invitations", schema=None) as batch_op:
        batch_op.add_column(sa.Column("creator_deck", sa.JSON(), nullable=True))
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("options", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_column("options")
    with op.batch_alter_table("invitations", schema=None) as batch_op:
        batch_op.drop_column("creator_deck")
    with op.batch_alter_table("decks", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_decks_owner_id"))
    op.drop_table("decks")

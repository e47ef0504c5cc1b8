"""tournaments: Swiss, round-robin and arena events, their entries and pairings; a game's tournament

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tournaments",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=60), nullable=False),
        sa.Column("kind", sa.String(length=12), nullable=False),
        sa.Column("status", sa.String(length=10), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("rounds", sa.Integer(), nullable=False),
        sa.Column("current_round", sa.Integer(), nullable=False),
        sa.Column("minutes", sa.Integer(), nullable=False),
        sa.Column("ends_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_by", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["created_by"], ["users.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_tournaments_status", "tournaments", ["status"])
    op.create_table(
        "tournament_entries",
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("rating", sa.Integer(), nullable=False),
        sa.Column("army", sa.String(length=12), nullable=False),
        sa.Column("deck", sa.JSON(), nullable=True),
        sa.Column("withdrawn", sa.Boolean(), nullable=False),
        sa.Column("joined_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["tournament_id"], ["tournaments.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("tournament_id", "user_id"),
    )
    op.create_table(
        "tournament_pairings",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("board", sa.Integer(), nullable=False),
        sa.Column("white_id", sa.Integer(), nullable=False),
        sa.Column("black_id", sa.Integer(), nullable=True),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("result", sa.String(length=4), nullable=True),
        sa.ForeignKeyConstraint(["tournament_id"], ["tournaments.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["white_id"], ["users.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["black_id"], ["users.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("tournament_id", "round", "board", name="uq_tournament_pairings_board"),
    )
    op.create_index("ix_tournament_pairings_game_id", "tournament_pairings", ["game_id"])
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("tournament_id", sa.Integer(), nullable=True))
        batch_op.create_index("ix_games_tournament_id", ["tournament_id"])
        batch_op.create_foreign_key("fk_games_tournament_id", "tournaments", ["tournament_id"], ["id"], ondelete="SET NULL")


def downgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_constraint("fk_games_tournament_id", type_="foreignkey")
        batch_op.drop_index("ix_games_tournament_id")
        batch_op.drop_column("tournament_id")
    op.drop_index("ix_tournament_pairings_game_id", table_name="tournament_pairings")
    op.drop_table("tournament_pairings")
    op.drop_table("tournament_entries")
    op.drop_index("ix_tournaments_status", table_name="tournaments")
    op.drop_table("tournaments")

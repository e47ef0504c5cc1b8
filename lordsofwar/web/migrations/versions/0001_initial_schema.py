"""initial schema

Revision ID: 0001
Revises:
Create Date: 2026-11-22 21:25:13.730522
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
        "login_failures",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(length=120), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("login_failures", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_login_failures_key"), ["key"], unique=False)

    op.create_table(
        "users",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=24), nullable=False),
        sa.Column("name_key", sa.String(length=24), nullable=False),
        sa.Column("password_hash", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("name_key"),
    )
    op.create_table(
        "games",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("player1_id", sa.Integer(), nullable=True),
        sa.Column("player2_id", sa.Integer(), nullable=True),
        sa.Column("bot1", sa.String(length=20), nullable=True),
        sa.Column("bot2", sa.String(length=20), nullable=True),
        sa.Column("public", sa.Boolean(), nullable=False),
        sa.Column("variant", sa.JSON(), nullable=False),
        sa.Column("decks", sa.JSON(), nullable=False),
        sa.Column("armies", sa.JSON(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("actions", sa.JSON(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=10), nullable=False),
        sa.Column("waiting_for", sa.Integer(), nullable=True),
        sa.Column("winner", sa.Integer(), nullable=True),
        sa.Column("reason", sa.String(length=200), nullable=True),
        sa.Column("mode", sa.String(length=8), nullable=False),
        sa.Column("initial_ms", sa.BigInteger(), nullable=False),
        sa.Column("increment_ms", sa.BigInteger(), nullable=False),
        sa.Column("turn_ms", sa.BigInteger(), nullable=False),
        sa.Column("clock1_ms", sa.BigInteger(), nullable=False),
        sa.Column("clock2_ms", sa.BigInteger(), nullable=False),
        sa.Column("since", sa.DateTime(timezone=True), nullable=False),
        sa.Column("deadline_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("draw_offer", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["player1_id"],
            ["users.id"],
        ),
        sa.ForeignKeyConstraint(
            ["player2_id"],
            ["users.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_games_deadline_at"), ["deadline_at"], unique=False)
        batch_op.create_index(batch_op.f("ix_games_player1_id"), ["player1_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_games_player2_id"), ["player2_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_games_status"), ["status"], unique=False)
        batch_op.create_index("ix_games_status_deadline", ["status", "deadline_at"], unique=False)

    op.create_table(
        "sessions",
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("token_hash"),
    )
    with op.batch_alter_table("sessions", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_sessions_user_id"), ["user_id"], unique=False)

    op.create_table(
        "invitations",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("creator_id", sa.Integer(), nullable=False),
        sa.Column("opponent_id", sa.Integer(), nullable=True),
        sa.Column("status", sa.String(length=12), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(["creator_id"], ["users.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["games.id"],
        ),
        sa.ForeignKeyConstraint(["opponent_id"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("invitations", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_invitations_creator_id"), ["creator_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_invitations_opponent_id"), ["opponent_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_invitations_status"), ["status"], unique=False)


def downgrade() -> None:

    with op.batch_alter_table("invitations", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_invitations_status"))
        batch_op.drop_index(batch_op.f("ix_invitations_opponent_id"))
        batch_op.drop_index(batch_op.f("ix_invitations_creator_id"))

    op.drop_table("invitations")
    with op.batch_alter_table("sessions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_sessions_user_id"))

    op.drop_table("sessions")
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_index("ix_games_status_deadline")
        batch_op.drop_index(batch_op.f("ix_games_status"))
        batch_op.drop_index(batch_op.f("ix_games_player2_id"))
        batch_op.drop_index(batch_op.f("ix_games_player1_id"))
        batch_op.drop_index(batch_op.f("ix_games_deadline_at"))

    op.drop_table("games")
    op.drop_table("users")
    with op.batch_alter_table("login_failures", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_login_failures_key"))

    op.drop_table("login_failures")

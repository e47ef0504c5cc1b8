"""results as codes: a finished game's termination and the facts its sentence needs (docs/notation.md)

Revision ID: 0012
Revises: 0011

Games that ended before get theirs from their English reason (lordsofwar.rules.result.legacy_result).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from lordsofwar.rules.result import legacy_result

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("termination", sa.String(length=32), nullable=True))
        batch.add_column(sa.Column("result_details", sa.JSON(), nullable=True))
    games = sa.table(
        "games",
        sa.column("id", sa.Integer),
        sa.column("winner", sa.Integer),
        sa.column("reason", sa.String),
        sa.column("termination", sa.String),
        sa.column("result_details", sa.JSON),
    )
    conn = op.get_bind()
    rows = conn.execute(sa.select(games.c.id, games.c.winner, games.c.reason).where(games.c.reason.is_not(None))).all()
    for game_id, winner, reason in rows:
        try:
            result = legacy_result(winner, reason)
        except ValueError:  # not a reason the engine wrote: the game keeps its sentence alone
            continue
        conn.execute(
            games.update()
            .where(games.c.id == game_id)
            .values(termination=result.termination.value, result_details=result.details() or None)
        )


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("result_details")
        batch.drop_column("termination")

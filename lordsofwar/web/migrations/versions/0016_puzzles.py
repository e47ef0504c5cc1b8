"""learn: puzzles, their ratings and the players' attempts (docs/learn.md)

Revision ID: 0016
Revises: 0015
"""

from __future__ import annotations

import sqlalchemy as sa  # noqa: F401
from alembic import op  # noqa: F401

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass

"""community: reports, moderators, warnings, mutes, bans and the moderation log (docs/community.md)

Revision ID: 0019
Revises: 0018
"""

from __future__ import annotations

import sqlalchemy as sa  # noqa: F401
from alembic import op  # noqa: F401

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass

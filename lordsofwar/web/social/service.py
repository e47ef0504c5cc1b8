"""Friends, presence and blocking: who follows whom, who blocks whom (docs/community.md).

Like every service of the web package, the functions take the request's ``AsyncSession`` (the
``deps.get_db`` session) and do not commit unless they say so; a caller that changes rows commits.
"""

from __future__ import annotations

from sqlalchemy import and_, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from lordsofwar.web.models import Block


async def blocked_either(db: AsyncSession, a: int, b: int) -> bool:
    """Whether either of the users ``a`` and ``b`` (ids) blocks the other: then neither may
    challenge or chat with the other. Reads only; the same answer whichever way round."""
    found = await db.scalar(
        select(Block.blocker_id)
        .where(
            or_(
                and_(Block.blocker_id == a, Block.blocked_id == b),
                and_(Block.blocker_id == b, Block.blocked_id == a),
            )
        )
        .limit(1)
    )
    return found is not None

"""Reports and moderation: players report a chat message or a player; moderators handle the queue
of open reports and act on players (warn, mute, ban, close the account) or dismiss a report.

Like every service of the web package, the functions take the request's ``AsyncSession`` (the
``deps.get_db`` session) and do not commit unless they say so.

Every action is a row of the moderation log (``moderation_actions``); warnings, mutes and bans are
read from it: :func:`muted_until` (the chat refuses a muted player until then) and
:func:`is_banned` (sign-in refuses a banned player).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from lordsofwar.web.models import ModerationAction, Moderator, utcnow


async def muted_until(db: AsyncSession, user_id: int, now: datetime | None = None) -> datetime | None:
    """Until when the player is muted (the chat refuses their messages), or None: they may talk."""
    now = now or utcnow()
    return await db.scalar(
        select(func.max(ModerationAction.until)).where(
            ModerationAction.target_id == user_id, ModerationAction.action == "mute", ModerationAction.until > now
        )
    )


async def ban_of(db: AsyncSession, user_id: int, now: datetime | None = None) -> ModerationAction | None:
    """The ban in force on the player (the one that lasts longest; a ban for good first), or None."""
    now = now or utcnow()
    return await db.scalar(
        select(ModerationAction)
        .where(
            ModerationAction.target_id == user_id,
            ModerationAction.action == "ban",
            or_(ModerationAction.until.is_(None), ModerationAction.until > now),
        )
        .order_by(ModerationAction.until.is_(None).desc(), ModerationAction.until.desc())
        .limit(1)
    )


async def is_banned(db: AsyncSession, user_id: int, now: datetime | None = None) -> bool:
    """Whether a ban is in force on the player: they cannot sign in."""
    return await ban_of(db, user_id, now) is not None


async def is_moderator(db: AsyncSession, user_id: int) -> bool:
    return await db.scalar(select(Moderator.user_id).where(Moderator.user_id == user_id)) is not None

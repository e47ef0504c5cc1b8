"""Friends, presence and blocking: who follows whom, who blocks whom (docs/community.md).

Like every service of the web package, the functions take the request's ``AsyncSession`` (the
``deps.get_db`` session) and do not commit unless they say so; a caller that changes rows commits.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, Select, and_, delete, func, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from lordsofwar.i18n import _
from lordsofwar.web.accounts import service as accounts
from lordsofwar.web.models import Block, Follow, Invitation, User
from lordsofwar.web.problem import Problem
from lordsofwar.web.social.presence import Presence


def block_between(a: int | ColumnElement[int], b: int | ColumnElement[int]) -> Select[int]:
    """The query of :func:`blocked_either` (a row when either blocks the other), for a caller
    that asks it together with other questions in one statement (the chat's post, which builds
    it once with bound parameters)."""
    return (
        select(Block.blocker_id)
        .where(
            or_(
                and_(Block.blocker_id == a, Block.blocked_id == b),
                and_(Block.blocker_id == b, Block.blocked_id == a),
            )
        )
        .limit(1)
    )


async def blocked_either(db: AsyncSession, a: int, b: int) -> bool:
    """Whether either of the users ``a`` and ``b`` (ids) blocks the other: then neither may
    challenge or chat with the other. Reads only; the same answer whichever way round."""
    return await db.scalar(block_between(a, b)) is not None


FOLLOWS_MAX = 500
"""Players one player may follow."""
BLOCKS_MAX = 1000
"""Players one player may block."""


async def find_other(db: AsyncSession, user: User, name: str) -> User:
    """The player named ``name`` (not ``user``, not a closed account)."""
    other = await accounts.find_user(db, name)
    if other is None:
        raise Problem(404, _("there is no player called {name!r}").format(name=name[:30]))
    if other.id == user.id:
        raise Problem(403, _("that is your own name"))
    return other


async def follow(db: AsyncSession, user: User, name: str) -> User:
    """Follow the player ``name`` (again: nothing changes). Commits."""
    other = await find_other(db, user, name)
    if await db.get(Follow, (user.id, other.id)) is None:
        count = await db.scalar(select(func.count()).select_from(Follow).where(Follow.follower_id == user.id))
        if (count or 0) >= FOLLOWS_MAX:
            raise Problem(409, _("you follow {n} players already; unfollow some first").format(n=FOLLOWS_MAX))
        db.add(Follow(follower_id=user.id, followed_id=other.id))
        try:
            await db.commit()
        except IntegrityError:  # the same follow sent twice at once
            await db.rollback()
    return other


async def unfollow(db: AsyncSession, user: User, name: str) -> User:
    """Stop following ``name`` (not following: nothing changes). Commits."""
    other = await find_other(db, user, name)
    await db.execute(delete(Follow).where(Follow.follower_id == user.id, Follow.followed_id == other.id))
    await db.commit()
    return other


async def block(db: AsyncSession, user: User, name: str) -> tuple[User, list[int]]:
    """Block ``name``: the open challenges between the two are withdrawn (cancelled). Commits.
    Returns the player and the ids of the players whose lobby changed."""
    other = await find_other(db, user, name)
    if await db.get(Block, (user.id, other.id)) is None:
        count = await db.scalar(select(func.count()).select_from(Block).where(Block.blocker_id == user.id))
        if (count or 0) >= BLOCKS_MAX:
            raise Problem(409, _("you block {n} players already; unblock some first").format(n=BLOCKS_MAX))
        db.add(Block(blocker_id=user.id, blocked_id=other.id))
    withdrawn = await db.execute(
        update(Invitation)
        .where(
            Invitation.status == "open",
            or_(
                and_(Invitation.creator_id == user.id, Invitation.opponent_id == other.id),
                and_(Invitation.creator_id == other.id, Invitation.opponent_id == user.id),
            ),
        )
        .values(status="cancelled")
    )
    try:
        await db.commit()
    except IntegrityError:  # the same block sent twice at once
        await db.rollback()
        return other, []
    changed = withdrawn.rowcount  # type: ignore[attr-defined]
    return other, [user.id, other.id] if changed else []


async def unblock(db: AsyncSession, user: User, name: str) -> User:
    """Stop blocking ``name``. Commits."""
    other = await find_other(db, user, name)
    await db.execute(delete(Block).where(Block.blocker_id == user.id, Block.blocked_id == other.id))
    await db.commit()
    return other


async def relation(db: AsyncSession, user: User, other: User) -> dict[str, bool]:
    """What ``user`` does to ``other``: follows, blocks (never whether ``other`` blocks ``user``)."""
    return {
        "following": await db.get(Follow, (user.id, other.id)) is not None,
        "blocking": await db.get(Block, (user.id, other.id)) is not None,
    }


async def hidden_from(db: AsyncSession, user_id: int, ids: list[int]) -> set[int]:
    """Of ``ids``, the players whose presence ``user_id`` may not see: those who block them, and
    those they block."""
    if not ids:
        return set()
    rows = await db.execute(
        select(Block.blocker_id, Block.blocked_id).where(
            or_(
                and_(Block.blocked_id == user_id, Block.blocker_id.in_(ids)),
                and_(Block.blocker_id == user_id, Block.blocked_id.in_(ids)),
            )
        )
    )
    return {blocked if blocker == user_id else blocker for blocker, blocked in rows}


async def friends(db: AsyncSession, presence: Presence, user: User) -> list[dict[str, Any]]:
    """The players ``user`` follows, by name, each with whether they are online now (false for
    a player either of the two blocks)."""
    rows = list(
        await db.execute(
            select(User.id, User.name)
            .join(Follow, Follow.followed_id == User.id)
            .where(Follow.follower_id == user.id, User.closed_at.is_(None))
            .order_by(User.name_key)
        )
    )
    ids = [uid for uid, _name in rows]
    hidden = await hidden_from(db, user.id, ids)
    online = await presence.online(uid for uid in ids if uid not in hidden)
    return [{"name": name, "online": uid in online} for uid, name in rows]


async def blocks(db: AsyncSession, user: User) -> list[str]:
    """The names of the players ``user`` blocks, in name order."""
    rows = await db.scalars(
        select(User.name)
        .join(Block, Block.blocked_id == User.id)
        .where(Block.blocker_id == user.id, User.closed_at.is_(None))
        .order_by(User.name_key)
    )
    return list(rows)


async def is_online(db: AsyncSession, presence: Presence, user: User | None, other: User) -> bool | None:
    """Whether ``other`` is online, as ``user`` may know it: None for a visitor and for a bot's
    account; False where either blocks the other (told apart from offline by nobody, so that
    the blocked player cannot learn of the block from it)."""
    if user is None or other.bot is not None:
        return None
    if user.id != other.id and await blocked_either(db, user.id, other.id):
        return False
    return bool(await presence.online([other.id]))

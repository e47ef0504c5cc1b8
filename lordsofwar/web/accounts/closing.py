"""Closing an account: the player leaves, their games stay whole for their opponents.

The user row stays, renamed to a placeholder (``closed-<id>``, made from the account's number:
stable, and never anyone else's, since no new name may start with ``closed-``), so that every game,
record, replay and tournament table shows the placeholder where the name was. Everything else
about the player goes: the sessions (signed out everywhere, sockets too), API tokens, decks,
ratings (so the leaderboards forget them), email address, mail settings and mails, the language.
Before that, what the player had under way ends as if they had ended it themselves: open
invitations are cancelled or declined (lobby.service.answer), tournament entries are withdrawn
(tournaments.service.withdraw) and running games are resigned (GameService.resign).

The old name is held for :data:`HOLD_DAYS` days (table ``held_names``): nobody can sign up as it
meanwhile, so that no one can pose as the player who left.
"""

from __future__ import annotations

import contextlib
import logging
from datetime import datetime, timedelta

from sqlalchemy import Table, delete, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from lordsofwar.i18n import _
from lordsofwar.web.accounts import service as accounts
from lordsofwar.web.accounts.limits import Guard
from lordsofwar.web.db import upsert
from lordsofwar.web.deps import Services
from lordsofwar.web.games.runtime import GameError
from lordsofwar.web.lobby import service as lobby
from lordsofwar.web.models import (
    ApiToken,
    AuthSession,
    Base,
    Game,
    HeldName,
    Invitation,
    Tournament,
    TournamentEntry,
    User,
    utcnow,
)
from lordsofwar.web.problem import Problem
from lordsofwar.web.tournaments import service as tournaments

log = logging.getLogger("lordsofwar.web")

HOLD_DAYS = 30
"""How long a closed account's name is kept from new accounts."""
PLACEHOLDER_PREFIX = accounts.CLOSED_PREFIX
"""A closed account's name is this and its number; no new name may start with it."""
HELD: Table = HeldName.__table__  # type: ignore[assignment]

DELETED: dict[str, str | tuple[str, ...]] = {
    "sessions": "user_id",
    "api_tokens": "user_id",
    "password_resets": "user_id",
    "decks": "owner_id",
    "ratings": "user_id",
    "mail_settings": "user_id",
    "mail_outbox": "user_id",
    "player_puzzles": "user_id",
    "puzzle_attempts": "user_id",
    "lesson_progress": "user_id",
    "moderators": "user_id",
    "follows": ("follower_id", "followed_id"),
    "blocks": ("blocker_id", "blocked_id"),
    "chat_settings": "user_id",
}
"""The tables whose rows about the player go when the account closes (table -> the column, or
columns, that name the player); a table not in the schema (yet) is passed over."""
KEPT: dict[str, str] = {
    "users": "the row stays under the placeholder name, its password unusable, so that games can name it",
    "games": "the opponents' games stay whole",
    "invitations": "the history of challenges answered; open ones are cancelled or declined first",
    "rating_changes": "part of the games' records: what each rated game did to both players",
    "tournaments": "a tournament the player made stays for its entrants",
    "tournament_entries": "the standings of the other entrants; the entry is withdrawn first",
    "tournament_pairings": "the other entrants' results",
    "game_analyses": "an analysis belongs to its game",
    "reports": "the moderators' record of reports by and about the player",
    "moderation_actions": "the moderation log: who did what to whom, and why",
    "chat_messages": "part of the games: the other player's conversation stays whole, under the placeholder",
}
"""The tables that keep their rows naming the closed account, and why (tests/web/test_account_closing.py
fails on a table in neither list)."""


def placeholder(user_id: int) -> str:
    """The name a closed account is shown under from now on (``closed-1234``)."""
    return f"{PLACEHOLDER_PREFIX}{user_id}"


async def held_until(db: AsyncSession, name: str, now: datetime | None = None) -> datetime | None:
    """Until when ``name`` is held after its account closed (case does not count), or None when
    it is free (never held, or the hold is over)."""
    until = await db.scalar(select(HeldName.held_until).where(HeldName.name_key == name.strip().lower()))
    if until is None or until <= (now or utcnow()):
        return None
    return until


async def _check_password(svc: Services, user: User, password: str, ip: str) -> None:
    """The player's password, counted against the sign-in limits (a stolen session cannot
    guess it); a wrong one is refused (403) and changes nothing."""
    guard: Guard = svc.guard
    blocked = await guard.sign_in_attempt(user.name_key, ip)
    if blocked is not None:
        raise Problem(429, _(accounts.SIGN_IN_BLOCKED[blocked]).format(minutes=guard.login_minutes))
    ok = False
    if len(password) <= accounts.PASSWORD_MAX:
        async with guard.hashing():
            ok = await guard.run(svc.passwords.verify, user.password_hash, password)
    if not ok:
        raise Problem(403, _("wrong password: the account stays open"), code="password")
    await guard.signed_in(user.name_key, ip)


def check_confirmation(user: User, typed: str) -> None:
    """The confirmation step: the player types their own name (case does not count)."""
    if typed.strip().lower() != user.name_key:
        raise Problem(
            403, _("to confirm, type your name {name} exactly; the account stays open").format(name=user.name),
            code="confirm",
        )


async def close_account(db: AsyncSession, svc: Services, user: User, password: str, typed: str, ip: str) -> str:
    """Close ``user``'s account (the password and the typed name confirm it): their sessions and
    tokens go first (nothing more can be done in their name), then what was under way ends as the
    player would end it, then their data goes and the row takes its placeholder name. The
    placeholder; Problem (nothing changed) for a wrong password or confirmation."""
    if user.bot is not None or user.closed_at is not None:
        raise Problem(409, _("this account cannot be closed"))
    check_confirmation(user, typed)
    await db.rollback()  # the connection goes back while the password is checked
    await _check_password(svc, user, password, ip)
    return await finish_closing(db, svc, user)


async def finish_closing(db: AsyncSession, svc: Services, user: User) -> str:
    """Close ``user``'s account once it is decided (the player confirmed it, or a moderator closed
    it: lordsofwar.web.moderation): sessions and tokens first, then what was under way, then the
    data. The placeholder; 409 (nothing changed) for an account already closed or a bot's."""
    if user.bot is not None or user.closed_at is not None:
        raise Problem(409, _("this account cannot be closed"))
    uid, old_key = user.id, user.name_key
    now = utcnow()
    # 1. signed out everywhere at once: no request or socket acts for the player from here on
    closed = await db.execute(
        update(User).where(User.id == uid, User.closed_at.is_(None)).values(closed_at=now, password_hash=accounts.NO_PASSWORD)
    )
    if closed.rowcount != 1:  # type: ignore[attr-defined]
        await db.rollback()
        raise Problem(409, _("this account cannot be closed"))
    sessions = list(await db.scalars(select(AuthSession.token_hash).where(AuthSession.user_id == uid)))
    await db.execute(delete(AuthSession).where(AuthSession.user_id == uid))
    await db.execute(delete(ApiToken).where(ApiToken.user_id == uid))
    await db.commit()
    svc.hub.drop_user(uid)  # every socket of the player's in this process
    svc.hub.drop_sessions(uid, sessions)  # and in the others, through Redis
    player = await db.get(User, uid)
    assert player is not None
    # 2. what was under way ends as the player would end it; a failure here must not leave the
    # account half closed (nobody could sign in to finish it): the data goes all the same
    games: list[int] = []
    try:
        await _withdraw_invitations(db, svc, player)
        await _withdraw_entries(db, player)
        games = await _resign_games(db, svc, uid)
    except Exception:
        log.exception("closing account %s: what was under way could not all be ended", uid)
        await db.rollback()
    # 3. the player's data goes; the row keeps only what the games need
    tables = Base.metadata.tables
    for name, columns in DELETED.items():
        if name in tables:
            table = tables[name]
            named = (columns,) if isinstance(columns, str) else columns
            await db.execute(delete(table).where(or_(*(table.c[c] == uid for c in named))))
    name = placeholder(uid)
    await db.execute(update(User).where(User.id == uid).values(name=name, name_key=name, locale=None))
    await upsert(db, HELD, {"name_key": old_key, "held_until": now + timedelta(days=HOLD_DAYS)}, "name_key", ["held_until"])
    await db.commit()
    for game_id in games:  # this process's copies show the placeholder at once
        svc.games.runtimes.pop(game_id, None)
    svc.hub.tell_users(None)
    log.info("account %s closed", uid)
    return name


async def _withdraw_invitations(db: AsyncSession, svc: Services, user: User) -> None:
    """Cancel the player's open invitations and decline those made to them."""
    rows = (
        await db.execute(
            select(Invitation.id, Invitation.creator_id).where(
                Invitation.status == "open", or_(Invitation.creator_id == user.id, Invitation.opponent_id == user.id)
            )
        )
    ).all()
    for inv_id, creator in rows:
        try:
            await lobby.answer(db, svc.games, user, inv_id, "cancel" if creator == user.id else "decline")
        except Problem:  # answered meanwhile
            await db.rollback()


async def _withdraw_entries(db: AsyncSession, user: User) -> None:
    """Withdraw from every tournament not over, as the player's own withdrawal does."""
    query = (
        select(TournamentEntry.tournament_id)
        .join(Tournament, Tournament.id == TournamentEntry.tournament_id)
        .where(TournamentEntry.user_id == user.id, TournamentEntry.withdrawn.is_(False), Tournament.status != "finished")
    )
    for tid in list(await db.scalars(query)):
        try:
            await tournaments.withdraw(db, user, tid)
        except Problem:  # it finished meanwhile
            await db.rollback()


async def _resign_games(db: AsyncSession, svc: Services, uid: int) -> list[int]:
    """Resign every running game of the player (before both first turns, that aborts it); the
    numbers of all the player's games."""
    rows = (
        await db.execute(select(Game.id, Game.status).where(or_(Game.player1_id == uid, Game.player2_id == uid)))
    ).all()
    await db.rollback()
    for game_id, status in rows:
        if status == "running":
            with contextlib.suppress(GameError):  # it ended meanwhile
                await svc.games.resign(game_id, uid)
    return [game_id for game_id, _status in rows]

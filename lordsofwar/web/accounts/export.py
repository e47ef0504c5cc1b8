"""Your data: everything the site keeps about a player, as one JSON document.

Every table that names a player (a column referring to ``users.id``) is either in :data:`PARTS`
(its rows that name the player, in the section the part names) or in :data:`NOT_ABOUT_PLAYERS`
with the reason it holds nothing about the person; tests/web/test_account_data.py fails on a
table in neither, so a new table cannot be left out unnoticed.

What a player may not see stays out: password and token hashes (any column whose name says
``hash``, ``secret`` or ``token``), the mails' bodies and headers (they hold signed links), and
of a running game everything the player's own view hides: it is exported as the game page shows
it to them (games.service.state_doc), never with the seed or the decks. A finished game's record
is whole, as the game's record download gives it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Table, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from lordsofwar.rules import notation
from lordsofwar.web.games.runtime import GameError
from lordsofwar.web.games.service import GameService, state_doc
from lordsofwar.web.models import Base, Game, Invitation, User, utcnow
from lordsofwar.web.words import BOT_NAMES

FORMAT = "lordsofwar-account-data"
VERSION = 1


@dataclass(frozen=True)
class Part:
    """A table's rows about the player: those whose ``columns`` hold the player's number, every
    column but ``omit`` and the secret ones (:func:`secret`)."""

    section: str
    columns: tuple[str, ...] = ("user_id",)
    omit: tuple[str, ...] = ()
    withheld: tuple[str, ...] = ()
    """Columns that name the player in rows that are another person's and stay theirs: who
    blocked the player is the blocker's private choice (docs/community.md)."""


PARTS: dict[str, Part] = {
    "users": Part("profile", ("id",), ("password_hash", "name_key")),
    "sessions": Part("sessions"),
    "api_tokens": Part("api_tokens"),
    "password_resets": Part("password_resets"),
    "mail_settings": Part("mail_settings"),
    "mail_outbox": Part("mail_log", omit=("body", "headers")),
    "decks": Part("decks", ("owner_id",), ("name_key",)),
    "games": Part("games", ("player1_id", "player2_id")),
    "invitations": Part("invitations", ("creator_id", "opponent_id")),
    "ratings": Part("ratings"),
    "rating_changes": Part("rating_history"),
    "tournaments": Part("tournaments_created", ("created_by",)),
    "tournament_entries": Part("tournament_entries"),
    "tournament_pairings": Part("tournament_boards", ("white_id", "black_id")),
    "game_analyses": Part("analyses_requested", ("requested_by",), ("result",)),
    "player_puzzles": Part("puzzle_rating"),
    "puzzle_attempts": Part("puzzle_attempts"),
    "lesson_progress": Part("lessons_solved"),
    "moderators": Part("moderator"),
    "reports": Part("reports", ("reporter_id", "target_id", "handled_by_id"), ("reporter_id", "handled_by_id", "text")),
    "moderation_actions": Part("moderation", ("moderator_id", "target_id"), ("moderator_id",)),
    "follows": Part("follows", ("follower_id", "followed_id")),
    "blocks": Part("blocking", ("blocker_id",), withheld=("blocked_id",)),
    "chat_messages": Part("chat_messages"),
    "chat_settings": Part("chat_settings"),
}
"""Table name -> where its rows about the player go. ``users``, ``games`` and ``invitations`` are
written by their own functions below (a player's view of a running game, no other player's deck);
a table not in the schema (yet) is passed over."""

NOT_ABOUT_PLAYERS: dict[str, str] = {}
"""Tables that refer to users but hold nothing about the person, each with the reason (none yet)."""


def secret(column: str) -> bool:
    """A column never exported, whatever its table: a hash of a password or a token, a secret."""
    return any(word in column for word in ("hash", "secret", "token"))


def _plain(value: Any) -> Any:
    return value.isoformat().replace("+00:00", "Z") if isinstance(value, datetime) else value


def user_tables() -> dict[str, list[str]]:
    """Every table of the schema with columns referring to ``users.id``: name -> those columns."""
    found: dict[str, list[str]] = {}
    for table in Base.metadata.sorted_tables:
        columns = [c.name for c in table.columns if any(fk.column.table.name == "users" for fk in c.foreign_keys)]
        if table.name == "users":
            columns = ["id"]
        if columns:
            found[table.name] = columns
    return found


async def _rows(db: AsyncSession, table: Table, part: Part, uid: int) -> list[dict[str, Any]]:
    keep = [c for c in table.columns if c.name not in part.omit and not secret(c.name)]
    query = select(*keep).where(or_(*(table.c[name] == uid for name in part.columns)))
    primary = list(table.primary_key.columns)
    rows = (await db.execute(query.order_by(*primary))).mappings().all()
    return [{key: _plain(value) for key, value in row.items()} for row in rows]


async def _names(db: AsyncSession, ids: set[int]) -> dict[int, str]:
    if not ids:
        return {}
    rows = (await db.execute(select(User.id, User.name).where(User.id.in_(ids)))).all()
    return {int(row[0]): str(row[1]) for row in rows}


async def _games(db: AsyncSession, games: GameService, uid: int) -> list[dict[str, Any]]:
    """The player's games: a finished one with its whole record, a running one as the player sees it."""
    rows = list(
        await db.scalars(select(Game).where(or_(Game.player1_id == uid, Game.player2_id == uid)).order_by(Game.id))
    )
    names = await _names(db, {p for g in rows for p in (g.player1_id, g.player2_id) if p is not None})

    def name(user_id: int | None, bot: str | None) -> str:
        if bot is not None:
            return BOT_NAMES.get(bot, f"{bot} bot")
        return names.get(user_id, "?") if user_id is not None else "?"

    out: list[dict[str, Any]] = []
    for g in rows:
        seat = 1 if g.player1_id == uid else 2
        item: dict[str, Any] = {
            "id": g.id,
            "seat": seat,
            "status": g.status,
            "mode": g.mode,
            "rated": g.rated,
            "public": g.public,
            "tournament_id": g.tournament_id,
            "created_at": _plain(g.created_at),
            "ended_at": _plain(g.ended_at),
        }
        if g.status == "over":
            record = notation.GameRecord(
                [list(d) for d in g.decks],
                g.seed,
                notation.parse_variant(g.variant),
                [name(g.player1_id, g.bot1), name(g.player2_id, g.bot2)],
                list(g.actions),
                g.result,
            )
            item["record"] = record.to_json()
        else:  # the seed and the decks stay hidden: the player's own view, as the game page has it
            try:
                rt = await games.runtime(g.id)
            except GameError:
                continue
            item["view"] = state_doc(rt, rt.seat_of(uid))
        out.append(item)
    return out


async def _invitations(db: AsyncSession, uid: int) -> list[dict[str, Any]]:
    """The player's invitations, made or received; a deck only where it is the player's own."""
    rows = list(
        await db.scalars(
            select(Invitation)
            .where(or_(Invitation.creator_id == uid, Invitation.opponent_id == uid))
            .order_by(Invitation.id)
        )
    )
    names = await _names(db, {p for i in rows for p in (i.creator_id, i.opponent_id) if p is not None})
    return [
        {
            "id": i.id,
            "creator": names.get(i.creator_id),
            "opponent": None if i.opponent_id is None else names.get(i.opponent_id),
            "status": i.status,
            "options": i.options,
            "created_at": _plain(i.created_at),
            "game_id": i.game_id,
            "creator_deck": i.creator_deck if i.creator_id == uid else None,
        }
        for i in rows
    ]


async def export(db: AsyncSession, games: GameService, user: User) -> dict[str, Any]:
    """Everything kept about ``user``, by section (see :data:`PARTS`)."""
    tables = Base.metadata.tables
    doc: dict[str, Any] = {"format": FORMAT, "version": VERSION, "made_at": _plain(utcnow())}
    for name, part in PARTS.items():
        if name == "games":
            doc[part.section] = await _games(db, games, user.id)
        elif name == "invitations":
            doc[part.section] = await _invitations(db, user.id)
        elif name in tables:
            rows = await _rows(db, tables[name], part, user.id)
            doc[part.section] = rows[0] if name == "users" else rows
    return doc

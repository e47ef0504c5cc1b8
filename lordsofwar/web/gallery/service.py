"""How each card fares in finished rated games, kept up to date cheaply (docs/learn.md, "The card
gallery").

For every card and every *side* of a counted game (a player of a finished rated game that was
not aborted): the side **held** the card when its deck listed it, **deployed** it when it played
a ``deploy`` of it at least once, and the deploying side's score counts 1 for a win, ½ for a draw
and 0 for a loss. The gallery shows the deploy share (deployed / held) once at least
:data:`MIN_SAMPLE` sides held the card, and the deploying sides' win rate (score / deployed) once
at least :data:`MIN_SAMPLE` sides deployed it, always with the sample size.

Who deployed a card is read from the decks: a card in only one of the two decks is its player's;
a card in both (a mirror match, mercenary decks) is attributed by replaying the game's record.

:class:`CardStats` counts each game once, when it is first seen finished: a refresh (at most
every :data:`REFRESH_S` seconds, on a page or API request) reads only the games that ended since
the last one (less an overlap of :data:`OVERLAP`, for transactions that commit late; a game
already counted is skipped by its id), in batches, and counts them in a thread.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import or_, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from lordsofwar.rules import notation
from lordsofwar.rules.cards import CORE, CardSet
from lordsofwar.rules.errors import LordsOfWarError
from lordsofwar.rules.result import Termination
from lordsofwar.web.models import Game

log = logging.getLogger("lordsofwar.web")

MIN_SAMPLE = 30
"""The fewest sides a figure is shown for (held, for the deploy share; deployed, for the win rate)."""

REFRESH_S = 300.0
"""Seconds between two refreshes of the figures (they are read from the cache in between)."""

OVERLAP = timedelta(minutes=10)
"""A refresh reads the games that ended this long before the latest one already counted."""

BATCH = 500


@dataclass
class Tally:
    """One card's counts over the counted sides."""

    held: int = 0
    deployed: int = 0
    score: float = 0.0

    def add(self, other: Tally) -> None:
        self.held += other.held
        self.deployed += other.deployed
        self.score += other.score


@dataclass(frozen=True)
class Finished:
    """What the figures need of one finished game."""

    id: int
    decks: Sequence[Sequence[str]]
    actions: Sequence[str]
    winner: int | None
    seed: int = 0
    variant: dict[str, Any] | None = None


def deployers(game: Finished, cards: CardSet = CORE) -> dict[int, set[str]]:
    """The cards each player deployed in ``game`` (by the decks, or by a replay where a deployed
    card was in both decks)."""
    decks = [set(game.decks[0]), set(game.decks[1])]
    out: dict[int, set[str]] = {1: set(), 2: set()}
    ambiguous = False
    for text in game.actions:
        parts = text.split()
        if len(parts) != 3 or parts[0] != "deploy":
            continue
        card = parts[1]
        in1, in2 = card in decks[0], card in decks[1]
        if in1 and in2:
            ambiguous = True
        elif in1:
            out[1].add(card)
        elif in2:
            out[2].add(card)
    if not ambiguous:
        return out
    out = {1: set(), 2: set()}
    pos = notation.deal(game.decks, game.seed, notation.parse_variant(game.variant or {}), cards)
    for text in game.actions:
        player = pos.decider
        action = notation.parse_action(text, pos)
        if action.kind == "deploy" and action.card is not None:
            out[player].add(action.card)
        pos.push(action)
    return out


def count(games: Iterable[Finished], cards: CardSet = CORE) -> tuple[dict[str, Tally], int]:
    """The tallies of ``games`` by card id, and how many games were counted (a record that does
    not replay is left out and logged)."""
    tallies: dict[str, Tally] = {}
    n = 0
    for game in games:
        try:
            deployed = deployers(game, cards)
        except (LordsOfWarError, ValueError, KeyError) as exc:
            log.warning("card figures: game %s left out: %s", game.id, exc)
            continue
        n += 1
        for p in (1, 2):
            score = 0.5 if game.winner is None else 1.0 if game.winner == p else 0.0
            for card in set(game.decks[p - 1]):
                t = tallies.setdefault(card, Tally())
                t.held += 1
                if card in deployed[p]:
                    t.deployed += 1
                    t.score += score
    return tallies, n


def figures(card: str, t: Tally | None) -> dict[str, Any]:
    """One card's entry of the API: the counts, and the two rates where the sample allows."""
    t = t or Tally()
    return {
        "card": card,
        "held": t.held,
        "deployed": t.deployed,
        "deploy_share": round(t.deployed / t.held, 4) if t.held >= MIN_SAMPLE else None,
        "win_rate": round(t.score / t.deployed, 4) if t.deployed >= MIN_SAMPLE else None,
    }


def _counted(stmt: Any) -> Any:
    """Finished rated games that were played (not aborted)."""
    return stmt.where(
        Game.status == "over",
        Game.rated.is_(True),
        or_(Game.termination.is_(None), Game.termination != Termination.ABORTED.value),
    )


class CardStats:
    """The figures of one server process (see the module text)."""

    def __init__(self, cards: CardSet = CORE, refresh_s: float = REFRESH_S):
        self.cards = cards
        self.refresh_s = refresh_s
        self.tallies: dict[str, Tally] = {}
        self.games = 0
        self.mark: datetime | None = None
        """The latest end of a counted game."""
        self.seen: dict[int, datetime] = {}
        """The counted games that ended within OVERLAP of ``mark`` (a later refresh reads them again)."""
        self.refreshed = -math.inf
        self.updated_at: datetime | None = None
        self._lock = asyncio.Lock()

    async def current(self, sessions: async_sessionmaker[AsyncSession]) -> dict[str, Any]:
        """The figures, refreshed first when the last refresh is older than ``refresh_s``."""
        if time.monotonic() - self.refreshed >= self.refresh_s:
            async with self._lock:
                if time.monotonic() - self.refreshed >= self.refresh_s:
                    async with sessions() as db:
                        await self.refresh(db)
                    self.refreshed = time.monotonic()
        return self.doc()

    async def refresh(self, db: AsyncSession) -> None:
        """Count the games that ended since the last refresh."""
        cols = (Game.id, Game.decks, Game.actions, Game.winner, Game.seed, Game.variant, Game.ended_at)
        stmt = _counted(select(*cols))
        if self.mark is not None:
            stmt = stmt.where(Game.ended_at >= self.mark - OVERLAP)
        stmt = stmt.order_by(Game.ended_at, Game.id).execution_options(yield_per=BATCH)
        result = await db.stream(stmt)
        async for rows in result.partitions(BATCH):
            batch = []
            for gid, decks, actions, winner, seed, variant, ended in rows:
                if gid in self.seen or ended is None:
                    continue
                self.seen[gid] = ended
                if self.mark is None or ended > self.mark:
                    self.mark = ended
                batch.append(Finished(gid, decks, actions, winner, seed, variant))
            if batch:
                tallies, n = await asyncio.to_thread(count, batch, self.cards)
                for card, t in tallies.items():
                    self.tallies.setdefault(card, Tally()).add(t)
                self.games += n
        if self.mark is not None:
            old = self.mark - OVERLAP
            self.seen = {g: at for g, at in self.seen.items() if at >= old}
        self.updated_at = datetime.now().astimezone()

    def doc(self) -> dict[str, Any]:
        return {
            "games": self.games,
            "min_sample": MIN_SAMPLE,
            "refresh_seconds": int(self.refresh_s),
            "updated_at": self.updated_at,
            "cards": [figures(c, self.tallies.get(c)) for c in self.cards],
        }

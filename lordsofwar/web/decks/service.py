"""Players' decks kept on the server: the store, its refusals, and the choice of a deck for a
game. The deck rules themselves live in lordsofwar.decks."""

from __future__ import annotations

import asyncio
import unicodedata
import weakref
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from lordsofwar import decks as rules
from lordsofwar.i18n import _
from lordsofwar.rules.cards import CORE, CORE_ARMIES, RANK_COUNTS, CardSet, rank_word
from lordsofwar.rules.errors import LordsOfWarError
from lordsofwar.web.decks.schemas import DeckChange, DeckCopy, DeckImport, NewDeck
from lordsofwar.web.models import Deck, User
from lordsofwar.web.problem import Problem

DECKS_PER_PLAYER = 100


# --- the store ---------------------------------------------------------------------------------


def clean_name(name: str) -> str:
    try:
        return rules.clean_name(name)
    except ValueError as exc:
        raise Problem(422, str(exc), code="name") from None


def known_cards(ids: list[str], cards: CardSet = CORE) -> None:
    """Refuses (422) the first card id that no card has, naming its place in the list."""
    for i, c in enumerate(ids, 1):
        try:
            cards.card(c)
        except LordsOfWarError as exc:
            raise Problem(422, _("card {n}: {problem}").format(n=i, problem=exc)) from None


def known_army(army: str) -> None:
    if army not in CORE_ARMIES:
        raise Problem(
            422, _("unknown army {army!r} (core armies: {known})").format(army=army[:20], known=", ".join(CORE_ARMIES))
        )


def checked_cards(ids: list[str], cards: CardSet = CORE) -> list[str]:
    """A draft as it may be kept: known cards, no rank over its count; in deck order."""
    known_cards(ids, cards)
    over = rules.draft_problem(ids, cards)
    if over:
        raise Problem(422, _("{problem} (clarifications 8.4)").format(problem=over))
    return sorted(ids, key=rules.sort_key(cards))


def armies_of(ids: list[str], cards: CardSet = CORE) -> list[str]:
    return sorted({cards.card(c).army for c in ids})


def summary(deck: Deck, cards: CardSet = CORE) -> dict[str, Any]:
    lacking = rules.missing(deck.cards, cards)
    return {
        "id": deck.id,
        "name": deck.name,
        "version": deck.version,
        "cards": list(deck.cards),
        "size": len(deck.cards),
        "complete": not lacking,
        "missing": lacking,
        "armies": armies_of(deck.cards, cards),
        "standard_army": cards.standard_army_of(deck.cards) if not lacking else None,
        "updated_at": deck.updated_at.isoformat(),
    }


def full(deck: Deck, cards: CardSet = CORE) -> dict[str, Any]:
    return {**summary(deck, cards), "created_at": deck.created_at.isoformat(), "analysis": rules.analyse(deck.cards, cards)}


async def owned(db: AsyncSession, user: User, deck_id: int) -> Deck:
    """The user's deck ``deck_id``; another player's deck is refused (403), a missing one 404."""
    deck = await db.get(Deck, deck_id)
    if deck is None:
        raise Problem(404, _("there is no deck {deck}").format(deck=deck_id))
    if deck.owner_id != user.id:
        raise Problem(403, _("deck {deck} belongs to another player").format(deck=deck_id))
    return deck


async def _name_taken(db: AsyncSession, user: User, name: str, but: int | None = None) -> bool:
    query = select(Deck.id).where(Deck.owner_id == user.id, Deck.name_key == rules.name_key(name))
    if but is not None:
        query = query.where(Deck.id != but)
    return (await db.scalar(query)) is not None


async def _free_name(db: AsyncSession, user: User, base: str) -> str:
    """``base``, or ``base (2)``, ``base (3)``... whichever is free among the user's decks."""
    base = clean_name(base)
    if not await _name_taken(db, user, base):
        return base
    for n in range(2, DECKS_PER_PLAYER + 2):
        suffix = f" ({n})"
        name = base[: rules.NAME_LIMIT - len(suffix)] + suffix
        if not await _name_taken(db, user, name):
            return name
    raise Problem(409, _("you already have decks called {name!r} and every numbered copy of it").format(name=base))


_adding: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()


async def _add(db: AsyncSession, user: User, name: str, ids: list[str]) -> Deck:
    """Keep a new deck. A player's new decks are added one at a time, so the deck limit holds:
    in this process by a lock per player, across processes by locking the player's row
    (PostgreSQL; SQLite runs one server process)."""
    lock = _adding.get(user.id)
    if lock is None:
        lock = _adding[user.id] = asyncio.Lock()
    async with lock:
        await db.execute(select(User.id).where(User.id == user.id).with_for_update())
        count = await db.scalar(select(func.count()).select_from(Deck).where(Deck.owner_id == user.id))
        if (count or 0) >= DECKS_PER_PLAYER:
            await db.rollback()
            raise Problem(409, _("you have {n} decks, the most a player may keep; delete one first").format(n=DECKS_PER_PLAYER))
        if await _name_taken(db, user, name):
            await db.rollback()
            raise Problem(409, _("you already have a deck called {name!r}").format(name=name), code="name")
        now = datetime.now(UTC)
        deck = Deck(
            owner_id=user.id, name=name, name_key=rules.name_key(name), cards=ids, version=1, created_at=now, updated_at=now
        )
        db.add(deck)
        try:
            await db.commit()
        except IntegrityError:  # the same name, saved meanwhile from another process
            await db.rollback()
            raise Problem(409, _("you already have a deck called {name!r}").format(name=name), code="name") from None
        return deck


async def create(db: AsyncSession, user: User, body: NewDeck) -> Deck:
    name = clean_name(body.name)
    if body.army is not None and body.cards is not None:
        raise Problem(422, _("start from an army or from a list of cards, not both"))
    if body.army is not None:
        known_army(body.army)
        ids = CORE.standard_deck(body.army)
    else:
        ids = checked_cards(list(body.cards or []))
    return await _add(db, user, name, sorted(ids, key=rules.sort_key(CORE)))


async def change(db: AsyncSession, user: User, deck_id: int, body: DeckChange) -> Deck:
    deck = await owned(db, user, deck_id)
    name = clean_name(body.name)
    ids = checked_cards(list(body.cards))
    if body.version != deck.version:
        raise Problem(
            409,
            _("the deck was changed elsewhere (you edited version {version}, it is now {current}): reload it").format(
                version=body.version, current=deck.version
            ),
            code="stale",
        )
    if await _name_taken(db, user, name, but=deck.id):
        raise Problem(409, _("you already have a deck called {name!r}").format(name=name), code="name")
    from sqlalchemy import update

    try:
        done = await db.execute(
            update(Deck)
            .where(Deck.id == deck.id, Deck.version == body.version)
            .values(
                name=name, name_key=rules.name_key(name), cards=ids, version=body.version + 1, updated_at=datetime.now(UTC)
            )
        )
        if done.rowcount != 1:  # type: ignore[attr-defined]
            await db.rollback()
            raise Problem(409, _("the deck was changed elsewhere meanwhile: reload it"), code="stale")
        await db.commit()
    except IntegrityError:  # another deck took the name meanwhile
        await db.rollback()
        raise Problem(409, _("you already have a deck called {name!r}").format(name=name), code="name") from None
    await db.refresh(deck)
    return deck


async def copy(db: AsyncSession, user: User, deck_id: int, body: DeckCopy) -> Deck:
    deck = await owned(db, user, deck_id)
    if body.name is not None:
        name = clean_name(body.name)
    else:
        copied = _("{name} (copy)")
        name = await _free_name(db, user, copied.format(name=deck.name[: rules.NAME_LIMIT - len(copied.format(name=""))]))
    return await _add(db, user, name, list(deck.cards))


async def delete(db: AsyncSession, user: User, deck_id: int) -> None:
    deck = await owned(db, user, deck_id)
    await db.delete(deck)
    await db.commit()


async def import_deck(db: AsyncSession, user: User, body: DeckImport) -> Deck:
    try:
        parsed = rules.parse(body.text, CORE)
    except LordsOfWarError as exc:
        raise Problem(422, _("the file was not imported: {problem}").format(problem=exc)) from None
    over_at = rules.first_over(parsed.cards, CORE)
    if over_at is not None:
        card = CORE.card(parsed.cards[over_at])
        raise Problem(
            422,
            _(
                "the file was not imported: line {line} (card {n}): {card} ({name}) is "
                "one {rank} card too many (a deck holds {count}) (clarifications 8.4)"
            ).format(
                line=parsed.lines[over_at],
                n=over_at + 1,
                card=card.id,
                name=card.name,
                rank=rank_word(card.rank),
                count=RANK_COUNTS[card.rank],
            ),
        )
    if body.name is not None and body.name.strip():
        name = clean_name(body.name)
    else:
        name = await _free_name(db, user, parsed.name or _("Imported deck"))
    return await _add(db, user, name, sorted(parsed.cards, key=rules.sort_key(CORE)))


async def list_decks(db: AsyncSession, user: User) -> list[Deck]:
    return list(await db.scalars(select(Deck).where(Deck.owner_id == user.id).order_by(Deck.name_key)))


class Choices:
    """A player's decks, each with why it cannot be used in a game allowing given armies (or
    None), for many invitations: worked out once per set of allowed armies."""

    def __init__(self, decks: list[Deck]):
        self.decks = decks
        self.known: dict[frozenset[str], list[dict[str, Any]]] = {}

    def __call__(self, allowed_armies: list[str]) -> list[dict[str, Any]]:
        key = frozenset(allowed_armies)
        if key not in self.known:
            self.known[key] = [
                {"id": d.id, "name": d.name, "problem": rules.game_problem(d.cards, CORE, sorted(key))}
                for d in self.decks
            ]
        return [dict(c) for c in self.known[key]]


async def pick(db: AsyncSession, user: User, deck_id: int, custom_decks: bool, allowed: list[str]) -> dict[str, Any]:
    """The copy of ``deck_id`` that goes into a game with these options: {"name", "cards"}."""
    if not custom_decks:
        raise Problem(409, _("this game does not allow custom decks: you play a core army's standard deck"))
    deck = await owned(db, user, deck_id)
    problem = rules.game_problem(deck.cards, CORE, allowed)
    if problem:
        raise Problem(409, _("your deck {name!r} does not fit this game: {problem}").format(name=deck.name, problem=problem))
    return {"name": deck.name, "cards": list(deck.cards)}


def attachment(name: str, ext: str) -> str:
    """A Content-Disposition for a deck's file: an ASCII file name, and the real one (RFC 6266)."""
    plain = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    stem = "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in plain).strip("-") or "deck"
    return f"attachment; filename=\"{stem}.{ext}\"; filename*=UTF-8''{quote(name + '.' + ext, safe='')}"

"""Card facts, card packs and deck validation.

The core cards live in ``data/<army>.json`` in the project's own card schema (see
``docs/cards.md``). A *card pack* is a JSON file in the same schema that adds cards (for
example expansion units, possibly with movement arrows) to the core set.
"""

from __future__ import annotations

import contextlib
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic_core import PydanticCustomError

from lordsofwar.rules.errors import CardPackError, DeckError, UnknownCardError, read_json
from lordsofwar.rules.i18n import N_, _

DIRECTIONS: tuple[str, ...] = ("F", "FR", "R", "BR", "B", "BL", "L", "FL")
"""The eight directions of attacks and moves, in the card's own frame, clockwise from the front."""

RANKS: tuple[str, ...] = ("general", "command", "special", "elite", "veteran", "regular", "recruit")
CLASSES: tuple[str, ...] = ("infantry", "cavalry", "berserker", "spear", "ranged")
CORE_ARMIES: tuple[str, ...] = ("orcs", "dwarves", "elves", "lizardmen", "templars", "undead")

DECK_SIZE = 36
RANK_COUNTS: dict[str, int] = {
    "general": 1,
    "command": 5,
    "special": 4,
    "elite": 4,
    "veteran": 6,
    "regular": 8,
    "recruit": 8,
}
"""Cards of each rank in a deck (clarifications 8.4)."""

RANK_WORDS: dict[str, str] = {
    # TRANSLATORS: a rank inside a sentence, as in "the elite rank is full" or "3 elite cards"
    "general": N_("general"),
    "command": N_("command"),
    "special": N_("special"),
    "elite": N_("elite"),
    "veteran": N_("veteran"),
    "regular": N_("regular"),
    "recruit": N_("recruit"),
}
"""Each rank as a word inside a message (English: the data's key), translated by :func:`rank_word`."""


def rank_word(rank: str) -> str:
    """``rank`` inside a message, in the current language (a rank not listed: as it is)."""
    return _(RANK_WORDS[rank]) if rank in RANK_WORDS else rank


CARD_ID_RE = re.compile(r"^([a-z][a-z0-9_-]{0,31}):([0-9]{2,3})$")
_ATTACK_RE = re.compile(r"^(FR|FL|BR|BL|F|B|L|R)([0-9]+)$")


@dataclass(frozen=True, slots=True)
class Ranged:
    """A ranged weapon: damage per shot and the target squares as (right, forward) offsets."""

    damage: int
    targets: tuple[tuple[int, int], ...]


@dataclass(frozen=True, slots=True)
class Card:
    """One printed card design. ``attacks`` holds only directions with a value above 0."""

    id: str
    army: str
    name: str
    rank: str
    cls: str
    defence: int
    attacks: Mapping[str, int]
    ranged: Ranged | None = None
    moves: tuple[str, ...] = ()
    erratum: str | None = None
    number: int = field(default=0, compare=False)

    @property
    def is_command(self) -> bool:
        """Command units are the general plus the command-rank cards."""
        return self.rank in ("general", "command")

    @property
    def is_support(self) -> bool:
        """Spear and ranged units are support units."""
        return self.cls in ("spear", "ranged")

    def facts(self) -> dict[str, Any]:
        """The card's facts in the shape of notation.md section 1."""
        return {
            "id": self.id,
            "army": self.army,
            "name": self.name,
            "rank": self.rank,
            "class": self.cls,
            "defence": self.defence,
            "attacks": {d: self.attacks[d] for d in DIRECTIONS if d in self.attacks},
            "ranged": None
            if self.ranged is None
            else {"damage": self.ranged.damage, "targets": [list(t) for t in self.ranged.targets]},
            "moves": list(self.moves),
        }


# --- the card file schema -------------------------------------------------------------------


class _RangedModel(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    damage: int = Field(ge=1, le=99)
    grid: list[str] = Field(min_length=1, max_length=15)

    @field_validator("grid")
    @classmethod
    def _grid_shape(cls, rows: list[str]) -> list[str]:
        width = len(rows[0])
        if width == 0 or width > 15:
            raise ValueError("rows must hold 1 to 15 characters")
        if any(len(r) != width for r in rows):
            raise ValueError("every row must have the same length")
        if any(ch not in ".#U" for r in rows for ch in r):
            raise ValueError("only '.', '#' and one 'U' (the unit itself) may appear")
        if sum(r.count("U") for r in rows) != 1:
            raise ValueError("exactly one 'U' (the unit itself) must appear")
        if not any("#" in r for r in rows):
            raise ValueError("at least one target square '#' is needed")
        return rows


def _one_of(allowed: tuple[str, ...]) -> AfterValidator:
    """A validator that takes only a value of ``allowed`` (refused as pydantic refuses a literal)."""

    def check(value: str) -> str:
        if value not in allowed:
            expected = ", ".join(repr(a) for a in allowed)
            raise PydanticCustomError("literal_error", "Input should be one of {expected}", {"expected": expected})
        return value

    return AfterValidator(check)


_Rank = Annotated[str, _one_of(RANKS)]
_Class = Annotated[str, _one_of(CLASSES)]


class _CardModel(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, strict=True)
    id: str = Field(max_length=40)
    name: str = Field(min_length=1, max_length=80)
    rank: _Rank
    cls: _Class = Field(alias="class")
    defence: int = Field(ge=0, le=99)
    attacks: str = Field(default="", max_length=80)
    ranged: _RangedModel | None = None
    moves: str = Field(default="", max_length=40)
    erratum: str | None = Field(default=None, max_length=500)

    @field_validator("id")
    @classmethod
    def _id_shape(cls, value: str) -> str:
        if not CARD_ID_RE.fullmatch(value):
            raise ValueError("must look like '<army>:<nn>', e.g. 'orcs:07'")
        return value

    @model_validator(mode="before")
    @classmethod
    def _old_key(cls, data: Any) -> Any:
        if isinstance(data, dict) and "arrows" in data:
            raise PydanticCustomError(
                "renamed_field",
                "the old name of '{new}': write '{new}' instead (the same value, e.g. 'F4 FR2')",
                {"old": "arrows", "new": "attacks"},
            )
        return data

    @field_validator("attacks")
    @classmethod
    def _attacks_shape(cls, value: str) -> str:
        seen: set[str] = set()
        for token in value.split():
            m = _ATTACK_RE.fullmatch(token)
            if not m:
                raise ValueError(f"bad attack {token!r}: write a direction and a value, e.g. 'FL3'")
            if m.group(1) in seen:
                raise ValueError(f"direction {m.group(1)} appears twice")
            if not 0 <= int(m.group(2)) <= 99:
                raise ValueError(f"attack value out of range in {token!r}")
            seen.add(m.group(1))
        return value

    @field_validator("moves")
    @classmethod
    def _moves_shape(cls, value: str) -> str:
        tokens = value.split()
        for token in tokens:
            if token not in DIRECTIONS:
                raise ValueError(f"bad movement direction {token!r}: use F, FR, R, BR, B, BL, L or FL")
        if len(set(tokens)) != len(tokens):
            raise ValueError("a movement direction appears twice")
        return value


class _CardFileModel(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    format: Literal["lordsofwar-cards"]
    version: int

    @field_validator("version")
    @classmethod
    def _version_one(cls, value: int) -> int:
        if value != 1:
            raise ValueError(
                f"this reader understands version 1, got {value if abs(value) < 10**9 else 'a huge number'}"
            )
        return value

    title: str = Field(default="", max_length=200)
    cards: list[_CardModel] = Field(max_length=5000)


def _card_from_model(m: _CardModel) -> Card:
    match = CARD_ID_RE.fullmatch(m.id)
    assert match is not None
    attacks: dict[str, int] = {}
    for token in m.attacks.split():
        am = _ATTACK_RE.fullmatch(token)
        assert am is not None
        if int(am.group(2)) > 0:
            attacks[am.group(1)] = int(am.group(2))
    ranged = None
    if m.ranged is not None:
        rows = m.ranged.grid
        urow = next(i for i, r in enumerate(rows) if "U" in r)
        ucol = rows[urow].index("U")
        targets = tuple((col - ucol, urow - row) for row, r in enumerate(rows) for col, ch in enumerate(r) if ch == "#")
        ranged = Ranged(m.ranged.damage, targets)
    return Card(
        id=m.id,
        army=match.group(1),
        name=m.name,
        rank=m.rank,
        cls=m.cls,
        defence=m.defence,
        attacks=attacks,
        ranged=ranged,
        moves=tuple(m.moves.split()),
        erratum=m.erratum,
        number=int(match.group(2)),
    )


def _describe_validation_error(source: str, doc: Any, err: ValidationError) -> str:
    first = err.errors()[0]
    loc = list(first["loc"])
    where = ""
    if len(loc) >= 2 and loc[0] == "cards" and isinstance(loc[1], int):
        index = loc[1]
        card_id = None
        with contextlib.suppress(KeyError, IndexError, TypeError, AttributeError):
            card_id = doc["cards"][index].get("id")
        where = f"card {card_id!r}" if isinstance(card_id, str) else f"card #{index + 1}"
        loc = loc[2:]
    field_name = ".".join(str(p) if not isinstance(p, int) else f"[{p}]" for p in loc) or "(card)"
    if field_name == "cls":
        field_name = "class"
    if first["type"] == "renamed_field":
        field_name = first["ctx"]["old"]
    msg = first["msg"].removeprefix("Value error, ")
    if first["type"] == "missing":
        msg = "is missing"
    elif first["type"] == "extra_forbidden":
        msg = "is not a known field"
    parts = [source]
    if where:
        parts.append(where)
    parts.append(f"field {field_name!r}: {msg}")
    return ": ".join(parts)


def parse_card_file(text: str, source: str) -> list[Card]:
    """Read a card file (core data or a card pack); errors name the file, the card and the field."""
    doc = read_json(text, CardPackError, source)
    if not isinstance(doc, dict):
        raise CardPackError(f"{source}: expected a JSON object with 'format', 'version' and 'cards'")
    try:
        model = _CardFileModel.model_validate(doc)
    except ValidationError as exc:
        raise CardPackError(_describe_validation_error(source, doc, exc)) from None
    cards = [_card_from_model(m) for m in model.cards]
    seen: set[str] = set()
    for card in cards:
        if card.id in seen:
            raise CardPackError(f"{source}: card {card.id!r}: field 'id': appears twice in the file")
        seen.add(card.id)
    return cards


# --- card sets ------------------------------------------------------------------------------


class CardSet(Mapping[str, Card]):
    """An immutable set of card designs by id: the core cards plus any loaded packs."""

    def __init__(self, cards: Iterable[Card]):
        self._cards: dict[str, Card] = {}
        for card in cards:
            self._cards[card.id] = card
        self._armies: dict[str, list[Card]] = {}
        for card in self._cards.values():
            self._armies.setdefault(card.army, []).append(card)
        for army_cards in self._armies.values():
            army_cards.sort(key=lambda c: c.number)
        self.command_ids: frozenset[str] = frozenset(c.id for c in self._cards.values() if c.is_command)
        """Ids of the command units (general and command rank)."""

    def __getitem__(self, card_id: str) -> Card:
        return self._cards[card_id]

    def __iter__(self) -> Iterator[str]:
        return iter(self._cards)

    def __len__(self) -> int:
        return len(self._cards)

    def card(self, card_id: str) -> Card:
        """The card with this id, or :class:`UnknownCardError` naming it."""
        try:
            return self._cards[card_id]
        except (KeyError, TypeError):
            if isinstance(card_id, str):
                raise UnknownCardError(_("unknown card {card}").format(card=repr(card_id))) from None
            raise UnknownCardError(
                _("unknown card {type} value (expected an id such as 'orcs:07')").format(type=type(card_id).__name__)
            ) from None

    @property
    def armies(self) -> list[str]:
        """Armies with at least one card, core armies first."""
        core = [a for a in CORE_ARMIES if a in self._armies]
        return core + sorted(a for a in self._armies if a not in CORE_ARMIES)

    def army(self, name: str) -> list[Card]:
        """The cards of one army in card-number order."""
        if name not in self._armies:
            raise UnknownCardError(
                _("unknown army {army} (known: {armies})").format(army=repr(name), armies=", ".join(self.armies))
            )
        return list(self._armies[name])

    def standard_deck(self, army: str) -> list[str]:
        """The 36 card ids of a core army's standard deck (8.4)."""
        cards = self.army(army)
        deck = [c.id for c in cards]
        if len(deck) != DECK_SIZE:
            raise DeckError(
                _("army {army} has {n} cards, not a {size}-card deck").format(
                    army=repr(army), n=len(deck), size=DECK_SIZE
                )
            )
        return deck

    def with_pack(self, path: str | Path) -> CardSet:
        """A new card set with the cards of the pack file at ``path`` added."""
        p = Path(path)
        try:
            text = p.read_text(encoding="utf-8")
        except OSError as exc:
            raise CardPackError(f"{p}: cannot read the file: {exc.strerror}") from None
        except UnicodeDecodeError:
            raise CardPackError(f"{p}: not UTF-8 text") from None
        return self.with_cards(parse_card_file(text, str(p)), str(p))

    def with_cards(self, cards: Iterable[Card], source: str = "card pack") -> CardSet:
        """A new card set with ``cards`` added; an id already present is refused."""
        new = list(cards)
        for card in new:
            if card.id in self._cards:
                raise CardPackError(f"{source}: card {card.id!r}: field 'id': already defined by another card set")
        return CardSet([*self._cards.values(), *new])

    def validate_deck(
        self,
        deck: Iterable[str],
        allowed_armies: Iterable[str] | None = None,
        custom: bool = True,
    ) -> list[str]:
        """Check a deck against 8.4 and return it as a list of ids.

        ``custom`` False means only a standard core-army deck is accepted. ``allowed_armies``
        restricts the armies a custom deck may draw from (None: any).
        """
        ids = list(deck)
        for card_id in ids:
            self.card(card_id)
        if len(ids) != DECK_SIZE:
            raise DeckError(_("a deck holds {size} cards, this one holds {n}").format(size=DECK_SIZE, n=len(ids)))
        counts = Counter(self._cards[c].rank for c in ids)
        problems = []
        for rank in RANKS:
            have, need = counts.get(rank, 0), RANK_COUNTS[rank]
            if have > need:
                problems.append(
                    _("{have} {rank} cards ({over} over the {need} allowed)").format(
                        have=have, rank=rank_word(rank), over=have - need, need=need
                    )
                )
            elif have < need:
                problems.append(
                    _("{have} {rank} cards ({under} under the {need} needed)").format(
                        have=have, rank=rank_word(rank), under=need - have, need=need
                    )
                )
        if problems:
            # TRANSLATORS: {problems} is a list of phrases such as "3 elite cards (1 under the 4 needed)"
            raise DeckError(_("the deck has {problems} (clarifications 8.4)").format(problems="; ".join(problems)))
        allowed = None if allowed_armies is None else set(allowed_armies)
        if allowed is not None:
            for card_id in ids:
                army = self._cards[card_id].army
                if army not in allowed:
                    raise DeckError(
                        _("{card} is from army {army}, which this game does not allow (allowed: {allowed})").format(
                            card=card_id, army=repr(army), allowed=", ".join(sorted(allowed))
                        )
                    )
        if not custom and self.standard_army_of(ids) is None:
            raise DeckError(
                _("this game allows only standard army decks, and this deck is a custom one (clarifications 8.4)")
            )
        return ids

    def standard_army_of(self, deck: Iterable[str]) -> str | None:
        """The core army whose standard deck this is, or None for a custom deck."""
        counted = Counter(deck)
        for army in self.armies:
            cards = self._armies[army]
            if len(cards) == DECK_SIZE and counted == Counter(c.id for c in cards):
                return army
        return None


def _load_core() -> CardSet:
    cards: list[Card] = []
    base = resources.files("lordsofwar.rules").joinpath("data")
    for army in CORE_ARMIES:
        text = base.joinpath(f"{army}.json").read_text(encoding="utf-8")
        cards.extend(parse_card_file(text, f"data/{army}.json"))
    return CardSet(cards)


CORE: CardSet = _load_core()
"""The 216 cards of the six core armies."""


def load_card_set(packs: Iterable[str | Path] = ()) -> CardSet:
    """The core cards plus the given card pack files, in order."""
    cards = CORE
    for pack in packs:
        cards = cards.with_pack(pack)
    return cards

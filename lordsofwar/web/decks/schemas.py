"""Request bodies of the deck API (strict JSON). Their OpenAPI description declares every rule the
service checks on them: known card ids and armies, the count of each rank in a deck, and a deck
name's length and characters (lordsofwar.decks.clean_name)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from lordsofwar import decks as rules
from lordsofwar.rules.cards import CORE, CORE_ARMIES, DECK_SIZE, RANK_COUNTS, RANKS
from lordsofwar.web.fields import Declared, WholeNumber, categories, spaces
from lordsofwar.web.middleware import BODY_LIMIT

CARD_IDS = [c.id for army in CORE.armies for c in CORE.army(army)]
TEXT_LIMIT = BODY_LIMIT // 16
"""The longest deck file the API takes (4096 characters; an exported deck has about 2200): a body
carrying it stays under the body limit even with every character escaped (at most 12 bytes)."""


def deck_name_pattern() -> str:
    """What :func:`lordsofwar.decks.clean_name` keeps: no hidden character, and one that is
    neither hidden nor white space."""
    hidden = categories("Cc", "Cf", "Cs")
    return f"^[^{hidden}]*[^{hidden}{spaces()}][^{hidden}]*$"


def _name() -> dict[str, Any]:
    return {"maxLength": rules.NAME_LIMIT, "pattern": deck_name_pattern()}


def _blank() -> dict[str, Any]:
    return {"pattern": f"^[{spaces()}]*$"}


def _ranks() -> dict[str, Any]:
    of_rank = {r: [c for c in CARD_IDS if CORE.card(c).rank == r] for r in RANKS}
    return {
        "allOf": [{"contains": {"enum": of_rank[r]}, "minContains": 0, "maxContains": RANK_COUNTS[r]} for r in RANKS]
    }


DeckName = Annotated[
    str,
    Field(max_length=200, description="at most 40 characters, no control or invisible ones (docs/decks.md)"),
    Declared(_name),
]
CardId = Annotated[str, Field(max_length=20), Declared(lambda: {"enum": CARD_IDS})]
Army = Annotated[str, Field(max_length=20), Declared(lambda: {"enum": list(CORE_ARMIES)})]
Draft = Annotated[
    list[CardId],
    Field(max_length=DECK_SIZE, description=f"card ids, at most {DECK_SIZE}, no rank over its count in a deck"),
    Declared(_ranks),
]
"""The cards of a deck as it may be kept: known ids, no rank over its count (clarifications 8.4)."""


class NewDeck(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        strict=True,
        json_schema_extra={  # an army or cards, not both
            "not": {
                "required": ["army", "cards"],
                "properties": {"army": {"type": "string"}, "cards": {"type": "array"}},
            }
        },
    )
    name: DeckName
    army: Army | None = Field(None, description="start from this core army's standard deck")
    cards: Draft | None = Field(None, description="start from these cards")


class DeckChange(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    name: DeckName
    cards: Draft
    version: WholeNumber


class DeckCopy(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    name: DeckName | None = Field(None, description="the copy's name (else the original's, with '(copy)')")


class DeckImport(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    text: str = Field(max_length=TEXT_LIMIT, description="a deck file, plain text or JSON (docs/decks.md)")
    name: DeckName | Annotated[str, Field(max_length=200), Declared(_blank)] | None = Field(
        None, description="the deck's name; blank or null: the name in the file, else 'Imported deck'"
    )


class Analyse(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    cards: list[CardId] = Field(max_length=2 * DECK_SIZE)
    allowed_armies: list[Army] | None = Field(None, max_length=20)


# --- answers (extra="forbid": a field the service adds without declaring it here is an error,
# never dropped in silence; tests/web/test_response_models.py) -------------------------------------


class RankCount(BaseModel):
    model_config = ConfigDict(extra="forbid")
    have: int = Field(ge=0)
    need: int = Field(ge=0, description="the count of this rank in a deck")


class DeckStats(BaseModel):
    """The editor's figures for a deck or draft."""

    model_config = ConfigDict(extra="forbid")
    cards: int = Field(ge=0)
    ranks: dict[str, RankCount] = Field(description="per rank, general first: the cards there are and the count wanted")
    classes: dict[str, int] = Field(description="cards per unit class")
    armies: dict[str, int] = Field(description="cards per army, most first")
    average_defence: float | None = Field(description="null for no cards")
    attacks: dict[str, int] = Field(description="the sum of the attack values per direction (F, FR, R, BR, B, BL, L, FL)")
    attack_total: int
    ranged_units: int
    ranged_damage: int
    support_units: int
    support_share: float | None = Field(description="support units over all cards; null for no cards")
    command_units: int


class DeckAnalysis(BaseModel):
    """What the editor shows about a list of cards."""

    model_config = ConfigDict(extra="forbid")
    complete: bool
    missing: list[str] = Field(description="what it still lacks, a phrase per rank (in the request's language)")
    over: str | None = Field(description="the ranks over their count, in words, or null")
    standard_army: str | None = Field(description="the core army whose standard deck this is, or null")
    game_problem: str | None = Field(description="why a game allowing the armies asked for could not use it, or null")
    stats: DeckStats


class DeckSummary(BaseModel):
    """A deck as listed (the lobby leaves its cards out)."""

    model_config = ConfigDict(extra="forbid")
    id: int
    name: str
    version: int = Field(description="rises by one with each change; send it back to change the deck")
    size: int = Field(ge=0)
    complete: bool
    missing: list[str]
    armies: list[str] = Field(description="the armies of its cards")
    standard_army: str | None = Field(description="the core army whose standard deck this is, or null")
    updated_at: str = Field(description="ISO time")


class DeckListed(DeckSummary):
    cards: list[str] = Field(description="card ids")


class DeckDetail(DeckListed):
    created_at: str = Field(description="ISO time")
    analysis: DeckAnalysis


class DeckList(BaseModel):
    model_config = ConfigDict(extra="forbid")
    decks: list[DeckListed]
    limit: int = Field(description="how many decks a player may keep")


class DeckDeleted(BaseModel):
    model_config = ConfigDict(extra="forbid")
    deleted: int = Field(description="the deck deleted")

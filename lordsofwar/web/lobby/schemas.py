"""Request bodies of the lobby API (strict JSON: no string for a number, no number for a flag).
Their OpenAPI description declares the rules the lobby checks on them: the known bots, a player
or a bot but not both, hints only with a bot, a deck only with accepting, and at least one army
for custom decks."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from lordsofwar.bots import BOTS
from lordsofwar.web.fields import AS_WHOLE, Declared, spaces
from lordsofwar.web.games.service import GameOptions

DeckNumber = Annotated[int, Field(ge=1, le=2**31 - 1), AS_WHOLE]


def _one_opponent() -> dict[str, Any]:
    """A bot and a (not blank) player's name are refused together."""
    named = {"type": "string", "pattern": f"[^{spaces()}]"}
    return {"not": {"required": ["bot", "opponent"], "properties": {"bot": {"type": "string"}, "opponent": named}}}


def _hints_with_a_bot() -> dict[str, Any]:
    """Hints only in a game against a bot: options.hints true needs a bot named."""
    return {
        "if": {"required": ["options"], "properties": {"options": {"required": ["hints"], "properties": {"hints": {"const": True}}}}},
        "then": {"required": ["bot"], "properties": {"bot": {"type": "string"}}},
    }


def some_army() -> dict[str, Any]:
    """GameOptions' own rule: custom decks need at least one army."""
    return {
        "not": {
            "required": ["custom_decks", "custom_armies"],
            "properties": {"custom_decks": {"const": True}, "custom_armies": {"maxItems": 0}},
        }
    }


class NewInvitation(BaseModel):
    model_config = ConfigDict(
        extra="forbid", strict=True,
        json_schema_extra=lambda schema: schema.update({**_one_opponent(), **_hints_with_a_bot()}),
    )
    options: Annotated[GameOptions, Declared(some_army)] = Field(default_factory=lambda: GameOptions())
    opponent: str | None = Field(None, max_length=100, description="a player's name for a direct challenge")
    bot: Annotated[str, Declared(lambda: {"enum": list(BOTS)})] | None = Field(
        None, max_length=20, description="play against this bot at once"
    )
    deck: DeckNumber | None = Field(None, description="your custom deck (when the options allow custom decks)")


class Answer(BaseModel):
    """Accepting: with one of your decks, or the standard deck of your army."""

    model_config = ConfigDict(extra="forbid", strict=True)
    deck: DeckNumber | None = Field(None, description="your custom deck, to accept with it")


class NoDeck(BaseModel):
    """Declining or cancelling: a deck goes with accepting only (400)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    deck: Annotated[Any, Declared(lambda: {"type": "null"})] = Field(None, description="null, or leave it out")


class Created(BaseModel):
    game: int | None = Field(default=None, description="the game started at once (against a bot)")
    invitation: int | None = Field(default=None, description="the invitation posted")


class Answered(BaseModel):
    game: int | None = Field(description="the game started by accepting, else null")


class WaitingGame(BaseModel):
    id: int = Field(description="the game")
    opponent: str = Field(description="the other player's name (a bot's name for a bot)")
    mode: Literal["live", "turn"] = Field(description="live or turn-based")
    since: datetime = Field(
        description="when the running clock began: when the game came to you, or in a live game your last action in this turn"
    )
    deadline: datetime | None = Field(description="when you lose on time if you do not act (null: none)")


class Waiting(BaseModel):
    """The running games waiting for you to act: the turn counter of every page."""

    count: int = Field(ge=0, description="how many games wait for you (all of them)")
    games: list[WaitingGame] = Field(description="those games, longest waiting first (at most 50)")

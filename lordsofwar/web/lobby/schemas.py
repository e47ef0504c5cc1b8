"""Request bodies of the lobby API (strict JSON: no string for a number, no number for a flag).
Their OpenAPI description declares the rules the lobby checks on them: the known bots, a player
or a bot but not both, hints only with a bot, a deck only with accepting, and at least one army
for custom decks."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from lordsofwar.bots import BOTS
from lordsofwar.web.decks.schemas import DeckSummary
from lordsofwar.web.fields import AS_WHOLE, Declared, spaces
from lordsofwar.web.games.schemas import Army, CoreArmy, GameOptions, ResultCode

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
    model_config = ConfigDict(extra="forbid")
    game: int | None = Field(default=None, description="the game started at once (against a bot)")
    invitation: int | None = Field(default=None, description="the invitation posted")


class Answered(BaseModel):
    model_config = ConfigDict(extra="forbid")
    game: int | None = Field(description="the game started by accepting, else null")


class WaitingGame(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: int = Field(description="the game")
    opponent: str = Field(description="the other player's name (a bot's name for a bot)")
    mode: Literal["live", "turn"] = Field(description="live or turn-based")
    since: datetime = Field(
        description="when the running clock began: when the game came to you, or in a live game your last action in this turn"
    )
    deadline: datetime | None = Field(description="when you lose on time if you do not act (null: none)")


class Waiting(BaseModel):
    """The running games waiting for you to act: the turn counter of every page."""

    model_config = ConfigDict(extra="forbid")
    count: int = Field(ge=0, description="how many games wait for you (all of them)")
    games: list[WaitingGame] = Field(description="those games, longest waiting first (at most 50)")


# --- the lobby's answer (extra="forbid": a field the service adds without declaring it here is an
# error, never dropped in silence; tests/web/test_response_models.py) -----------------------------


class InvitationOptions(BaseModel):
    """An invitation's options as kept: every field of the invitation's ``options``."""

    model_config = ConfigDict(extra="forbid")
    rules: Literal["basic", "intermediate"]
    hands: Literal["hidden", "visible"]
    mat: Literal["bordered", "unbordered"]
    length: Literal["15/3", "20/4", "25/5"]
    creator_army: Army
    opponent_army: Army
    custom_decks: bool
    custom_armies: list[CoreArmy]
    mode: Literal["live", "turn"]
    minutes: int
    increment: int
    days: int
    creator_side: Literal["1", "2", "random"]
    public: bool
    rated: bool
    hints: bool


class DeckChoice(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: int = Field(description="one of your decks")
    name: str
    problem: str | None = Field(description="why it cannot be played in this game, or null")


class LobbyInvitation(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: int
    creator: str | None
    opponent: str | None = Field(description="the player challenged, or null for an open challenge")
    options: InvitationOptions
    summary: str = Field(description="the options in a few words, in the request's language")
    status: Literal["open", "accepted", "declined", "cancelled"]
    game: int | None = Field(description="the game it started, once accepted")
    creator_deck: str | None = Field(
        description="the kind of the creator's custom deck (its army, 'custom <army>' or 'mercenary'), or null"
    )
    deck_choices: list[DeckChoice] = Field(
        default_factory=list,
        description="only where you could accept a challenge allowing custom decks: your decks and whether each fits",
    )


class GameOutcome(ResultCode):
    model_config = ConfigDict(extra="forbid")
    winner: int | None = Field(description="1 or 2, or null for a draw (or an aborted game)")
    reason: str | None


class LobbyGame(BaseModel):
    """A game as the lobby and profiles list it."""

    model_config = ConfigDict(extra="forbid")
    id: int
    players: list[str] = Field(min_length=2, max_length=2, description="player 1's and player 2's names (a bot's name for a bot)")
    armies: list[str] = Field(description="each side's army (or custom deck's name)")
    mode: Literal["live", "turn"]
    status: Literal["running", "over"]
    you: Literal[1, 2] | None = Field(description="your seat, or null")
    your_turn: bool
    deadline: str | None = Field(description="ISO time by which the player who must act must act, or null")
    turns: int = Field(description="actions played")
    result: GameOutcome | None
    aborted: bool = Field(description="the game was aborted: it counts in no one's results")


class Accepted(BaseModel):
    model_config = ConfigDict(extra="forbid")
    invitation: int
    game: int
    by: str | None = Field(description="who accepted")


class Lobby(BaseModel):
    """What the lobby shows: for a visitor, the open challenges and the games to watch."""

    model_config = ConfigDict(extra="forbid")
    open: list[LobbyInvitation] = Field(description="open challenges of other players, newest first")
    incoming: list[LobbyInvitation] = Field(description="challenges to you")
    outgoing: list[LobbyInvitation] = Field(description="your challenges")
    accepted: list[Accepted] = Field(description="your challenges accepted in the last 30 minutes whose game runs")
    your_turn: list[LobbyGame]
    running: list[LobbyGame] = Field(description="your running games")
    watch: list[LobbyGame] = Field(description="public running games")
    decks: list[DeckSummary] = Field(default_factory=list, description="signed in only: your decks")

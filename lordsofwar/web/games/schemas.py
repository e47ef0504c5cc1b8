"""The documents of a game as the server sends them: the game state (``GET /api/games/{id}``, the
answer of every action, and the socket's ``state`` and ``update`` messages), the player's view of
the position (docs/notation.md, Views), the log, hints, analyses, the replay and the card facts.

Every model declares every field the service sends (``extra="forbid"``): a field added to a
document without being declared here is an error, never dropped in silence
(tests/web/test_response_models.py compares real documents with their models). Fields that a
document leaves out rather than sending null (``turn_state`` between turns, ``advance`` outside an
advance, a forced decision's ``squares``) have defaults, and the routes that send them answer with
``response_model_exclude_unset``, so they stay absent. The log's events are the rules' event kinds,
told apart by ``type`` (lordsofwar.rules.events; docs/notation.md, Events).

The socket's messages are no route's answer: :func:`socket_components` adds them to the OpenAPI
description (lordsofwar.web.app), so that clients generated from it know them too."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, RootModel, model_validator, with_config
from pydantic.json_schema import models_json_schema
from typing_extensions import TypedDict

from lordsofwar.i18n import _, ngettext
from lordsofwar.rules import events as rules_events
from lordsofwar.rules import state as rules_state
from lordsofwar.rules.cards import CORE_ARMIES
from lordsofwar.rules.result import Termination
from lordsofwar.web.fields import Declared, WholeNumber
from lordsofwar.web.words import army_word, hands_words, option_word

T = TypeVar("T")
Seat = Literal[1, 2]
EXACT = ConfigDict(extra="forbid")


class BySeat(BaseModel, Generic[T]):
    """One value per player, under the keys "1" and "2"."""

    model_config = ConfigDict(extra="forbid", validate_by_alias=True, validate_by_name=True, serialize_by_alias=True)
    one: T = Field(alias="1")
    two: T = Field(alias="2")


# --- the game's meta data ---------------------------------------------------------------------


class GamePlayer(BaseModel):
    model_config = EXACT
    name: str = Field(description="the player's name (a bot's name in the request's language)")
    bot: str | None = Field(description="the bot level playing this side, or null for a person")


class Players(BySeat[GamePlayer]):
    pass


class Clocks(BySeat[int]):
    """Milliseconds left on each clock."""


class LiveTimeControl(BaseModel):
    model_config = EXACT
    mode: Literal["live"]
    initial_s: int = Field(description="seconds on each clock at the start")
    increment_s: int = Field(description="seconds added after each of the player's turns")


class TurnTimeControl(BaseModel):
    model_config = EXACT
    mode: Literal["turn"]
    days: int = Field(description="days per turn")


class ResultCode(BaseModel):
    """A result's code and the facts its sentence needs (docs/notation.md, Results): clients
    decide and translate by these, ``reason`` is the English sentence written from them."""

    model_config = ConfigDict(use_enum_values=True)  # the code as the document has it (a string)
    termination: Termination = Field(description="why the game ended (docs/notation.md lists the codes)")
    count: int | None = Field(
        None, description="units, commands: how many the winner eliminated; no_progress: the turns without one"
    )
    player: Seat | None = Field(
        None, description="resignation, timeout, deadline: who; aborted: who aborted it, or whose ending did"
    )
    threshold: Literal["units", "commands"] | None = Field(
        None, description="more_units, more_commands, equal: the threshold both players reached"
    )
    ending: Literal["resignation", "timeout", "deadline", "draw_agreed"] | None = Field(
        None, description="aborted: the ending that aborted the game (absent: a player aborted it)"
    )


class GameResult(ResultCode):
    model_config = EXACT
    winner: Seat | None = Field(description="1 or 2; null for a draw or an aborted game")
    reason: str | None


class RatingChange(BaseModel):
    model_config = EXACT
    before: int
    after: int
    provisional: bool


class RatingChanges(BySeat[RatingChange]):
    pass


class GameMeta(BaseModel):
    model_config = EXACT
    id: int
    version: int = Field(description="the number of changes so far (actions, endings, draw offers)")
    status: Literal["running", "over"]
    public: bool
    you: Seat | None = Field(description="your seat, or null for a spectator")
    players: Players
    time_control: Annotated[LiveTimeControl | TurnTimeControl, Field(discriminator="mode")]
    clocks: Clocks | None = Field(
        description="live: milliseconds left on each clock as of server_time; turn-based: null"
    )
    clock_running: Seat | None = Field(description="whose clock runs (the player who must act), or null")
    deadline: str | None = Field(description="ISO time by which the player who must act must act, or null")
    server_time: str = Field(description="ISO time the document was made")
    draw_offer: Seat | None = Field(description="the player offering a draw, or null")
    result: GameResult | None
    aborted: bool = Field(
        description="the game was aborted: it ended before both players made their first turn (no result counts)"
    )
    abortable: bool = Field(
        description="you may abort it now (POST /api/games/{id}/abort): a player, before both made their first turn"
    )
    rated: bool
    hints: bool = Field(description="a game against a bot created with hints")
    pool: Literal["live", "turn"] = Field(description="the rating pool")
    ratings: RatingChanges | None = Field(description="once a rated game is over: each player's change")


# --- positions and views (docs/notation.md) ---------------------------------------------------


class Variant(BaseModel):
    model_config = EXACT
    rules: Literal["basic", "intermediate"]
    hands: Literal["hidden", "visible"]
    mat: Literal["bordered", "unbordered"]
    units_to_win: int
    commands_to_win: int
    no_progress_turns: int


class BoardUnit(BaseModel):
    model_config = EXACT
    square: str = Field(description="e.g. 'd3'")
    card: str = Field(description="a card id, e.g. 'orcs:07'")
    owner: Seat


class Side(BaseModel):
    """A player's cards: in a view, hidden hand cards are null and the deck is only its count."""

    model_config = EXACT
    army: str
    hand: list[str | None] = Field(description="card ids; null for a card the viewer may not see")
    deck: int | list[str] = Field(
        description="a view: the number of cards left; a whole position: the cards, top first"
    )
    lost: list[str] = Field(description="the lost pile")


class Sides(BySeat[Side]):
    pass


class Advance(BaseModel):
    model_config = EXACT
    owners: list[int]
    candidates: dict[str, list[str]] = Field(
        description="per square of a unit that may advance, the squares it may take"
    )
    taken: list[str]
    advanced: bool


class TurnState(BaseModel):
    """The turn under way (docs/notation.md)."""

    model_config = EXACT
    phase: Literal["pre", "advance", "post"]
    decider: Seat = Field(description="who must act now")
    deployed: list[str]
    supported: list[str]
    shot: list[str]
    took_part: list[str]
    moved: list[str]
    engaged_at_start: list[str]
    shot_damage: dict[str, int] = Field(description="damage shot at each square this turn")
    shots: dict[str, str] = Field(description="each shooter's square and its target's")
    generals_lost: list[Seat]
    eliminated: bool
    forced: bool
    advance: Advance | None = Field(None, description="only while units advance")


class Outcome(ResultCode):
    model_config = EXACT
    winner: Seat | None
    reason: str


class Position(BaseModel):
    """A position (docs/notation.md section 3), or a player's view of one."""

    model_config = EXACT
    format: Literal["lordsofwar-position"]
    version: int
    variant: Variant
    turn: int
    to_move: Seat
    quiet_turns: int
    board: list[BoardUnit]
    players: Sides
    result: Outcome | None
    turn_state: TurnState | None = Field(None, description="only during a turn (left out between turns)")


Event = Annotated[rules_events.Event, Field(discriminator="type")]
"""One event of the log: one of the rules' event kinds (lordsofwar.rules.events), told apart by
``type`` (docs/notation.md, Events)."""


@with_config(ConfigDict(extra="forbid"))
class LogEntry(TypedDict):
    """One entry of the log. (The log and its events are typed dictionaries rather than models: a
    long game's log is read several times faster so.)"""

    n: Annotated[int, Field(description="1 for the first entry")]
    turn: int
    player: Annotated[Seat | None, Field(description="who acted (or ended the game); null when no one did")]
    action: Annotated[str | None, Field(description="the action in notation; null for an ending off the board")]
    events: list[Event]


class DeckKnowledge(BaseModel):
    model_config = EXACT
    cards: list[str] = Field(description="the cards that may be left in that deck, sorted by id")
    includes_hand: bool = Field(description="the cards may also be in the (hidden) hand")


class DeckCards(BySeat[DeckKnowledge | None]):
    """Per player, what the caller may know of the cards left in that deck; null: only their count."""


class GameState(BaseModel):
    """The game as the caller may see it."""

    model_config = EXACT
    game: GameMeta
    view: Position = Field(description="the caller's view (a spectator's: both hands hidden in the hidden variant)")
    legal: list[str] = Field(description="the caller's legal actions when the caller must act, else []")
    log: list[LogEntry] = Field(description="every entry (in an update: only the new ones)")
    deck_cards: DeckCards


# --- the socket's messages ------------------------------------------------------------------------


class StateMessage(GameState):
    """Sent on connect, on ``sync`` and after a stale request."""

    type: Literal["state"]


class UpdateMessage(GameState):
    """Sent after each change; ``log`` holds the new entries only."""

    type: Literal["update"]


class ErrorMessage(BaseModel):
    """The client's last request was refused; nothing changed."""

    model_config = EXACT
    type: Literal["error"]
    message: str = Field(description="why, in the player's language")
    version: int | None = Field(description="the game's version now")
    rule: str | None = Field(
        default=None,
        description="an action the rules refuse: the rules guide's section that explains why (/learn/rules#...)",
    )


class PongMessage(BaseModel):
    model_config = EXACT
    type: Literal["pong"]


class SocketMessage(
    RootModel[Annotated[StateMessage | UpdateMessage | ErrorMessage | PongMessage, Field(discriminator="type")]]
):
    """A message the server sends on the game's socket (docs/web-api.md)."""


SOCKET_MESSAGES: tuple[type[BaseModel], ...] = (StateMessage, UpdateMessage, ErrorMessage, PongMessage, SocketMessage)


def socket_components() -> dict[str, Any]:
    """The socket's messages (and the models they use) as OpenAPI components."""
    _refs, doc = models_json_schema(
        [(m, "serialization") for m in SOCKET_MESSAGES], ref_template="#/components/schemas/{model}"
    )
    return dict(doc.get("$defs", {}))


# --- hints, analyses, rematches, replays, cards -------------------------------------------------


class Alternative(BaseModel):
    model_config = EXACT
    action: str
    visits: int
    win: float | None = Field(description="its estimated win probability for you")


class Hint(BaseModel):
    model_config = EXACT
    player: Seat
    action: str = Field(description="the preferred action, one of your legal actions")
    squares: list[str] = Field(description="the squares it names")
    win: float | None = Field(description="the estimated win probability for you")
    alternatives: list[Alternative] = Field(description="the most searched actions, at most 5")
    iterations: int
    seconds: float
    version: int = Field(description="the game version it was searched on")


class Decision(BaseModel):
    model_config = EXACT
    n: int = Field(description="the action's number (1 first)")
    turn: int
    player: Seat
    played: str
    forced: bool = Field(description="the only legal action: not judged")
    best: str = Field(description="the action the search prefers")
    squares: list[str] = Field(
        default_factory=list, description="the squares the preferred action names (left out when forced)"
    )
    win_best: float | None
    win_played: float | None
    drop: float | None = Field(description="how much the action played lost against the best")
    verdict: Literal["mistake", "blunder"] | None


class AnalysisResult(BaseModel):
    model_config = EXACT
    level: str
    decisions: list[Decision]
    graph: list[float] = Field(description="player 1's win probability before each action and after the last")
    mistakes: list[int] = Field(description="the numbers of the decisions with a verdict")


class Analysis(BaseModel):
    model_config = EXACT
    status: Literal["running", "done", "failed"]
    done: int = Field(description="decisions judged so far")
    total: int
    level: str = Field(description="the search level judging")
    result: AnalysisResult | None = Field(description="once done")
    error: str | None


class AnalysisStarted(Analysis):
    started: bool = Field(description="this request started it")


class RematchStarted(BaseModel):
    model_config = EXACT
    game: int = Field(description="the new game against the bot, started")


class RematchOffered(BaseModel):
    model_config = EXACT
    invitation: int = Field(description="the challenge waiting in the opponent's lobby")
    opponent: str


class RecordPlayer(BaseModel):
    model_config = EXACT
    name: str
    deck: list[str]


class RecordPlayers(BySeat[RecordPlayer]):
    pass


class Names(BySeat[str]):
    pass


class GameRecord(BaseModel):
    """The game record (docs/notation.md section 5)."""

    model_config = EXACT
    format: Literal["lordsofwar-game"]
    version: int
    variant: Variant
    players: RecordPlayers
    seed: int
    actions: list[str]
    result: Outcome | None


class Replay(BaseModel):
    model_config = EXACT
    record: GameRecord
    positions: list[Position] = Field(description="every position of the game, the opening first")
    log: list[LogEntry]
    names: Names


class Ranged(BaseModel):
    model_config = EXACT
    damage: int
    targets: list[list[int]] = Field(description="the squares it may shoot at, as [columns right, rows forward]")


class CardFacts(BaseModel):
    """A card's facts (docs/notation.md section 1)."""

    model_config = ConfigDict(extra="forbid", validate_by_alias=True, validate_by_name=True, serialize_by_alias=True)
    id: str
    army: str
    name: str
    rank: str
    cls: str = Field(alias="class")
    defence: int
    attacks: dict[str, int] = Field(description="attack values by direction (F, FR, R, BR, B, BL, L, FL)")
    ranged: Ranged | None
    moves: list[str]


# --- what a client sends: a game's options, an action, a draw -------------------------------------

if TYPE_CHECKING:  # the checker sees a name; validation and the API's schema see the list
    CoreArmy = str
    Army = str
else:
    CoreArmy = Literal[CORE_ARMIES]
    """A core army's name (lordsofwar.rules.cards.CORE_ARMIES: the one list of them)."""
    Army = Literal[(*CORE_ARMIES, "random")]
    """A core army's name, or "random"."""
ACTION_MAX = 100
"""The longest action a request may send, in characters."""
DRAW_OPS = ("offer", "accept", "decline")


def _core_armies() -> list[CoreArmy]:
    return list(CORE_ARMIES)


class GameOptions(BaseModel):
    """Everything an invitation fixes (Yucata's invitation options plus the time control).
    Strict: a JSON body must send numbers as numbers and flags as true/false (forms are read
    with ``strict=False``, their fields being text)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    rules: Literal["basic", "intermediate"] = "intermediate"
    hands: Literal["hidden", "visible"] = "hidden"
    mat: Literal["bordered", "unbordered"] = "bordered"
    length: Literal["15/3", "20/4", "25/5"] = "20/4"
    creator_army: Army = "random"
    opponent_army: Army = "random"
    custom_decks: bool = False
    custom_armies: list[CoreArmy] = Field(default_factory=lambda: _core_armies(), max_length=6)
    mode: Literal["live", "turn"] = "live"
    minutes: WholeNumber = Field(default=10, ge=1, le=180)
    increment: WholeNumber = Field(default=10, ge=0, le=180)
    days: WholeNumber = Field(default=3, ge=1, le=7)
    creator_side: Literal["1", "2", "random"] = "random"
    public: bool = True
    rated: bool = False
    """Rated: the result changes both players' ratings in the pool of the time control (games
    against bots are always casual)."""
    hints: bool = False
    """Hints allowed: in a game against a bot, the player may ask the top search level for its
    preferred action (computed from the player's own view). Not in games between players."""

    @model_validator(mode="after")
    def _some_army(self) -> GameOptions:
        if self.custom_decks and not self.custom_armies:
            raise ValueError(_("custom decks need at least one army whose cards they may use: tick one"))
        return self

    def variant(self) -> rules_state.Variant:
        units, commands = rules_state.LENGTHS[self.length]
        return rules_state.Variant(
            rules=self.rules, hands=self.hands, mat=self.mat, units_to_win=units, commands_to_win=commands
        )

    def summary(self) -> str:
        """The options in a few words, in the current language."""
        if self.mode == "live":
            clock = f"{self.minutes}+{self.increment}"
        else:
            clock = ngettext("{n} day/turn", "{n} days/turn", self.days).format(n=self.days)
        rated = option_word("rated" if self.rated else "casual")
        parts = [rated, option_word(self.rules), hands_words(self.hands), option_word(self.mat), self.length, clock]
        if self.hints:
            parts.append(option_word("hints"))
        if self.custom_decks:
            armies = ", ".join(army_word(a) for a in self.custom_armies)
            parts.append(_("custom decks: {armies}").format(armies=armies))
        return " · ".join(parts)


class ActionBody(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    action: str = Field(max_length=ACTION_MAX, description="an action in notation, e.g. 'deploy orcs:07 d3'")
    version: WholeNumber = Field(description="the version of the game you chose it on")


class DrawBody(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    op: Annotated[str, Declared(lambda: {"enum": list(DRAW_OPS)})] = Field(
        max_length=20, description="'offer', 'accept' or 'decline'"
    )

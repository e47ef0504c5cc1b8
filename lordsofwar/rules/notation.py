"""Reading and writing positions, views, actions and game records (notation.md).

Every reader raises :class:`~lordsofwar.rules.errors.NotationError` (a ``ValueError``) whose
one-line message names the offending field or token. Actions are read by
:func:`~lordsofwar.rules.actions.parse_action`, which lives beside ``Action`` so that the
engine can read them too, and is available here with the other readers.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from lordsofwar.rules import engine, mat
from lordsofwar.rules import result as result_codes
from lordsofwar.rules.actions import parse_action
from lordsofwar.rules.cards import CORE, CardSet
from lordsofwar.rules.errors import (
    DeckError,
    IllegalActionError,
    InvalidActionError,
    LordsOfWarError,
    NotationError,
    UnknownCardError,
    json_excerpt,
    read_json,
)
from lordsofwar.rules.events import Event, LogEntry
from lordsofwar.rules.i18n import _
from lordsofwar.rules.position import (
    DEPLOYED,
    FLAG_NAMES,
    HAND_LIMIT,
    SHOT,
    AdvanceRound,
    Result,
    Variant,
    unit_kind,
)
from lordsofwar.rules.state import Position

POSITION_FORMAT = "lordsofwar-position"
GAME_FORMAT = "lordsofwar-game"
VERSION = 1
MAX_TEXT = 10_000_000
"""Longest JSON text a reader accepts (characters)."""

_VARIANT_DEFAULTS = Variant()


# --- small checked readers ---------------------------------------------------------------------


def _clip(text: str, limit: int = 40) -> str:
    """``repr`` of a user's string, shortened for an error message."""
    return repr(text) if len(text) <= limit else repr(text[:limit]) + "..."


def _text(value: Any, where: str, limit: int) -> str:
    """A free-form string (a name, an army, a reason): at most ``limit`` characters of one line
    of valid Unicode."""
    if not isinstance(value, str) or len(value) > limit:
        raise NotationError(f"{where}: expected a string of at most {limit} characters")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise NotationError(f"{where}: not valid Unicode text") from None
    if any(ch in value for ch in "\n\r"):
        raise NotationError(f"{where}: must be a single line")
    return value


def _int(value: Any, where: str, lo: int | None = None, hi: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise NotationError(f"{where}: expected a whole number, got {json_excerpt(value)}")
    if lo is not None and value < lo:
        raise NotationError(f"{where}: must be at least {lo}, got {json_excerpt(value)}")
    if hi is not None and value > hi:
        raise NotationError(f"{where}: must be at most {hi}, got {json_excerpt(value)}")
    return value


def _player(value: Any, where: str) -> int:
    if type(value) is not int or value not in (1, 2):
        raise NotationError(f"{where}: must be 1 or 2, got {json_excerpt(value)}")
    return int(value)


def _obj(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise NotationError(f"{where}: expected a JSON object")
    return value


def _list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise NotationError(f"{where}: expected a JSON list")
    return value


def _keys(doc: dict[str, Any], allowed: set[str], where: str) -> None:
    for key in doc:
        if key not in allowed:
            raise NotationError(f"{where}: unknown field {_clip(key)}")


def _card(cards: CardSet, value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise NotationError(f"{where}: expected a card id such as 'orcs:07', got {json_excerpt(value)}")
    try:
        cards.card(value)
    except UnknownCardError:
        raise NotationError(f"{where}: unknown card {value!r}") from None
    return value


def loads(text: str, what: str) -> Any:
    """Parse JSON text, or raise a one-line :class:`NotationError`."""
    if len(text) > MAX_TEXT:
        raise NotationError(f"{what}: longer than {MAX_TEXT} characters")
    return read_json(text, NotationError, what)


def _parse_result(value: Any) -> Result | None:
    """A ``result`` object, or null: ``{"winner": 1 | 2 | null, "reason": "...", "termination":
    "...", ...}`` (the code and its facts, docs/notation.md); a result written before the codes
    (``winner`` and ``reason`` only) is read from its sentence."""
    if value is None:
        return None
    r = _obj(value, "result")
    _keys(r, {"winner", "reason", *RESULT_FIELDS}, "result")
    if "winner" not in r:
        raise NotationError("result.winner: missing (use null for a draw)")
    winner = None if r["winner"] is None else _player(r["winner"], "result.winner")
    reason = _text(r.get("reason", ""), "result.reason", 500)
    if r.get("termination") is None:
        extra = sorted(k for k in RESULT_FIELDS & set(r) if r[k] is not None)
        if extra:
            raise NotationError(f"result.{extra[0]}: given without a termination")
        try:
            return result_codes.legacy_result(winner, reason)
        except ValueError as exc:
            raise NotationError(
                f"result.reason: {exc} (a result without a termination must have one of the engine's reasons)"
            ) from None
    for key in ("count", "player"):
        if r.get(key) is not None and (isinstance(r[key], bool) or not isinstance(r[key], int)):
            raise NotationError(f"result.{key}: expected a whole number, got {json_excerpt(r[key])}")
    try:
        return result_codes.from_json({**r, "winner": winner})
    except ValueError as exc:
        raise NotationError(f"result.{exc}") from None


RESULT_FIELDS = frozenset({"termination", "count", "player", "threshold", "ending"})
"""A result's fields beside ``winner`` and ``reason`` (docs/notation.md)."""


# --- variants ------------------------------------------------------------------------------------


def parse_variant(doc: Any, where: str = "variant") -> Variant:
    """Read a variant object; omitted fields take their defaults (notation.md section 3)."""
    if doc is None:
        return Variant()
    d = _obj(doc, where)
    _keys(d, set(_VARIANT_DEFAULTS.to_json()), where)
    choices = {"rules": ("intermediate", "basic"), "hands": ("hidden", "visible"), "mat": ("bordered", "unbordered")}
    values: dict[str, Any] = {}
    for key, allowed in choices.items():
        if key in d:
            if d[key] not in allowed:
                raise NotationError(
                    f"{where}.{key}: must be {' or '.join(repr(a) for a in allowed)}, got {json_excerpt(d[key])}"
                )
            values[key] = d[key]
    for key in ("units_to_win", "commands_to_win"):
        if key in d:
            values[key] = _int(d[key], f"{where}.{key}", 1, 1000)
    if "no_progress_turns" in d:
        values["no_progress_turns"] = _int(d["no_progress_turns"], f"{where}.no_progress_turns", 0, 100_000)
    return Variant(**values)


# --- positions -----------------------------------------------------------------------------------


def position_to_json(pos: Position, events: list[Event] | None = None) -> dict[str, Any]:
    """The position in notation.md section 3 (with ``turn_state`` mid-turn, ``events`` if given)."""
    doc: dict[str, Any] = {
        "format": POSITION_FORMAT,
        "version": VERSION,
        "variant": pos.variant.to_json(),
        "turn": pos.turn,
        "to_move": pos.to_move,
        "quiet_turns": pos.quiet_turns,
        "board": [{"square": mat.name(s), "card": u.id, "owner": u.owner} for s, u in sorted(pos.board.items())],
        "players": {
            str(p): {
                "army": pos.armies[p],
                "hand": list(pos.hands[p]),
                "deck": _deck_json(pos.decks[p]),
                "lost": list(pos.lost[p]),
            }
            for p in (1, 2)
        },
        "result": None if pos.result is None else pos.result.to_json(),
    }
    if pos.in_turn and pos.result is None:
        doc["turn_state"] = turn_state_json(pos)
    if events is not None:
        doc["events"] = events
    return doc


def _deck_json(deck: list[str | None]) -> list[str | None] | int:
    if any(c is None for c in deck):
        return len(deck)
    return list(deck)


def turn_state_json(pos: Position) -> dict[str, Any]:
    """The state of the turn under way (documented in docs/notation.md)."""
    ts: dict[str, Any] = {"phase": pos.phase, "decider": pos.decider}
    for bit, label in FLAG_NAMES.items():
        ts[label] = [mat.name(s) for s in sorted(s for s, f in pos.flags.items() if f & bit)]
    ts["shot_damage"] = {mat.name(s): d for s, d in sorted(pos.shot_damage.items())}
    ts["shots"] = {mat.name(s): mat.name(t) for s, t in sorted(pos.shot_target.items())}
    ts["generals_lost"] = [p for p in (1, 2) if pos.generals_lost & (1 << p)]
    ts["eliminated"] = pos.eliminated
    ts["forced"] = pos.forced
    if pos.advance is not None:
        adv = pos.advance
        ts["advance"] = {
            "owners": list(adv.owners),
            "candidates": {mat.name(b): [mat.name(t) for t in ts_] for b, ts_ in sorted(adv.candidates.items())},
            "taken": [mat.name(t) for t in sorted(adv.taken)],
            "advanced": adv.advanced,
        }
    return ts


_POSITION_KEYS = {
    "format",
    "version",
    "variant",
    "turn",
    "to_move",
    "quiet_turns",
    "board",
    "players",
    "result",
    "turn_state",
    "events",
    "comment",
}


def parse_position(doc: Any, cards: CardSet = CORE) -> Position:
    """Read a position or a view (a JSON object already parsed); errors name the field."""
    d = _obj(doc, "position")
    _keys(d, _POSITION_KEYS, "position")
    if d.get("format") != POSITION_FORMAT:
        raise NotationError(f"format: expected {POSITION_FORMAT!r}, got {json_excerpt(d.get('format'))}")
    if type(d.get("version")) is not int or d.get("version") != VERSION:
        raise NotationError(f"version: this reader understands version {VERSION}, got {json_excerpt(d.get('version'))}")
    variant = parse_variant(d.get("variant"))
    for key in ("turn", "to_move", "board", "players"):
        if key not in d:
            raise NotationError(f"{key}: missing")
    pos = Position(
        cards,
        variant,
        turn=_int(d["turn"], "turn", 1, 1_000_000),
        to_move=_player(d["to_move"], "to_move"),
        quiet_turns=_int(d.get("quiet_turns", 0), "quiet_turns", 0, 1_000_000),
    )
    bordered = variant.bordered
    for i, entry in enumerate(_list(d["board"], "board")):
        where = f"board[{i}]"
        e = _obj(entry, where)
        _keys(e, {"square", "card", "owner"}, where)
        for key in ("square", "card", "owner"):
            if key not in e:
                raise NotationError(f"{where}.{key}: missing")
        sq = mat.parse(e["square"], bordered, f"{where}.square")
        card = _card(cards, e["card"], f"{where}.card")
        owner = _player(e["owner"], f"{where}.owner")
        if sq in pos.board:
            raise NotationError(f"{where}.square: two units on square {mat.name(sq)}")
        pos.place(sq, unit_kind(cards.card(card), owner))
    players = _obj(d["players"], "players")
    _keys(players, {"1", "2"}, "players")
    for p in (1, 2):
        where = f"players.{p}"
        if str(p) not in players:
            raise NotationError(f"{where}: missing")
        pl = _obj(players[str(p)], where)
        _keys(pl, {"army", "hand", "deck", "lost", "name"}, where)
        pos.armies[p] = _text(pl.get("army", ""), f"{where}.army", 40)
        hand = _list(pl.get("hand", []), f"{where}.hand")
        if len(hand) > HAND_LIMIT:
            raise NotationError(f"{where}.hand: {len(hand)} cards, a hand holds at most {HAND_LIMIT}")
        pos.hands[p] = [None if c is None else _card(cards, c, f"{where}.hand[{i}]") for i, c in enumerate(hand)]
        deck = pl.get("deck", [])
        if isinstance(deck, int) and not isinstance(deck, bool):
            pos.decks[p] = [None] * _int(deck, f"{where}.deck", 0, 10_000)
        else:
            deck = _list(deck, f"{where}.deck")
            if len(deck) > 10_000:
                raise NotationError(f"{where}.deck: too many cards")
            pos.decks[p] = [None if c is None else _card(cards, c, f"{where}.deck[{i}]") for i, c in enumerate(deck)]
        lost = _list(pl.get("lost", []), f"{where}.lost")
        if len(lost) > 10_000:
            raise NotationError(f"{where}.lost: too many cards")
        pos.lost[p] = [_card(cards, c, f"{where}.lost[{i}]") for i, c in enumerate(lost)]
    pos.result = _parse_result(d.get("result"))
    engine.start_turn(pos)
    if pos.result is not None:
        pos.phase = "over"
        pos.deploys = []
        if d.get("turn_state") is not None:
            raise NotationError("turn_state: a finished game has no turn under way")
    elif d.get("turn_state") is not None:
        _parse_turn_state(pos, d["turn_state"])
    return pos


def _parse_turn_state(pos: Position, doc: Any) -> None:
    ts = _obj(doc, "turn_state")
    allowed = {
        "phase",
        "decider",
        "shot_damage",
        "shots",
        "generals_lost",
        "eliminated",
        "forced",
        "advance",
        *FLAG_NAMES.values(),
    }
    _keys(ts, allowed, "turn_state")
    phase = ts.get("phase")
    if phase not in ("pre", "advance", "post"):
        raise NotationError(f"turn_state.phase: must be 'pre', 'advance' or 'post', got {json_excerpt(phase)}")
    bordered = pos.variant.bordered

    def occupied(value: Any, where: str) -> int:
        sq = mat.parse(value, bordered, where)
        if sq not in pos.board:
            raise NotationError(f"{where}: no unit on {mat.name(sq)}")
        return sq

    def field(name: str, key: Any = None) -> str:
        return f"turn_state.{name}" if key is None else f"turn_state.{name}[{_clip(str(key), 12)}]"

    pos.flags = {}
    for bit, label in FLAG_NAMES.items():
        for i, value in enumerate(_list(ts.get(label, []), f"turn_state.{label}")):
            sq = occupied(value, f"turn_state.{label}[{i}]")
            pos.flags[sq] = pos.flags.get(sq, 0) | bit
    pos.shot_damage = {}
    for key, value in _obj(ts.get("shot_damage", {}), "turn_state.shot_damage").items():
        sq = occupied(key, field("shot_damage", key))
        pos.shot_damage[sq] = _int(value, field("shot_damage", key), 0, 10_000)
    pos.shot_target = {}
    for key, value in _obj(ts.get("shots", {}), "turn_state.shots").items():
        s = occupied(key, field("shots", key))
        t = occupied(value, field("shots", key))
        shooter, target = pos.board[s], pos.board[t]
        if shooter.owner != pos.to_move or not shooter.targets or not pos.flags.get(s, 0) & SHOT:
            raise NotationError(
                f"{field('shots', key)}: not a ranged unit of player {pos.to_move} listed in turn_state.shot"
            )
        if target.owner == pos.to_move:
            raise NotationError(f"{field('shots', key)}: the target on {mat.name(t)} is not an enemy unit")
        pos.shot_target[s] = t
    pos.generals_lost = 0
    for i, p in enumerate(_list(ts.get("generals_lost", []), "turn_state.generals_lost")):
        pos.generals_lost |= 1 << _player(p, f"turn_state.generals_lost[{i}]")
    for key in ("eliminated", "forced"):
        if not isinstance(ts.get(key, False), bool):
            raise NotationError(f"turn_state.{key}: expected true or false")
    pos.eliminated = bool(ts.get("eliminated", False))
    pos.forced = bool(ts.get("forced", False))
    pos.phase = phase
    pos.in_turn = True
    deployed = any(f & DEPLOYED for f in pos.flags.values())
    if phase == "pre" and deployed:
        raise NotationError("turn_state.phase: 'pre' but a unit was already deployed this turn")
    pos.deploys = None if phase == "pre" else []
    if phase == "advance":
        pos.advance = _parse_advance(pos, ts.get("advance"), occupied)
    if "decider" not in ts:
        raise NotationError("turn_state.decider: missing (the player who must act now)")
    decider = _player(ts["decider"], "turn_state.decider")
    if decider != pos.decider:
        raise NotationError(f"turn_state.decider: {decider} does not match the position (player {pos.decider} decides)")


def _parse_advance(pos: Position, doc: Any, occupied: Callable[[Any, str], int]) -> AdvanceRound:
    """The berserker round of a ``turn_state`` in phase ``advance`` (clarifications 6)."""
    adv = _obj(doc, "turn_state.advance")
    _keys(adv, {"owners", "candidates", "taken", "advanced"}, "turn_state.advance")
    bordered = pos.variant.bordered
    owners = [
        _player(p, f"turn_state.advance.owners[{i}]")
        for i, p in enumerate(_list(adv.get("owners"), "turn_state.advance.owners"))
    ]
    if not owners or len(owners) > 2 or len(set(owners)) != len(owners):
        raise NotationError("turn_state.advance.owners: one or two different players, the one deciding first")
    candidates: dict[int, list[int]] = {}
    for key, squares in _obj(adv.get("candidates", {}), "turn_state.advance.candidates").items():
        where = f"turn_state.advance.candidates[{_clip(str(key), 12)}]"
        b = occupied(key, where)
        if not pos.board[b].is_berserker:
            raise NotationError(f"{where}: not a berserker")
        found: list[int] = []
        for i, t in enumerate(_list(squares, where)):
            sq = mat.parse(t, bordered, f"{where}[{i}]")
            if sq in pos.board:
                raise NotationError(f"{where}[{i}]: {mat.name(sq)} is occupied")
            if not mat.is_adjacent(b, sq):
                raise NotationError(f"{where}[{i}]: {mat.name(sq)} is not adjacent to the berserker")
            if sq in found:
                raise NotationError(f"{where}[{i}]: {mat.name(sq)} is listed twice")
            found.append(sq)
        candidates[b] = found
    taken = {
        mat.parse(t, bordered, "turn_state.advance.taken")
        for t in _list(adv.get("taken", []), "turn_state.advance.taken")
    }
    advanced = adv.get("advanced", False)
    if not isinstance(advanced, bool):
        raise NotationError("turn_state.advance.advanced: expected true or false")
    pos.advance = AdvanceRound(owners, candidates, taken, advanced)
    if not engine._advance_choices(pos):
        raise NotationError("turn_state.advance: no berserker choice is waiting")
    return pos.advance


def position_from_text(text: str, cards: CardSet = CORE, what: str = "position") -> Position:
    """Read a position from JSON text."""
    return parse_position(loads(text, what), cards)


def dumps(doc: Any) -> str:
    """JSON text as the CLI prints it."""
    return json.dumps(doc, indent=1, ensure_ascii=False)


# --- views (9.2) ---------------------------------------------------------------------------------


def hand_visible(pos: Position, viewer: int | None, player: int) -> bool:
    """Whether ``viewer`` (None: a spectator) sees ``player``'s hand (9.2): their own always, the
    opponent's in the visible-hands variant and once the game is over."""
    return viewer == player or pos.variant.hands == "visible" or pos.result is not None


def view_json(pos: Position, player: int | None, events: list[Event] | None = None) -> dict[str, Any]:
    """What ``player`` may know: no deck order or contents, no hidden opponent hand (9.2).
    ``player`` None is a spectator: in the hidden-hands variant both hands are hidden."""
    doc = position_to_json(pos, None)
    for p in ("1", "2"):
        doc["players"][p]["deck"] = len(pos.decks[int(p)])
    for seat in (1, 2):
        if not hand_visible(pos, player, seat):
            doc["players"][str(seat)]["hand"] = [None] * len(pos.hands[seat])
    if events is not None:
        doc["events"] = list(events)  # every event is public: draws name no card
    return doc


def view(pos: Position, player: int) -> Position:
    """The view of ``player`` as a :class:`Position` (hidden cards are ``None``)."""
    return parse_position(view_json(pos, player), pos.cards)


# --- games and records (section 5) ---------------------------------------------------------------


def deal(
    decks: Sequence[Sequence[str]],
    seed: int,
    variant: Variant | None = None,
    cards: CardSet = CORE,
    armies: Sequence[str] | None = None,
) -> Position:
    """1.4: shuffle each deck without its general; the top 5 and the general form the hand.

    One ``random.Random(seed)`` shuffles player 1's deck, then player 2's.
    """
    rng = random.Random(seed)
    pos = Position(cards, variant or Variant())
    for p in (1, 2):
        deck = list(decks[p - 1])
        generals = [c for c in deck if cards.card(c).rank == "general"]
        if len(generals) != 1:
            raise DeckError(
                _("player {player}'s deck holds {n} generals; a deck holds exactly one (clarifications 8.4)").format(
                    player=p, n=len(generals)
                )
            )
        deck.remove(generals[0])
        rng.shuffle(deck)
        pos.hands[p] = [*deck[:5], generals[0]]
        pos.decks[p] = list(deck[5:])
        pos.armies[p] = (armies[p - 1] if armies else None) or cards.standard_army_of(decks[p - 1]) or "mercenary"
    engine.start_turn(pos)
    return pos


@dataclass
class GameRecord:
    """A game record (notation.md section 5)."""

    decks: list[list[str]]
    seed: int
    variant: Variant = field(default_factory=Variant)
    names: list[str] = field(default_factory=lambda: ["player 1", "player 2"])
    actions: list[str] = field(default_factory=list)
    result: Result | None = None

    def start(self, cards: CardSet = CORE) -> Position:
        """The opening position."""
        return deal(self.decks, self.seed, self.variant, cards)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": GAME_FORMAT,
            "version": VERSION,
            "variant": self.variant.to_json(),
            "players": {str(p): {"name": self.names[p - 1], "deck": list(self.decks[p - 1])} for p in (1, 2)},
            "seed": self.seed,
            "actions": list(self.actions),
            "result": None if self.result is None else self.result.to_json(),
        }


def parse_record(doc: Any, cards: CardSet = CORE) -> GameRecord:
    """Read a game record object; errors name the field."""
    d = _obj(doc, "game")
    _keys(d, {"format", "version", "variant", "players", "seed", "actions", "result", "comment"}, "game")
    if d.get("format") != GAME_FORMAT:
        raise NotationError(f"format: expected {GAME_FORMAT!r}, got {json_excerpt(d.get('format'))}")
    if type(d.get("version")) is not int or d.get("version") != VERSION:
        raise NotationError(f"version: this reader understands version {VERSION}, got {json_excerpt(d.get('version'))}")
    variant = parse_variant(d.get("variant"))
    if "players" not in d:
        raise NotationError("players: missing")
    players = _obj(d["players"], "players")
    _keys(players, {"1", "2"}, "players")
    decks: list[list[str]] = []
    names: list[str] = []
    for p in (1, 2):
        where = f"players.{p}"
        if str(p) not in players:
            raise NotationError(f"{where}: missing")
        pl = _obj(players[str(p)], where)
        _keys(pl, {"name", "deck", "army"}, where)
        name = _text(pl.get("name", f"player {p}"), f"{where}.name", 100)
        if "deck" not in pl:
            raise NotationError(f"{where}.deck: missing")
        deck = [_card(cards, c, f"{where}.deck[{i}]") for i, c in enumerate(_list(pl["deck"], f"{where}.deck"))]
        try:
            cards.validate_deck(deck)
        except DeckError as exc:
            raise NotationError(f"{where}.deck: {exc}") from None
        decks.append(deck)
        names.append(name)
    if "seed" not in d:
        raise NotationError("seed: missing")
    seed = _int(d["seed"], "seed", 0, 2**63 - 1)
    actions = _list(d.get("actions", []), "actions")
    if len(actions) > 100_000:
        raise NotationError("actions: too many actions")
    for i, a in enumerate(actions):
        if not isinstance(a, str):
            raise NotationError(f"actions[{i}]: expected a string, got {json_excerpt(a)}")
    return GameRecord(decks, seed, variant, names, list(actions), _parse_result(d.get("result")))


def play_through(pos: Position, actions: Sequence[str], result: Result | None) -> Iterator[LogEntry]:
    """Apply a record's actions, then its ending off the board if it has one, to ``pos`` in
    place; yield a log entry after each step: ``{"n", "turn", "player", "action", "events"}``
    (``action`` is None for the ending). Checks each action and the result as :func:`replay`.
    """
    for i, text in enumerate(actions):
        player, turn = pos.decider, pos.turn
        try:
            events = pos.push(parse_action(text, pos))
        except (InvalidActionError, IllegalActionError) as exc:
            raise NotationError(f"actions[{i}]: {exc}") from None
        yield {"n": i + 1, "turn": turn, "player": player, "action": text, "events": events}
    if result is None and pos.result is not None:
        raise NotationError(
            f"result: the record gives none, but its actions end the game ({pos.result.reason}, winner {pos.result.winner})"
        )
    if result is not None:
        if pos.result is None:
            ending = engine.early_ending(result)
            if ending is None:
                raise NotationError(
                    f"result: the record says the game ended ({_clip(result.reason, 60)}) but after its actions it is still running"
                )
            try:
                events = engine.end_early(pos, ending)
            except (InvalidActionError, IllegalActionError) as exc:  # an aborted game past its first turns
                raise NotationError(f"result: {exc}") from None
            yield {"n": len(actions) + 1, "turn": pos.turn, "player": ending[1], "action": None, "events": events}
        elif pos.result.winner != result.winner or pos.result.termination is not result.termination:
            raise NotationError(
                f"result: the record names winner {result.winner} ({_clip(result.reason, 60)}), "
                f"the replay ends with {pos.result.winner} ({pos.result.reason})"
            )


def replay(record: GameRecord, cards: CardSet = CORE) -> list[Position]:
    """Every position of the game, the opening first; checks each action and the result.

    Endings off the board are stored only in ``result``: the terminations ``resignation``,
    ``timeout`` and ``deadline`` (of ``player``; the other player winning), ``draw_agreed`` (no
    winner) and an aborted game's ``aborted`` (no winner; only before turn 3); a record whose
    actions end before the game does is accepted with one of these results, which replay applies
    after the last action.
    """
    pos = record.start(cards)
    positions = [pos.copy()]
    for _entry in play_through(pos, record.actions, record.result):
        positions.append(pos.copy())
    return positions


def record_from_text(text: str, cards: CardSet = CORE, what: str = "game") -> GameRecord:
    return parse_record(loads(text, what), cards)


__all__ = [
    "GameRecord",
    "LordsOfWarError",
    "deal",
    "dumps",
    "parse_action",
    "parse_position",
    "parse_record",
    "parse_variant",
    "play_through",
    "position_from_text",
    "position_to_json",
    "record_from_text",
    "replay",
    "view",
    "view_json",
]

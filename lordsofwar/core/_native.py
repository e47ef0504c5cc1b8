"""``lordsofwar.core.Game`` on the compiled core (``_core``, built from ``src/core``).

The state lives in C++; this class moves positions in and out in the notation of
``lordsofwar.rules`` and turns the core's refusals into the rules' errors, with the reference
engine's explanation (docs/core.md).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any, ClassVar

import numpy as np

import lordsofwar.core._core as _core
from lordsofwar.core import encoding
from lordsofwar.core.encoding import FRAME
from lordsofwar.rules import engine, notation
from lordsofwar.rules.actions import Action, Event, parse_action
from lordsofwar.rules.cards import CLASSES, CORE, DIRECTIONS, CardSet
from lordsofwar.rules.errors import HiddenInformationError, IllegalActionError, InvalidActionError
from lordsofwar.rules.position import AdvanceRound, Result, Termination, Variant, unit_kind
from lordsofwar.rules.state import Position

IMPLEMENTATION = "native"

_KINDS = ("deploy", "shoot", "advance", "move", "recall", "draw", "pass")
_KIND_INDEX = {k: i for i, k in enumerate(_KINDS)}
_PHASES = ("pre", "advance", "post", "over")
_PHASE_INDEX = {p: i for i, p in enumerate(_PHASES)}
_POLICIES = {"uniform": 0, "greedy": 1}


def _result_to_core(r: Result) -> tuple[int, str, int, int, str, str]:
    """A result as the core holds it: (winner, termination, count, player, threshold, ending)."""
    threshold = "" if r.threshold is None else r.threshold.value
    ending = "" if r.ending is None else r.ending.value
    return (r.winner or 0, r.termination.value, -1 if r.count is None else r.count, r.player or 0, threshold, ending)


@lru_cache(maxsize=1024)  # a Result is frozen: the few kinds of ending are made once each
def _result_from_core(t: tuple[int, str, int, int, str, str]) -> Result:
    winner, termination, count, player, threshold, ending = t
    return Result(
        winner or None,
        Termination(termination),
        None if count < 0 else count,
        player or None,
        Termination(threshold) if threshold else None,
        Termination(ending) if ending else None,
    )


class _Table:
    """A card set as the core holds it: the cards in the set's order, and id <-> index."""

    __slots__ = ("cards", "core", "ids", "index")

    def __init__(self, cards: CardSet):
        self.cards = cards
        self.ids: list[str] = list(cards)
        self.index: dict[str | None, int] = {c: i for i, c in enumerate(self.ids)}
        self.index[None] = -1
        specs = []
        for card_id in self.ids:
            c = cards[card_id]
            spec = _core.CardSpec()
            spec.id = c.id
            spec.cls = CLASSES.index(c.cls)
            k = unit_kind(c, 1)  # the rules' traits of the card (the owner does not change them)
            spec.berserker, spec.cavalry, spec.spear = k.is_berserker, k.is_cavalry, k.is_spear
            spec.support, spec.command, spec.general = k.is_support, k.is_command, k.is_general
            spec.defence = c.defence
            spec.attacks = [(DIRECTIONS.index(d), v) for d, v in c.attacks.items()]
            spec.damage = c.ranged.damage if c.ranged else 0
            spec.targets = list(c.ranged.targets) if c.ranged else []
            spec.moves = [DIRECTIONS.index(d) for d in c.moves]
            specs.append(spec)
        self.core = _core.Cards(specs)

    def names(self, indices: list[int]) -> list[str | None]:
        ids = self.ids
        return [None if i < 0 else ids[i] for i in indices]


_TABLES: dict[int, _Table] = {}


def table(cards: CardSet) -> _Table:
    """The core's table of ``cards`` (made once per card set)."""
    t = _TABLES.get(id(cards))
    if t is None or t.cards is not cards:
        t = _TABLES[id(cards)] = _Table(cards)
    return t


_GREEDY: dict[tuple[int, Variant], tuple[CardSet, list[float]]] = {}


def greedy_params(cards: CardSet, variant: Variant) -> tuple[list[float], int, float, int]:
    """What the compiled greedy bot (src/core/greedy.hpp) takes from ``lordsofwar.bots.greedy``,
    where they are defined: the value of each card of the core's table of ``cards`` under
    ``variant`` (``card_value``), ``FRESH_ARROW``, ``GreedyBot.enemy_weight`` and ``ROLLOUT_PUSHES``."""
    from lordsofwar.bots import greedy

    key = (id(cards), variant)
    found = _GREEDY.get(key)
    if found is None or found[0] is not cards:
        values = [greedy.card_value(cards[c], variant) for c in table(cards).ids]
        found = _GREEDY[key] = (cards, values)
    return found[1], greedy.FRESH_ARROW, greedy.GreedyBot.enemy_weight, greedy.ROLLOUT_PUSHES


_GREEDY_HANDLES: dict[tuple[int, Variant], tuple[CardSet, _core.GreedyParams]] = {}


def greedy_handle(cards: CardSet, variant: Variant) -> _core.GreedyParams:
    """:func:`greedy_params` as the core's settings object, made once per card set and variant:
    the core keeps a bot per settings object and thread and reuses it from decision to decision."""
    key = (id(cards), variant)
    found = _GREEDY_HANDLES.get(key)
    if found is None or found[0] is not cards:
        found = _GREEDY_HANDLES[key] = (cards, _core.GreedyParams(*greedy_params(cards, variant)))
    return found[1]


def core_variant(v: Variant) -> _core.Variant:
    """The variant as the core holds it."""
    cv = _core.Variant()
    cv.intermediate, cv.visible, cv.bordered = v.intermediate, v.hands == "visible", v.bordered
    cv.units_to_win, cv.commands_to_win, cv.no_progress_turns = v.units_to_win, v.commands_to_win, v.no_progress_turns
    return cv


class Game:
    """A game on the compiled core; see docs/core.md for every method."""

    __slots__ = ("_s", "_t", "armies", "cards", "variant")

    FRAME: ClassVar[tuple[int, int]] = FRAME

    def __init__(self, state: Any, tab: _Table, variant: Variant, armies: list[str]):
        self._s = state
        self._t = tab
        self.cards = tab.cards
        self.variant = variant
        self.armies = armies

    # --- making games -----------------------------------------------------------------------

    @classmethod
    def from_position(cls, pos: Position) -> Game:
        """The game at ``pos`` (a position or a view), mid-turn state included."""
        tab = table(pos.cards)
        index = tab.index
        r = _core.Record()
        r.turn, r.to_move, r.quiet_turns = pos.turn, pos.to_move, pos.quiet_turns
        flags, damage, target = pos.flags, pos.shot_damage, pos.shot_target
        r.units = [
            _core.UnitRecord(
                sq, index[k.id], k.owner, flags.get(sq, 0), damage.get(sq, -1), target.get(sq, 0), sq in target
            )
            for sq, k in pos.board.items()
        ]
        r.hands = [[index[c] for c in pos.hands[p]] for p in (1, 2)]
        r.decks = [[index[c] for c in pos.decks[p]] for p in (1, 2)]
        r.lost = [[index[c] for c in pos.lost[p]] for p in (1, 2)]
        r.result = None if pos.result is None else _result_to_core(pos.result)
        r.phase = _PHASE_INDEX[pos.phase]
        r.generals_lost, r.eliminated, r.forced, r.in_turn = pos.generals_lost, pos.eliminated, pos.forced, pos.in_turn
        if pos.advance is not None:
            adv = pos.advance
            a = _core.AdvanceRecord()
            a.owners, a.taken, a.advanced = list(adv.owners), list(adv.taken), adv.advanced
            a.candidates = [(b, list(ts)) for b, ts in adv.candidates.items()]
            r.advance = a
        s = _core.State(tab.core, core_variant(pos.variant))
        s.load(r)
        return cls(s, tab, pos.variant, list(pos.armies))

    @classmethod
    def from_json(cls, text: str, cards: CardSet | None = None) -> Game:
        """Read a position or a view (notation.md section 3); errors are the notation's."""
        return cls.from_position(notation.position_from_text(text, cards or CORE))

    @classmethod
    def deal(
        cls,
        decks: Sequence[Sequence[str]],
        seed: int,
        variant: Variant | None = None,
        cards: CardSet | None = None,
        armies: Sequence[str] | None = None,
    ) -> Game:
        """The opening position of :func:`lordsofwar.rules.notation.deal` (the same shuffle)."""
        return cls.from_position(notation.deal(decks, seed, variant, cards or CORE, armies))

    def clone(self) -> Game:
        return type(self)(self._s.clone(), self._t, self.variant, list(self.armies))

    def __copy__(self) -> Game:
        return self.clone()

    def __deepcopy__(self, memo: dict[int, Any]) -> Game:
        return self.clone()

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as the position's notation (mid-turn state included), its frame and its card
        set (None for the core cards)."""
        cards = None if self.cards is CORE else self.cards
        return (_restore, (self.FRAME, json.dumps(self.to_json()), cards))

    # --- reading it out ---------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """The position as :func:`lordsofwar.rules.notation.position_to_json` writes it (the one
        writer of the position notation, fed from the core's :meth:`to_position`)."""
        return notation.position_to_json(self.to_position())

    def to_position(self) -> Position:
        """The same state as a :class:`lordsofwar.rules.state.Position`."""
        r = self._s.record()
        tab = self._t
        cards = self.cards
        pos = Position(cards, self.variant, turn=r.turn, to_move=r.to_move, quiet_turns=r.quiet_turns)
        units = r.units
        for u in units:
            pos.place(u.square, unit_kind(cards[tab.ids[u.card]], u.owner))
        for p, hand, deck, lost in zip((1, 2), r.hands, r.decks, r.lost, strict=True):
            pos.hands[p] = tab.names(hand)
            pos.decks[p] = tab.names(deck)
            pos.lost[p] = [c for c in tab.names(lost) if c is not None]
        pos.armies = list(self.armies)
        result = r.result
        if result is not None:
            pos.result = _result_from_core(result)
            pos.phase = "over"
            pos.deploys = []
            return pos
        engine.start_turn(pos)
        pos.phase = _PHASES[r.phase]
        pos.flags = {u.square: u.flags for u in units if u.flags}
        pos.shot_damage = {u.square: u.shot_damage for u in units if u.shot_damage >= 0}
        pos.shot_target = {u.square: u.shot_target for u in units if u.has_target}
        pos.generals_lost = r.generals_lost
        pos.eliminated = r.eliminated
        pos.forced = r.forced
        pos.in_turn = r.in_turn
        pos.deploys = None if pos.phase == "pre" else []
        adv = r.advance
        if adv is not None:
            pos.advance = AdvanceRound(list(adv.owners), dict(adv.candidates), set(adv.taken), adv.advanced)
        return pos

    @property
    def result(self) -> Result | None:
        s = self._s
        return None if s.result is None else _result_from_core(s.result)

    @property
    def is_over(self) -> bool:
        return bool(self._s.over)

    @property
    def turn(self) -> int:
        return int(self._s.turn)

    @property
    def to_move(self) -> int:
        return int(self._s.to_move)

    @property
    def decider(self) -> int:
        """The player who must act now: ``to_move``, or the owner of berserkers being placed."""
        return int(self._s.decider)

    @property
    def phase(self) -> str:
        return _PHASES[self._s.phase]

    # --- acting -----------------------------------------------------------------------------

    def legal(self) -> list[str]:
        """The legal actions of the decider, as notation strings."""
        try:
            return list(self._s.legal())
        except _core.Hidden as exc:
            raise HiddenInformationError(str(exc)) from None

    def _refuse(self, action: Action) -> IllegalActionError:
        return engine.refuse(self.to_position(), action)

    def apply(self, text: str | Action) -> list[Event]:
        """Apply one action (notation text) and return its events; a refusal changes nothing."""
        action = parse_action(text, self) if isinstance(text, str) else text
        index = self._t.index
        card = index.get(action.card, -1)
        if action.kind == "deploy" and action.card not in index:
            raise InvalidActionError(f"action {str(action)!r}: unknown card {action.card!r}")
        try:
            events = list(self._s.apply(_KIND_INDEX[action.kind], card, action.frm or 0, action.to or 0))
        except _core.Illegal:
            raise self._refuse(action) from None
        except _core.Hidden as exc:  # the core put the game back as it was
            raise HiddenInformationError(str(exc)) from None
        if events and events[-1]["type"] == "result":  # the core gives the code; the rules the event
            events[-1] = engine.result_event(_result_from_core(self._s.result))
        return events

    # --- integer actions (docs/core.md) ----------------------------------------------------------

    @property
    def num_actions(self) -> int:
        w, h = self.FRAME
        return int(self._s.num_actions(w, h))

    def legal_ids(self) -> list[int]:
        """The legal actions as integers, ascending."""
        w, h = self.FRAME
        try:
            return list(self._s.legal_ids(w, h))
        except IndexError:  # the reference encoding names the action and the square
            encoding.legal_ids(self.to_position(), self.FRAME)
            raise AssertionError("legal_ids: the core finds an action outside the frame, the reference none") from None
        except _core.Hidden as exc:
            raise HiddenInformationError(str(exc)) from None

    def _decode(self, i: int) -> tuple[int, int, int, int, str]:
        """The action id ``i`` names here, or the encoding's :class:`InvalidActionError`."""
        w, h = self.FRAME
        decoded: tuple[int, int, int, int, str] | None = None
        if not isinstance(i, bool) and isinstance(i, int) and 0 <= i < self._s.num_actions(w, h):
            decoded = self._s.decode(i, w, h)
        if decoded is None:  # the reference encoding says why
            pos = self.to_position()
            encoding.decode(pos, encoding.frame_of(pos, self.FRAME), i)
            raise AssertionError(f"action id {i!r}: the core and the reference encoding disagree")
        return decoded

    def apply_id(self, i: int) -> None:
        """Apply the action with id ``i``; an id that is not legal changes nothing."""
        w, h = self.FRAME
        try:
            if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < self._s.num_actions(w, h):
                raise _core.Illegal()
            self._s.apply_id(i, w, h)
        except _core.Illegal:
            # Why: the reference decoding (not the text, which names off-mat squares the
            # bordered mat's reader refuses), explained by the reference engine.
            try:
                self._decode(i)
            except InvalidActionError as exc:
                raise IllegalActionError(f"{exc}; no legal action has this id") from None
            pos = self.to_position()
            action = encoding.decode(pos, encoding.frame_of(pos, self.FRAME), i)
            raise IllegalActionError(f"action id {i}: {engine.explain_illegal(pos, action)}") from None
        except _core.Hidden as exc:  # the core put the game back as it was
            raise HiddenInformationError(str(exc)) from None

    def action_text(self, i: int) -> str:
        """The notation of the action with id ``i`` here."""
        return self._decode(i)[4]

    def action_id(self, text: str | Action) -> int:
        """The id of an action (notation text) here, legal or not."""
        action = parse_action(text, self) if isinstance(text, str) else text
        w, h = self.FRAME
        card = self._t.index.get(action.card, -2) if action.kind == "deploy" else -1
        i = -1 if card == -2 else self._s.encode(_KIND_INDEX[action.kind], card, action.frm or 0, action.to or 0, w, h)
        if i < 0:  # the reference encoding says why
            i = encoding.action_id(self.to_position(), action, self.FRAME)
            raise AssertionError(f"{action}: the core has no id, the reference encoding gives {i}")
        return int(i)

    # --- observations (docs/core.md) -----------------------------------------------------------

    def observation(self) -> tuple[np.ndarray, np.ndarray]:
        """What the decider may know, from the decider's side: ``planes`` (PLANES x H x W bytes)
        and ``info`` (INFO floats), at the decision point as listing the legal actions resolves it
        (a turn with no deployment possible is in its post phase; a forced deployment is known)."""
        w, h = self.FRAME
        if self._s.phase == 0 and not self._s.over:
            # The start of the turn is resolved lazily, by the first legal listing (3.4).
            # With the decider's hand hidden (a view of the other player) it stays unresolved.
            with contextlib.suppress(_core.Hidden):
                self._s.resolve()
        fw, fh = (7, 6) if self.variant.bordered else (w, h)
        planes = np.empty((_core.PLANES, fh, fw), np.uint8)  # observe clears both first
        info = np.empty(_core.INFO, np.float32)
        self._s.observe(planes, info, w, h)
        return planes, info

    def observe_into(self, observation: np.ndarray, mask: np.ndarray) -> int:
        """For the RL environments, in one call: the decider's observation as one float32 vector
        (the planes as numbers, plane by plane, then ``info``) into ``observation``, and the
        legal ids into ``mask`` (int8, ``num_actions``); returns how many ids are legal."""
        w, h = self.FRAME
        try:
            return int(self._s.observe_into(observation, mask, w, h))
        except _core.Hidden as exc:
            raise HiddenInformationError(str(exc)) from None

    def legal_mask(self) -> np.ndarray:
        """The legal ids as a 0/1 byte per id (``num_actions`` bytes)."""
        w, h = self.FRAME
        mask = np.empty(self.num_actions, np.uint8)  # the core clears it first
        try:
            self._s.mask(mask, w, h)
        except _core.Hidden as exc:
            raise HiddenInformationError(str(exc)) from None
        return mask

    # --- the greedy bot --------------------------------------------------------------------------

    def greedy_action(self, seed: int) -> str:
        """The action of the greedy bot (``lordsofwar.bots.greedy``, compiled) for the decider, as
        notation text; among equally good actions one drawn with ``seed``. It reads only what the
        decider may know (docs/core.md, "The greedy bot")."""
        if self._s.over:
            raise ValueError("greedy_action: the game is over")
        try:
            return str(self._s.greedy(greedy_handle(self.cards, self.variant), seed & (2**64 - 1)))
        except _core.Hidden as exc:
            raise HiddenInformationError(str(exc)) from None

    def greedy_scores(self) -> list[tuple[str, float, float, float]]:
        """The greedy bot's judgement of every legal action for the decider, in the order of the
        legal actions: (notation text, score, tie-break preference, exposure), as
        ``GreedyBot.evaluate`` gives them (docs/core.md, "The greedy bot")."""
        if self._s.over:
            raise ValueError("greedy_scores: the game is over")
        try:
            return [
                (str(t), float(s), float(p), float(e))
                for t, s, p, e in self._s.greedy_scores(greedy_handle(self.cards, self.variant))
            ]
        except _core.Hidden as exc:
            raise HiddenInformationError(str(exc)) from None

    # --- views, hidden cards, playouts ---------------------------------------------------------

    def view(self, player: int) -> Game:
        """What ``player`` may know (notation.view): hidden cards unknown."""
        return type(self).from_position(notation.view(self.to_position(), player))

    def hidden(self) -> dict[int, dict[str, int]]:
        """The number of unknown cards per player and place."""
        hand1, deck1, hand2, deck2 = self._s.hidden
        return {1: {"hand": hand1, "deck": deck1}, 2: {"hand": hand2, "deck": deck2}}

    def fill(self, cards_by_player: Mapping[int, Mapping[str, Sequence[str]]]) -> Game:
        """A full game: this view's unknown entries replaced, in order (docs/core.md)."""
        return type(self).from_position(encoding.fill_position(self.to_position(), cards_by_player))

    def determinize(
        self,
        seed: int,
        pools: Mapping[int, Sequence[str]] | None = None,
        known: Mapping[int, Sequence[str]] | None = None,
    ) -> Game:
        """A sampled world consistent with this view and with ``known`` (hand cards in the open:
        :func:`lordsofwar.rules.knowledge.known_hands`); docs/core.md."""
        return type(self).from_position(encoding.determinize_position(self.to_position(), seed, pools, known))

    def playout(self, seed: int, policy: str = "uniform", max_turns: int | None = None) -> Result | None:
        """Play on in place with ``policy``; the result, or None when ``max_turns`` ended it first."""
        if policy not in _POLICIES:
            raise ValueError(f"playout: unknown policy {policy!r} (expected 'uniform' or 'greedy')")
        if max_turns is not None and max_turns < 0:
            raise ValueError(f"playout: max_turns must be at least 0, got {max_turns}")
        if any(self._s.hidden):
            raise HiddenInformationError("playout needs every card known: fill or determinize the view first")
        try:
            self._s.playout(seed & (2**64 - 1), _POLICIES[policy], -1 if max_turns is None else max_turns)
        except _core.Hidden as exc:
            raise HiddenInformationError(str(exc)) from None
        return self.result

    def __repr__(self) -> str:
        return f"<core.Game native turn={self.turn} decider={self.decider} phase={self.phase}>"


def _restore(frame: tuple[int, int], text: str, cards: CardSet | None) -> Game:
    """A pickled :class:`Game` again (:meth:`Game.__reduce__`)."""
    from lordsofwar.core.batching import with_frame

    return with_frame(Game, (frame[0], frame[1])).from_json(text, cards)

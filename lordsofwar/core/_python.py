"""The ``lordsofwar.core`` API in plain Python, over the reference rules (docs/core.md).

Used when the compiled extension cannot be built, and by the tests as the statement of what the
native core must do: every method is a thin call into :mod:`lordsofwar.rules`,
:mod:`lordsofwar.core.encoding` or :mod:`lordsofwar.core.observation`, so it plays exactly the
reference rules, only slower. :class:`Batch` is the native batch's API and buffers over these games.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from lordsofwar.core import encoding, observation
from lordsofwar.core.batching import OPPONENT_SEED, SEARCH_OPPONENTS, SKIP, BatchBuffers, with_frame
from lordsofwar.rules import engine, mat, notation
from lordsofwar.rules.actions import parse_action
from lordsofwar.rules.cards import CORE, CardSet
from lordsofwar.rules.errors import HiddenInformationError, IllegalActionError, InvalidActionError
from lordsofwar.rules.state import Action, Event, Position, Result, Variant

IMPLEMENTATION = "python"
"""Which implementation this module is ("native" for the compiled core)."""

POLICIES = ("uniform", "greedy")
"""The playout policies: every legal action equally likely, or eliminating shots and
deployments first."""


class Game:
    """A game at a decision point: the rules position it wraps, with string and integer actions,
    views of hidden cards, sampled worlds and random playouts (docs/core.md)."""

    __slots__ = ("_pos",)

    FRAME: ClassVar[tuple[int, int]] = encoding.FRAME
    """``(W, H)`` of the frame of integer actions on the unbordered mat."""

    def __init__(self, pos: Position):
        """Wrap ``pos`` itself (no copy); :meth:`from_position` copies."""
        self._pos = pos

    # --- making a game ---------------------------------------------------------------------

    @classmethod
    def from_json(cls, text: str, cards: CardSet | None = None) -> Game:
        """A position or a view (notation.md section 3) read from JSON text."""
        return cls(notation.position_from_text(text, CORE if cards is None else cards))

    @classmethod
    def from_position(cls, pos: Position) -> Game:
        """A game in the state of ``pos`` (copied: ``pos`` is not changed by playing on)."""
        return cls(pos.copy())

    @classmethod
    def deal(
        cls,
        decks: Sequence[Sequence[str]],
        seed: int,
        variant: Variant | None = None,
        cards: CardSet | None = None,
        armies: Sequence[str] | None = None,
    ) -> Game:
        """The opening position of a new game, shuffled as :func:`notation.deal` shuffles."""
        return cls(notation.deal(decks, seed, variant, CORE if cards is None else cards, armies))

    def to_json(self) -> dict[str, Any]:
        """The position in notation.md section 3 (:func:`notation.position_to_json`)."""
        return notation.position_to_json(self._pos)

    def to_position(self) -> Position:
        """A :class:`Position` with the same state (a copy)."""
        return self._pos.copy()

    def clone(self) -> Game:
        """An independent copy."""
        return type(self)(self._pos.copy())

    def __copy__(self) -> Game:
        return self.clone()

    def __deepcopy__(self, memo: dict[int, Any]) -> Game:
        return self.clone()

    def __repr__(self) -> str:
        pos = self._pos
        if pos.result is not None:
            return f"<Game {IMPLEMENTATION} turn {pos.turn}, over: {pos.result.reason}>"
        return f"<Game {IMPLEMENTATION} turn {pos.turn}, player {pos.decider} to act, phase {pos.phase}>"

    # --- the state -------------------------------------------------------------------------

    @property
    def result(self) -> Result | None:
        """None while the game runs, else the winner (None for a draw) and the reason."""
        return self._pos.result

    @property
    def to_move(self) -> int:
        """The player whose turn it is."""
        return self._pos.to_move

    @property
    def decider(self) -> int:
        """The player who must act now: ``to_move``, or the owner of berserkers advancing."""
        return self._pos.decider

    @property
    def cards(self) -> CardSet:
        """The card set of the game (card packs included)."""
        return self._pos.cards

    @property
    def variant(self) -> Variant:
        return self._pos.variant

    @property
    def armies(self) -> list[str]:
        return list(self._pos.armies)

    @property
    def turn(self) -> int:
        return self._pos.turn

    @property
    def phase(self) -> str:
        """``pre``, ``advance``, ``post`` or ``over`` (notation.md, ``turn_state``)."""
        return self._pos.phase

    @property
    def is_over(self) -> bool:
        return self._pos.result is not None

    # --- string actions --------------------------------------------------------------------

    def legal(self) -> list[str]:
        """The legal actions of the decider, as notation strings."""
        return [str(a) for a in self._pos.legal_actions()]

    def apply(self, text: str) -> list[Event]:
        """Apply one action written in notation and return its events; an unreadable action
        raises :class:`InvalidActionError`, a forbidden one :class:`IllegalActionError`, and
        neither changes the game."""
        return self._pos.push(parse_action(text, self._pos))

    # --- integer actions (docs/core.md, "Integer actions") -----------------------------------

    @property
    def num_actions(self) -> int:
        """The size of the id space at this decision point (1,724 on the bordered core mat)."""
        return encoding.num_actions(self._pos, self.FRAME)

    def legal_ids(self) -> list[int]:
        """The legal actions as ids, ascending; :class:`encoding.FrameError` when one falls
        outside the frame (string actions always work)."""
        return encoding.legal_ids(self._pos, self.FRAME)

    def apply_id(self, i: int) -> None:
        """Apply the legal action with id ``i``; any other id raises :class:`IllegalActionError`
        naming the id (and the action it decodes to, with the rule that forbids it) and changes
        nothing."""
        pos = self._pos
        frame = encoding.frame_of(pos, self.FRAME)
        try:
            action = encoding.decode(pos, frame, i)
        except InvalidActionError as exc:
            raise IllegalActionError(f"{exc}; no legal action has this id") from None
        if not engine.is_legal(pos, action):
            raise IllegalActionError(f"action id {i}: {engine.explain_illegal(pos, action)}")
        pos.push(action)

    def action_id(self, text: str | Action) -> int:
        """The id of an action (notation text, or an :class:`Action`), legal or not
        (:func:`encoding.action_id`)."""
        action = parse_action(text, self._pos) if isinstance(text, str) else text
        return encoding.action_id(self._pos, action, self.FRAME)

    def action_text(self, i: int) -> str:
        """The notation of the action id ``i`` names here, legal or not."""
        return str(encoding.action_from_id(self._pos, i, self.FRAME))

    # --- observations (lordsofwar.core.observation) ------------------------------------------

    def observation(self) -> tuple[np.ndarray, np.ndarray]:
        """What the decider may know, from the decider's side (:func:`observation.observe`):
        ``planes`` (PLANES x H x W bytes) and ``info`` (INFO floats)."""
        return observation.observe(self._pos, self.FRAME)

    def legal_mask(self) -> np.ndarray:
        """The legal ids as a 0/1 byte per id (``num_actions`` bytes); a legal action whose
        square falls outside the frame has no id and is left out."""
        return observation.legal_mask(self._pos, self.FRAME)

    def observe_into(self, observation: np.ndarray, mask: np.ndarray) -> int:
        """For the RL environments, in one call: the decider's observation as one float32 vector
        (the planes as numbers, plane by plane, then ``info``) into ``observation``, and the
        legal ids into ``mask`` (int8, ``num_actions``); returns how many ids are legal."""
        legal = self.legal_mask()
        planes, info = self.observation()
        if observation.shape != (planes.size + info.size,) or mask.shape != legal.shape:
            raise ValueError("buffers of the wrong size for this frame")
        observation[: planes.size] = planes.reshape(-1)
        observation[planes.size :] = info
        mask[:] = legal
        return int(legal.sum())

    # --- the greedy bot ------------------------------------------------------------------------

    def greedy_action(self, seed: int) -> str:
        """The action of the greedy bot (:class:`lordsofwar.bots.greedy.GreedyBot` seeded with
        ``seed``) for the decider, from the decider's view, as notation text."""
        from lordsofwar.bots.greedy import GreedyBot

        pos = self._pos
        if pos.result is not None:
            raise ValueError("greedy_action: the game is over")
        return str(GreedyBot(seed).choose(notation.view(pos, pos.decider)))

    def greedy_scores(self) -> list[tuple[str, float, float, float]]:
        """The greedy bot's judgement of every legal action for the decider, from the decider's
        view, in the order of the legal actions: (notation text, score, tie-break preference,
        exposure), as :meth:`lordsofwar.bots.greedy.GreedyBot.evaluate` gives them."""
        from lordsofwar.bots.greedy import GreedyBot

        pos = self._pos
        if pos.result is not None:
            raise ValueError("greedy_scores: the game is over")
        view = notation.view(pos, pos.decider)
        bot = GreedyBot(0)
        out: list[tuple[str, float, float, float]] = []
        for action in view.legal_actions():
            score, (preference, exposure) = bot.evaluate(view, action, pos.decider)
            out.append((str(action), float(score), float(preference), float(exposure)))
        return out

    # --- views, hidden cards and playouts ----------------------------------------------------

    def view(self, player: int) -> Game:
        """What ``player`` may know (:func:`notation.view`): decks and a hidden opponent hand unknown."""
        return type(self)(notation.view(self._pos, player))

    def hidden(self) -> dict[int, dict[str, int]]:
        """The unknown cards per place: ``{1: {"hand": n, "deck": n}, 2: {...}}``."""
        pos = self._pos
        return {p: {"hand": pos.hands[p].count(None), "deck": pos.decks[p].count(None)} for p in (1, 2)}

    def fill(self, cards_by_player: Mapping[int, Mapping[str, Sequence[str]]]) -> Game:
        """A full game: each player's unknown hand and deck entries replaced, in order, by the
        cards given (:func:`encoding.fill_position`); this game is unchanged."""
        return type(self)(encoding.fill_position(self._pos, cards_by_player))

    def determinize(
        self,
        seed: int,
        pools: Mapping[int, Sequence[str]] | None = None,
        known: Mapping[int, Sequence[str]] | None = None,
    ) -> Game:
        """A sampled full game consistent with this view and with ``known`` (hand cards in the
        open) (:func:`encoding.determinize_position`); this game is unchanged."""
        return type(self)(encoding.determinize_position(self._pos, seed, pools, known))

    def playout(self, seed: int, policy: str = "uniform", max_turns: int | None = None) -> Result | None:
        """Play on in place with ``random.Random(seed)`` until the game ends or ``max_turns`` more
        turns have started; the result, or None when ``max_turns`` stopped it first.

        ``policy`` ``"uniform"`` picks every legal action with equal chance; ``"greedy"`` picks
        among the shots and deployments that eliminate an enemy unit at once when there are
        any. Actions are sorted by notation before the choice, so a seed always plays the same.
        """
        if policy not in POLICIES:
            raise ValueError(f"playout: unknown policy {policy!r} (expected 'uniform' or 'greedy')")
        if max_turns is not None and max_turns < 0:
            raise ValueError(f"playout: max_turns must be at least 0, got {max_turns}")
        pos = self._pos
        if pos.is_view:
            raise HiddenInformationError("playout needs every card known: fill or determinize the view first")
        rng = random.Random(seed)
        stop = None if max_turns is None else pos.turn + max_turns
        greedy = policy == "greedy"
        while pos.result is None and (stop is None or pos.turn < stop):
            actions = sorted(pos.legal_actions(), key=str)
            if greedy:
                actions = [a for a in actions if _eliminates(pos, a)] or actions
            pos.push(rng.choice(actions))
        return pos.result


def _eliminates(pos: Position, action: Action) -> bool:
    """The greedy policy's test: a shot or deployment that eliminates an enemy unit at once."""
    if action.kind not in ("shoot", "deploy"):
        return False
    _, events = pos.apply(action)
    return any(e["type"] == "eliminated" and e["owner"] != pos.decider for e in events)


class Batch(BatchBuffers):
    """``size`` games stepped together with automatic reset: the API and the buffers of the
    compiled ``lordsofwar.core.Batch`` (:class:`~lordsofwar.core.batching.BatchBuffers`,
    docs/core.md), on the Python engine.

    One ``random.Random(seed)`` draws each game's two decks and its :func:`notation.deal` seed,
    and the random ids of :meth:`sample`.
    """

    def __init__(
        self,
        size: int,
        seed: int = 0,
        variant: Variant | None = None,
        decks: Sequence[Sequence[str]] | None = None,
        cards: CardSet | None = None,
        frame: tuple[int, int] = encoding.FRAME,
        opponent: str | None = None,
        seats: Sequence[int] | None = None,
    ):
        if opponent in SEARCH_OPPONENTS:
            raise ValueError(f"opponent {opponent!r}: the search opponents play in the compiled core only")
        super().__init__(size, variant, decks, cards, frame, opponent, seats)
        self._rng = random.Random(seed)
        self._opponent_rng = random.Random(seed ^ OPPONENT_SEED)
        self._game_class = with_frame(Game, self.frame)
        width, height = (mat.WIDTH, mat.HEIGHT) if self.variant.bordered else self.frame
        self.allocate(width, height, encoding.Frame(0, 0, width, height, 1, self.cards).num_actions)
        self._games: list[Game] = []
        self._steps = 0
        self._episodes = 0
        self.reset()

    def _deal(self) -> Game:
        rng = self._rng
        decks = self.decks
        pair = [decks[rng.randrange(len(decks))], decks[rng.randrange(len(decks))]]
        return self._game_class.deal(pair, rng.getrandbits(32), self.variant, self.cards)

    def _write(self, b: int) -> bool:
        """Write game ``b``'s row of the buffers; False when no legal action has an id."""
        pos = self._games[b]._pos
        observation.resolve(pos)
        frame = encoding.frame_of(pos, self.frame)
        count, _missing = observation.write_mask(pos, frame, self.mask[b])
        observation.write(pos, frame, self.planes[b], self.info[b])
        self.to_play[b] = pos.decider
        return count > 0

    def reset(self) -> None:
        """Deal every game afresh (the opponent, if any, plays until its learner decides)."""
        self._games = []
        self._finished: list[Game | None] = [None] * self.size
        for b in range(self.size):
            self._games.append(self._deal())
            self._settle(b)
        self.clear_outcomes()

    def _end(self, b: int) -> None:
        """Game ``b`` ended: its rewards (added), done, kept as finished, and a new one dealt."""
        winner = self._games[b]._pos.result.winner  # type: ignore[union-attr]
        if winner:
            self.rewards[b, winner - 1] += 1
            self.rewards[b, 2 - winner] -= 1
        self.done[b] = 1
        self._episodes += 1
        self._finished[b] = self._games[b]
        self._games[b] = self._deal()

    def _opponent_plays(self, b: int) -> None:
        """The opponent's actions in game ``b`` until its learner decides."""
        if self.opponent is None:
            return
        from lordsofwar.bots.greedy import GreedyBot

        while (pos := self._games[b]._pos).decider != self.seats[b]:
            if self.opponent == "greedy":
                action = GreedyBot(self._opponent_rng.getrandbits(32)).choose(notation.view(pos, pos.decider))
            else:
                action = self._opponent_rng.choice(sorted(pos.legal_actions(), key=str))
            pos.push(action)
            self._steps += 1
            if pos.result is not None:
                self._end(b)

    def _settle(self, b: int) -> None:
        """Game ``b``'s row for its learner: the opponent plays first; a game whose learner has no
        legal id in the frame is cut short (done and truncated) and dealt again."""
        self._opponent_plays(b)
        while not self._write(b):
            # No legal action has an id in the frame (units spread wider than it): the game
            # is cut short, as a draw, and a new one dealt.
            self.done[b] = self.truncated[b] = 1
            self._episodes += 1
            self._finished[b] = self._games[b]
            self._games[b] = self._deal()
            self._opponent_plays(b)

    def step(self, actions: np.ndarray) -> None:
        """Apply ``actions[i]`` (an id) to game ``i``, all checked first: one that is not legal
        raises :class:`IllegalActionError` and nothing changes. ``SKIP`` (-1) leaves game ``i``
        as it is (its rewards, done and truncated read 0)."""
        acts = np.ascontiguousarray(actions, dtype=np.int32).reshape(-1)
        if acts.size != self.size:
            raise ValueError("actions, done and truncated hold one entry per game, rewards two")
        ids = [int(i) for i in acts]
        for b, i in enumerate(ids):
            if i != SKIP and not (0 <= i < self.num_actions and self.mask[b, i]):
                raise IllegalActionError(f"game {b} of the batch: action id {i} is not legal there")
        for b, i in enumerate(ids):
            if i == SKIP:  # this game waits: its rows stay as they are
                self.rewards[b] = 0
                self.done[b] = self.truncated[b] = 0
                continue
            pos = self._games[b]._pos
            pos.push(encoding.decode(pos, encoding.frame_of(pos, self.frame), i))
            self._steps += 1
            self.rewards[b] = 0
            self.done[b] = self.truncated[b] = 0
            if pos.result is not None:
                self._end(b)
            self._settle(b)

    def sample(self) -> np.ndarray:
        """A uniformly random legal id for every game (in ``self.actions``; -1 for none)."""
        rng = self._rng
        for b in range(self.size):
            ids = np.flatnonzero(self.mask[b])
            self.actions[b] = ids[rng.randrange(len(ids))] if len(ids) else -1
        return self.actions

    def game(self, i: int) -> Game:
        """A copy of game ``i`` as a :class:`Game` (with the batch's frame)."""
        if not 0 <= i < self.size:
            raise IndexError("no such game in the batch")
        return self._games[i].clone()

    def finished(self, i: int) -> Game | None:
        """A copy of the last game that ended in slot ``i``, as it ended (its result, its last
        position); None before any did. It stays until game ``i`` ends again."""
        if not 0 <= i < self.size:
            raise IndexError("no such game in the batch")
        game = self._finished[i]
        return None if game is None else game.clone()

    def finished_result(self, i: int) -> Result | None:
        """The result of the last game that ended in slot ``i``; None before any did, or when it
        was cut short."""
        if not 0 <= i < self.size:
            raise IndexError("no such game in the batch")
        game = self._finished[i]
        return None if game is None else game.result

    def observe_finished(
        self, rows: Sequence[int] | np.ndarray, players: Sequence[int] | np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """As the compiled batch's: each finished game's last observation from a player's side
        (that player's view of it, in its frame)."""
        r, p = self._finished_args(rows, players)
        planes, info = self._finished_buffers(r.size)
        for k, (i, player) in enumerate(zip(r.tolist(), p.tolist(), strict=True)):
            game = self._finished[i]
            if game is None:
                raise ValueError("observe_finished: no game ended there yet")
            observation.write_player(game.to_position(), player, self.frame, planes[k], info[k])
        return planes, info

    def greedy_scores(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """As the compiled batch's: the greedy bot's judgement of every game's legal ids."""
        from lordsofwar.bots.features import raw_scores

        scored = [raw_scores(game) for game in self._games]  # every game waits for its decider
        ptr = np.concatenate([[0], np.cumsum([len(i) for i, _ in scored])]).astype(np.int64)
        ids = np.concatenate([i for i, _ in scored]).astype(np.int32)
        raw = np.concatenate([r for _, r in scored]).astype(np.float32).reshape(-1, 3)
        return ids, raw, ptr

    def opponent_view(self, i: int, seed: int = 0) -> tuple[Game, list[str], list[str], list[str]]:
        """As the compiled batch's: what a search opponent searches from. This batch plays no
        search opponent, so it always refuses."""
        raise ValueError(f"opponent {self.opponent!r}: only a search opponent searches from a view")

    @property
    def steps(self) -> int:
        """Actions applied since the batch was made (the opponent's included)."""
        return self._steps

    @property
    def episodes(self) -> int:
        """Games finished since the batch was made."""
        return self._episodes

"""A greedy opponent: it prefers the action that eliminates the most value this turn.

The bot plays from its own view only (``notation.view(pos, player)``): it simulates its
candidate actions on copies of that view, which the engine allows wherever no hidden card is
needed. It never simulates a reinforcement (``draw``, ``recall``, ``pass``): those eliminate
nothing, a draw from a hidden deck would only add an unknown card, and the end of the turn may
need the opponent's hidden hand. Any simulation that still runs into hidden information
(``HiddenInformationError``) counts as eliminating nothing.

How an action is scored:

1. Push it on a copy of the view; its *gain* is the value of the enemy units eliminated minus
   the value of the bot's own units eliminated (every ``eliminated`` event counts), plus
   :data:`WIN` for a ``result`` won (minus it for one lost).
2. Follow the rest of the same turn greedily: while the bot (or, for a berserker choice, the
   opponent) decides, push each deploy, shot, move or advance on a copy and continue with the
   best one for that decider (the worst one for the bot when the opponent chooses). Optional
   actions after the deployment (fired shots, moves) are taken only while they gain something.
   The turn is followed for at most :data:`ROLLOUT_PUSHES` simulated actions per candidate.
3. Where the line stops, the thresholds of the game (clarifications 8.2) are checked as they
   would be at the end of the turn: a game won this way is worth :data:`WIN`, a game lost
   minus it.

Equal scores are broken by small heuristics, in order: a preference by kind (a deployment or
a berserker advance over a shot or a move that gains nothing; a draw over a recall; a recall
of an exposed, valuable unit when the bot cannot draw), then the exposure of the units at the
end of the line (own units close to elimination cost their value, enemy ones so exposed count
a quarter of theirs), and last the bot's own seeded ``random.Random``. Actions are sorted by their
notation text first, so a seed always gives the same choices.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from lordsofwar.rules import engine, mat
from lordsofwar.rules.cards import Card, CardSet
from lordsofwar.rules.errors import HiddenInformationError
from lordsofwar.rules.state import Action, Event, Position, Variant

WIN = 100_000.0
"""The score of winning the game (losing scores minus this)."""

RANK_BONUS: Mapping[str, float] = {
    "general": 30.0,
    "command": 6.0,
    "special": 5.0,
    "elite": 4.0,
    "veteran": 3.0,
    "regular": 2.0,
    "recruit": 1.0,
}
"""What a rank adds to a unit's value, on top of its share of the thresholds."""

ROLLOUT_PUSHES = 150
"""Actions simulated at most while following the rest of the turn after one candidate."""

FRESH_ARROW = 3
"""About the arrow a freshly deployed enemy card adds against an adjacent unit (the usual
largest arrow of a core card), used to judge how exposed a unit is (3 beat 2 and 4 in 150
greedy-against-greedy games each: 86 to 62 and 87 to 63)."""

_REINFORCEMENTS = frozenset({"draw", "recall", "pass"})
_ON_MAT_NEIGHBOURS: dict[int, tuple[int, ...]] = {
    sq: tuple(t for t, _ in found) for sq, found in mat.NEIGHBOURS_BACK_ON_MAT.items()
}
_EPS = 1e-9


def card_value(card: Card, variant: Variant) -> float:
    """What eliminating ``card`` is worth.

    Every unit is a step towards the unit threshold (``100 / units_to_win``); a command unit
    (the general or a command card) is also a step towards the command threshold
    (``100 / commands_to_win``); then a bonus by rank (:data:`RANK_BONUS`: the general, whose
    loss also gives the opponent an extra turn, far above the rest) and a little for the
    card's defence, arrows and ranged damage. With the default 20/4 game a recruit is worth
    about 8, a command card about 38 and a general about 64.
    """
    value = 100.0 / max(variant.units_to_win, 1)
    if card.is_command:
        value += 100.0 / max(variant.commands_to_win, 1)
    value += RANK_BONUS.get(card.rank, 0.0)
    value += 0.3 * card.defence + 0.15 * sum(card.attacks.values())
    if card.ranged is not None:
        value += 0.3 * card.ranged.damage
    return value


class GreedyBot:
    """Prefers the action that eliminates the most value this turn (see the module text)."""

    name = "greedy"
    enemy_weight = 0.25
    """How much an exposed enemy unit counts in the tie-break, relative to an exposed own unit
    (0.25 beat 0.5 in 300 greedy-against-greedy games, 166 to 134)."""
    fresh_arrow = FRESH_ARROW

    def __init__(self, seed: int | None = None, rollout_pushes: int = ROLLOUT_PUSHES):
        self.seed = seed
        self.rng = random.Random(seed)
        self.rollout_pushes = rollout_pushes
        self._values: dict[str, float] = {}
        self._values_for: tuple[CardSet, Variant] | None = None
        self._cards: CardSet | None = None
        self._variant = Variant()
        self._any_moves = False
        self._budget = 0

    # --- choosing ------------------------------------------------------------------------------

    def choose(
        self,
        view: Position,
        known: Mapping[int, Sequence[str]] | None = None,
        deck: Sequence[str] | None = None,
    ) -> Action:
        """``known`` and ``deck`` (what the opponent showed, the bot's own list) are not used: the
        greedy bot looks only at the cards in the open."""
        actions = sorted(view.legal_actions(), key=str)
        if not actions:
            raise ValueError("the greedy bot was asked to act, but its view has no legal action")
        if len(actions) == 1:
            return actions[0]
        self._prepare(view)
        me = view.decider
        ranked: list[tuple[float, tuple[float, float], Action]] = []
        for action in actions:
            score, tie = self.evaluate(view, action, me)
            ranked.append((score, tie, action))
        best_score = max(r[0] for r in ranked)
        top = [r for r in ranked if r[0] >= best_score - _EPS]
        best_tie = max(r[1] for r in top)
        finalists = [r[2] for r in top if r[1][0] == best_tie[0] and r[1][1] >= best_tie[1] - _EPS]
        return finalists[0] if len(finalists) == 1 else self.rng.choice(finalists)

    def evaluate(self, view: Position, action: Action, me: int) -> tuple[float, tuple[float, float]]:
        """The score of ``action`` for player ``me`` and its tie-break key (higher is better)."""
        self._prepare(view)
        kind = action.kind
        if kind in _REINFORCEMENTS:
            return self._terminal(view, me), (self._reinforcement_preference(view, action, me), 0.0)
        pos = view.copy()
        try:
            events = pos.push(action)
        except HiddenInformationError:
            return self._terminal(view, me), (-1.0, 0.0)
        score = self._gain(events, me)
        self._budget = self.rollout_pushes
        if pos.result is None:
            rest, pos = self._rest_of_turn(pos, me, view.turn)
            score += rest
        preference = 1.0 if kind in ("deploy", "advance") else 0.0
        return score, (preference, self._exposure(pos, me))

    # --- the rest of the turn --------------------------------------------------------------------

    def _rest_of_turn(self, pos: Position, me: int, turn: int) -> tuple[float, Position]:
        """Follow the turn greedily from ``pos``; the gain on the way and the position reached."""
        total = 0.0
        while True:
            if pos.result is not None:
                return total, pos
            decider = pos.decider
            if pos.turn != turn or (decider != me and pos.phase != "advance"):
                break
            if pos.phase == "post" and not _may_shoot_or_move(pos, self._any_moves):
                break  # only the reinforcement is left: skip listing it
            try:
                actions = pos.legal_actions()
            except HiddenInformationError:
                break
            options = [a for a in actions if a.kind not in _REINFORCEMENTS]
            if not options or self._budget <= 0:
                break
            optional = pos.phase == "post"
            maximise = decider == me
            best: tuple[float, int] | None = None
            best_gain = 0.0
            best_child = pos
            for a in options:
                if self._budget <= 0:
                    break
                self._budget -= 1
                child = pos.copy()
                try:
                    events = child.push(a)
                except HiddenInformationError:
                    continue
                gain = self._gain(events, me)
                # Before the deployment, a deploy beats a declared shot that gains as much.
                key = (gain if maximise else -gain, 1 if a.kind == "deploy" else 0)
                if best is None or key > best:
                    best, best_gain, best_child = key, gain, child
            if best is None:
                break
            gain, child = best_gain, best_child
            if optional and maximise and gain <= _EPS:
                break  # nothing more to gain this turn: the reinforcement comes next
            total += gain
            pos = child
        return total + self._terminal(pos, me), pos

    # --- values ----------------------------------------------------------------------------------

    def _prepare(self, view: Position) -> None:
        key = (view.cards, view.variant)
        if self._values_for is None or self._values_for[0] is not key[0] or self._values_for[1] != key[1]:
            self._values = {}
            self._values_for = key
            self._cards = view.cards
            self._variant = view.variant
            self._any_moves = any(card.moves for card in view.cards.values())

    def value(self, card_id: str) -> float:
        """The value of eliminating the card ``card_id`` (cached per card set and variant)."""
        v = self._values.get(card_id)
        if v is None:
            assert self._cards is not None, "value() needs a view first (choose or evaluate)"
            v = self._values[card_id] = card_value(self._cards.card(card_id), self._variant)
        return v

    def _gain(self, events: list[Event], me: int) -> float:
        gain = 0.0
        for e in events:
            if e["type"] == "eliminated":
                v = self.value(e["card"])
                gain += -v if e["owner"] == me else v
            elif e["type"] == "result":
                winner = e["winner"]
                if winner == me:
                    gain += WIN
                elif winner is not None:
                    gain -= WIN
        return gain

    def _terminal(self, pos: Position, me: int) -> float:
        """:data:`WIN` (or minus it) when the thresholds decide the game at the end of this turn."""
        if pos.result is not None:
            return 0.0  # already counted through the ``result`` event
        result = engine.threshold_result(pos)
        if result is None or result.winner is None:
            return 0.0
        return WIN if result.winner == me else -WIN

    # --- tie-break heuristics --------------------------------------------------------------------

    def _danger(self, pos: Position) -> dict[int, float]:
        """For every unit: how close it is to being eliminated in the next turn of its enemy.

        The damage it carries (enemy arrows pointing at it), plus :data:`FRESH_ARROW` when an
        empty neighbouring square would let the enemy deploy against it, plus the damage of
        enemy ranged units that are free to shoot at it. 1 when that reaches past its defence,
        else a small fraction.
        """
        board = pos.board
        attackers = pos.attackers
        reach: dict[int, int] = {}
        for p in (1, 2):
            for s in pos.ranged[p]:
                if s in attackers:
                    continue  # engaged ranged units cannot shoot
                u = board[s]
                for d in u.targets:
                    w = board.get(s + d)
                    if w is not None and w.owner != p:
                        reach[s + d] = reach.get(s + d, 0) + u.damage
        fresh = self.fresh_arrow
        neighbours = _ON_MAT_NEIGHBOURS if pos.variant.bordered else None
        deltas = mat.NEIGHBOUR_DELTAS
        out: dict[int, float] = {}
        for sq, u in board.items():
            r = reach.get(sq, 0)
            found = attackers.get(sq)
            if found:
                for _, v in found:
                    r += v
            for t in neighbours[sq] if neighbours is not None else [sq + d for d in deltas]:
                if t not in board:
                    r += fresh  # an empty square next to it: the enemy may deploy there
                    break
            defence = u.defence
            out[sq] = 1.0 if r > defence else 0.25 * r / (defence + 1)
        return out

    def _exposure(self, pos: Position, me: int) -> float:
        """Higher is better: minus the value at risk of own units, plus :attr:`enemy_weight` times
        that of the enemy's."""
        total = 0.0
        board = pos.board
        for sq, danger in self._danger(pos).items():
            u = board[sq]
            v = self.value(u.id) * danger
            total += -v if u.owner == me else self.enemy_weight * v
        return total

    def _reinforcement_preference(self, view: Position, action: Action, me: int) -> float:
        """Draw first; recall only when there is no draw, then the most valuable exposed unit."""
        if action.kind == "draw":
            return 3.0
        if action.kind == "pass":
            return 1.0
        if view.decks[me]:
            return 0.5  # recalling without a reason: below a draw
        assert action.frm is not None
        u = view.board[action.frm]
        at_risk = self.value(u.id) * self._danger(view).get(action.frm, 0.0)
        return 2.0 + at_risk / (at_risk + 1000.0)  # stays below a draw's preference

    def __repr__(self) -> str:
        return f"GreedyBot(seed={self.seed!r})"


def _may_shoot_or_move(pos: Position, any_moves: bool) -> bool:
    """Whether the player to move might still shoot or move this turn (a cheap first test; the
    engine's legal actions decide). ``any_moves``: some card of the card set has movement arrows."""
    mover = pos.to_move
    board = pos.board
    for s in pos.ranged[mover]:
        if engine.can_shoot(pos, s):
            for d in board[s].targets:
                w = board.get(s + d)
                if w is not None and w.owner != mover:
                    return True
    return any_moves and any(u.moves and u.owner == mover for u in board.values())

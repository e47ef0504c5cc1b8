"""The search bots: information-set Monte Carlo tree search on the native core.

A search bot is shown its own view (hidden cards ``None``), as every bot is. For each
iteration the core samples the hidden cards afresh, consistently with everything public:

- each player's unknown cards (hidden hand entries, then the deck) come from that player's
  *pool*: for a standard army, its 36-card list minus that player's cards in the open (units on
  the mat, the lost pile, known hand entries); for the bot's own custom deck, its list (the game
  loop hands it over: a player knows their own deck); for an opponent's custom or mercenary deck,
  whose cards are unknown, the prior of :func:`rank_prior`;
- hand cards the opponent revealed (a forced deployment shows the whole hand; a recalled unit
  goes back to the hand in the open) are given to the bot as ``known`` and stay in place until
  they are played (:func:`lordsofwar.rules.knowledge.known_hands` follows them through the
  public events);
- a general not in the open is in its owner's hand (the deal puts it there and nothing sends a
  card back to the deck), never in a deck (:func:`sampling_spec`).

The tree is one tree over the bot's information sets, shared by the sampled worlds (single
observer ISMCTS, Cowling, Powley and Whitehouse 2012). It branches on single actions: a turn is
several decisions in a row by the same player, each a level of the tree. Its breadth (a
deployment decision has 50 to 330 choices) is met with a playout policy that finds eliminations,
an expansion order that tries eliminating actions first, and a playout that runs only a few
turns past the leaf before a material evaluation (docs/bots.md says why).

A search given a trained network (:func:`load_network`) takes it one of two ways (docs/bots.md,
"`marshal`"): its policy gives each child a prior in a PUCT selection and its value judges a
new leaf in place of the playout; or (``prior_visits`` above 0, the ``marshal`` level, with the
shipped ``data/scout.npz``) the tree is searched as the levels below search it, with four times
their time, and the network's policy orders the expansions of the nodes visited most.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lordsofwar.bots.greedy import card_value
from lordsofwar.rules.cards import RANK_COUNTS, CardSet
from lordsofwar.rules.errors import HiddenInformationError
from lordsofwar.rules.state import Action, Position, Variant

if TYPE_CHECKING:
    from lordsofwar.bots.policy import Policy

POLICIES = {"uniform": 0, "greedy": 1}

DATA = Path(__file__).parent / "data"
"""Where the shipped network files are (package data: installed with the package, so the bot
pool's worker processes and remote workers find them)."""

UNCAPPED = 1_000_000
"""An iteration cap above this (with a time budget) means none: the time budget alone ends the search."""


@dataclass(frozen=True)
class SearchLevel:
    """One strength of the search bot."""

    name: str
    iterations: int
    """The iteration cap of one decision (what makes a benchmark reproducible)."""
    seconds: float
    """The time budget of one decision: whichever of the two ends first ends the search."""
    explore: float = 0.7
    playout_turns: int = 2
    policy: str = "greedy"
    scale: float = 30.0
    widen: int = 0
    relative: bool = False
    network: str | None = None
    """A network file in :data:`DATA` (version 3, :mod:`lordsofwar.bots.policy`): the search then
    takes its priors and leaf values from it (:func:`network_for`); None: the playouts alone."""
    c_puct: float = 1.5
    """With a network: the weight of the prior in the selection (PUCT)."""
    mix: float = 0.0
    """With a network: the share of the playout's evaluation in a leaf's value (0: the network's alone)."""
    hit_prior: float = 0.0
    """With a network: added to the prior weight of an action that eliminates at once (the
    network's largest weight is 1): the greedy heuristic beside the network's policy."""
    prior_visits: int = 0
    """With a network, above 0: the tree is searched as without one (UCB, widening, the playout
    judging every leaf), and the network only orders the expansions of a node visited at least
    this many times, its untried action of the highest prior weight first."""


@dataclass
class Analysis:
    """What a search found at one decision: the actions it weighed, best first."""

    choice: Action
    value: float
    """The bot's estimate of its win probability after ``choice`` (0 to 1)."""
    actions: list[tuple[Action, int, float]] = field(default_factory=list)
    """(action, visits, estimated win probability) for each legal action, most visited first."""
    iterations: int = 0
    seconds: float = 0.0

    def value_of(self, action: Action) -> float | None:
        """The estimate for ``action`` (None when the search never tried it)."""
        for a, visits, mean in self.actions:
            if a == action:
                return mean if visits else None
        return None


def rank_prior(cards: CardSet, seen: Sequence[str], rng: random.Random) -> list[str]:
    """The documented prior for a deck whose list is unknown (a custom or mercenary deck):
    36 cards in the deck's rank composition (1 general, 5 command, 4 special, 4 elite,
    6 veteran, 8 regular, 8 recruit), less one slot of its rank for each card seen, each slot a
    card of that rank drawn uniformly from every card of the card set."""
    by_rank: dict[str, list[str]] = {}
    for card_id in cards:
        by_rank.setdefault(cards.card(card_id).rank, []).append(card_id)
    left = Counter(RANK_COUNTS)
    for card_id in seen:
        rank = cards.card(card_id).rank
        if left[rank] > 0:
            left[rank] -= 1
    out: list[str] = []
    for rank, n in sorted(left.items()):
        options = by_rank.get(rank)
        if options:
            out.extend(rng.choice(options) for _ in range(n))
    return out


def _seen(pos: Position, player: int) -> list[str]:
    seen = [kind.id for kind in pos.board.values() if kind.owner == player]
    seen += pos.lost[player]
    seen += [c for c in (*pos.hands[player], *pos.decks[player]) if c is not None]
    return seen


def pool_of(pos: Position, player: int, deck: Sequence[str] | None, rng: random.Random) -> list[str]:
    """The cards that may fill ``player``'s unknown entries of ``pos`` (see the module text).

    ``deck``: that player's 36-card list when the searching side knows it (its own deck)."""
    from lordsofwar.core.encoding import standard_pool

    wanted = pos.hands[player].count(None) + pos.decks[player].count(None)
    if not wanted:
        return []
    if deck is not None:
        left = Counter(deck)
        for card in _seen(pos, player):
            if left[card] > 0:
                left[card] -= 1
        pool = list(left.elements())
    else:
        pool = standard_pool(pos, player) or rank_prior(pos.cards, _seen(pos, player), rng)
    if len(pool) < wanted:  # more unknown cards than the list allows (a custom deck's copies): pad by the prior
        pool += rank_prior(pos.cards, [], rng)[: wanted - len(pool)]
        while len(pool) < wanted:
            pool += pool[: wanted - len(pool)]
    return pool


def _with_known(view: Position, known: Mapping[int, Sequence[str]] | None) -> Position:
    """``view`` with the cards in ``known[player]`` placed in that player's unknown hand slots."""
    if not known:
        return view
    out = view.copy()
    for player, cards in known.items():
        hand = list(out.hands[player])
        todo = list(cards)
        for i, c in enumerate(hand):
            if c is None and todo:
                hand[i] = todo.pop(0)
        out.hands[player] = hand
    return out


def sampling_spec(
    view: Position,
    known: Mapping[int, Sequence[str]] | None,
    deck: Sequence[str] | None,
    rng: random.Random,
) -> tuple[Position, dict[int, list[str]]]:
    """What the core's search samples its worlds from: ``view`` with the revealed hand cards
    (``known``) and each general not in the open placed in their hands, and per player the pool
    of cards that fill the other unknown entries (the hand's first, then the deck's, from a
    fresh shuffle at every iteration). No pool holds a general: none can be in a deck
    (:func:`lordsofwar.core.encoding.settle_generals`)."""
    from lordsofwar.core.encoding import settle_generals

    pos = _with_known(view, known)
    me = view.decider
    pools = {p: pool_of(pos, p, deck if p == me else None, rng) for p in (1, 2)}
    return settle_generals(pos, pools, rng)


@dataclass(frozen=True)
class Network:
    """A network file loaded into the core, for the mat and frame it was trained for."""

    path: Path
    mat: str
    frame: tuple[int, int]
    net: Any
    """The core's evaluator (``lordsofwar.core._core.Net``)."""


@lru_cache(maxsize=4)
def load_network(path: str | Path) -> Network:
    """The network of a version 3 file (:class:`lordsofwar.bots.policy.Policy` checks it),
    loaded once per process. A file that is not such a network raises
    :class:`lordsofwar.bots.policy.PolicyError` saying why."""
    from lordsofwar.bots.policy import Policy, PolicyError

    policy = Policy(path)
    if not policy.has_value:
        raise PolicyError(f"network file {str(path)!r} (version {policy.version}) has no value head")
    return Network(Path(path), policy.mat, policy.frame, core_network(policy))


def core_network(policy: Policy) -> Any:
    """The core's evaluator (``lordsofwar.core._core.Net``) of a network with a value head, for
    the mat and frame it was trained for; a malformed one raises ``ValueError`` saying why."""
    from lordsofwar.core import _core
    from lordsofwar.rl.config import Config, observation_scale

    config = Config.of(mat=policy.mat, frame=policy.frame)
    return _core.Net(
        policy.layers,
        policy.value_layers,
        policy.value_from,
        config.width,
        config.height,
        observation_scale(config.planes_size).tolist(),
        action=policy.action_layers,
        action_from=policy.action_from,
        features=policy.features,
    )


def core_settings(level: SearchLevel) -> dict[str, Any]:
    """The settings of ``level`` as the core's search takes them: keyword arguments of the
    search binding (``SearchBot``) and of the batch's search opponent (``Batch.set_search``)."""
    return {
        "explore": level.explore,
        "playout_turns": level.playout_turns,
        "policy": POLICIES[level.policy],
        "scale": level.scale,
        "widen": level.widen,
        "relative": level.relative,
        "c_puct": level.c_puct,
        "mix": level.mix,
        "hit_prior": level.hit_prior,
        "prior_visits": level.prior_visits,
    }


def network_for(level: SearchLevel, variant: Variant) -> Network | None:
    """The network ``level`` searches with in ``variant``: its file's, when the file was trained
    for the variant's mat; None (the search without a network, as the levels below) for the other mat."""
    if level.network is None:
        return None
    network = load_network(DATA / level.network)
    return network if network.mat == variant.mat else None


class SearchBot:
    """A bot that searches (see the module text); ``level`` sets its strength."""

    def __init__(self, level: SearchLevel, seed: int | None = None):
        self.level = level
        self.name = level.name
        self.seed = seed
        self.rng = random.Random(seed)
        self._values: dict[tuple[int, Variant], list[float]] = {}
        if level.network is not None:
            load_network(DATA / level.network)  # once per process, before the first decision's clock

    def choose(
        self,
        view: Position,
        known: Mapping[int, Sequence[str]] | None = None,
        deck: Sequence[str] | None = None,
    ) -> Action:
        return self.analyse(view, known=known, deck=deck).choice

    def analyse(
        self,
        view: Position,
        known: Mapping[int, Sequence[str]] | None = None,
        deck: Sequence[str] | None = None,
        seconds: float | None = None,
        iterations: int | None = None,
    ) -> Analysis:
        """Search ``view`` for its decider; ``known``: revealed hand cards per player; ``deck``:
        the decider's own 36-card list when it is not a standard army's."""
        actions = view.legal_actions()
        if not actions:
            raise ValueError(f"the {self.name} bot was asked to act, but its view has no legal action")
        from lordsofwar import core

        if core.IMPLEMENTATION != "native":
            raise RuntimeError(
                f"the {self.name} bot needs the compiled core (lordsofwar.core is on the Python engine: "
                f"{core.FALLBACK_REASON})"
            )
        from lordsofwar.core._native import Game, greedy_handle, table

        level = self.level
        seed = self.rng.getrandbits(63)
        if len(actions) == 1 and seconds is None and iterations is None:
            return Analysis(actions[0], float("nan"), [(actions[0], 0, float("nan"))])
        pos, pools = sampling_spec(view, known, deck, random.Random(seed))
        tab = table(view.cards)
        game = Game.from_position(pos)
        values = self._value_table(view.cards, view.variant, tab.ids)
        network = network_for(level, view.variant)
        try:
            cap = level.iterations if iterations is None else iterations
            budget = level.seconds if seconds is None else seconds
            if cap > UNCAPPED and budget > 0:
                cap = 0  # no cap: the time budget alone ends the search
            root, done, _nodes, spent = game._s.search(
                iterations=cap,
                seconds=budget,
                seed=seed,
                value=values,
                pool1=[tab.index[c] for c in pools[1]],
                pool2=[tab.index[c] for c in pools[2]],
                net=network.net if network else None,
                greedy=greedy_handle(view.cards, view.variant) if network else None,
                **core_settings(level),
            )
        except ValueError as exc:
            raise HiddenInformationError(f"the search could not sample the hidden cards: {exc}") from None
        by_text = {str(a): a for a in actions}
        weighed = [(by_text[text], visits, mean) for text, visits, mean in root]
        weighed.sort(key=lambda t: (-t[1], -t[2], str(t[0])))
        best = weighed[0]
        return Analysis(best[0], best[2], weighed, done, spent)

    def _value_table(self, cards: CardSet, variant: Variant, ids: list[str]) -> list[float]:
        key = (id(cards), variant)
        values = self._values.get(key)
        if values is None:
            values = self._values[key] = [card_value(cards.card(c), variant) for c in ids]
        return values

    def __repr__(self) -> str:
        return f"SearchBot({self.level.name!r}, seed={self.seed!r})"


_STRONG: dict[str, Any] = {
    "explore": 0.1,
    "playout_turns": 3,
    "policy": "greedy",
    "scale": 30.0,
    "widen": 4,
    "relative": True,
}
"""What the levels above greedy share: they differ only in how many lines they search."""

LEVELS: dict[str, SearchLevel] = {
    level.name: level
    for level in (
        SearchLevel("recruit", 60, 0.05, explore=0.7, playout_turns=1),
        SearchLevel("veteran", 600, 0.25, **_STRONG),
        SearchLevel("elite", 3500, 0.5, **_STRONG),
        SearchLevel("general", 40000, 1.0, **_STRONG),
        SearchLevel("marshal", 150000, 0.98, network="scout.npz", prior_visits=16, hit_prior=1.0, **_STRONG),
    )
}
"""The search levels' settings, weakest first (their names and words:
:data:`lordsofwar.bots.BOT_LEVELS`; their measured strength: docs/bots.md and
:mod:`lordsofwar.bots.ladder`). A level stops at its iteration cap or at its time budget,
whichever comes first; benchmarks lean on the cap, so their games repeat."""

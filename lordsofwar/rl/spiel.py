"""Lords of War as an OpenSpiel game: ``pyspiel.load_game("lords_of_war")`` after
``import lordsofwar.rl.spiel`` (docs/rl.md).

A Python game on the native core: players 0 and 1 are the game's players 1 and 2. The deal is
the game's only chance (a reinforcement draws from the deck shuffled then), made of explicit
chance nodes (``ChanceMode.EXPLICIT_STOCHASTIC``) at the start of every game: each player's deck
(one outcome per army), then each deck's shuffle one card at a time (outcome ``i``: the ``i``-th
of the cards not yet placed, in the deck list's order; the first five and the general form the
opening hand, 1.4). So the history of a state rebuilds it (OpenSpiel's serialization replays
it). Actions are the core's integer ids (docs/core.md), read from the deciding player's side.

- ``information_state_string(p)``: player ``p``'s view (notation's JSON of what p may know)
  and every action played so far, all of which are public: perfect recall;
- ``information_state_tensor(p)`` and ``observation_tensor(p)``: the observation vector of
  ``lordsofwar.rl`` for ``p``'s view, from ``p``'s side of the mat (planes, then the info floats);
- ``resample_from_infostate(p, sampler)``: a state with ``p``'s view and history whose hidden
  cards (the opponent's hidden hand and both decks) are drawn again from what ``p`` has not
  seen, as the search bots sample them (each army's standard list minus the cards seen); the
  opponent's hand cards in the open (a recalled unit, a forced deployment's reveal) stay in
  that hand, and a general not in the open is in its owner's hand, never in a deck.

Parameters: ``rules``, ``hands``, ``mat``, ``units_to_win``, ``commands_to_win``,
``no_progress_turns`` (the variant), ``frame_width`` and ``frame_height`` (the unbordered mat's
frame). A game pickles and copies as its parameters.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pyspiel

from lordsofwar import core
from lordsofwar.core.batching import with_frame
from lordsofwar.rl.aec import observe_view
from lordsofwar.rl.config import Config, flat_observation
from lordsofwar.rules import engine, notation
from lordsofwar.rules.state import Position

SHORT_NAME = "lords_of_war"

_DEFAULTS: dict[str, Any] = {
    "rules": "intermediate",
    "hands": "hidden",
    "mat": "bordered",
    "units_to_win": 20,
    "commands_to_win": 4,
    "no_progress_turns": 40,
    "frame_width": 21,
    "frame_height": 21,
}

_GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Lords of War",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=2,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_DEFAULTS,
)

MAX_GAME_LENGTH = 20_000
"""An upper bound of a game's actions (the no-progress rule and the decks end every game)."""

SHUFFLED = 35
"""The cards of a deck shuffled at the deal: all but the general."""


def _config(params: dict[str, Any]) -> Config:
    return Config.of(
        rules=params["rules"],
        hands=params["hands"],
        mat=params["mat"],
        units_to_win=params["units_to_win"],
        commands_to_win=params["commands_to_win"],
        no_progress_turns=params["no_progress_turns"],
        frame=(params["frame_width"], params["frame_height"]),
    )


class LordsOfWarGame(pyspiel.Game):  # type: ignore[misc]
    """The game (see the module text)."""

    def __init__(self, params: dict[str, Any] | None = None):
        full = {**_DEFAULTS, **(params or {})}
        self.config = _config(full)
        self.decks = self.config.deck_list()
        info = pyspiel.GameInfo(
            num_distinct_actions=self.config.num_actions,
            max_chance_outcomes=max(len(self.decks), SHUFFLED),
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=MAX_GAME_LENGTH,
        )
        super().__init__(_GAME_TYPE, info, full)
        self.params = full
        self.game_class = core.Game if self.config.mat == "bordered" else with_frame(core.Game, self.config.frame)

    def new_initial_state(self) -> LordsOfWarState:
        return LordsOfWarState(self, None, [])

    def __reduce__(self) -> tuple[Any, ...]:
        return (LordsOfWarGame, (dict(self.params),))

    def __deepcopy__(self, memo: dict[int, Any]) -> LordsOfWarGame:
        return LordsOfWarGame(dict(self.params))

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> LordsOfWarObserver:
        return LordsOfWarObserver(self, iig_obs_type, params)


class LordsOfWarState(pyspiel.State):  # type: ignore[misc]
    """A state: the core game and the actions played (see the module text)."""

    def __init__(
        self, game: LordsOfWarGame, core_game: Any, history: list[str], known: dict[int, list[str]] | None = None
    ):
        super().__init__(game)
        self.core_game = core_game
        """The game on the core; None while the deal's chance nodes are under way."""
        self.dealing: list[list[int]] = [[], []]
        """The deal's chance outcomes so far: per player, the deck's index, then the shuffle."""
        self.played = history
        self.known: dict[int, list[str]] = {1: [], 2: []} if known is None else {p: list(known[p]) for p in (1, 2)}
        """Each player's hand cards in the open (revealed or recalled, not played since): public."""

    def current_player(self) -> int:
        if self.core_game is None:
            return int(pyspiel.PlayerId.CHANCE)
        if self.core_game.result is not None:
            return int(pyspiel.PlayerId.TERMINAL)
        return int(self.core_game.decider - 1)

    def _deal_step(self) -> tuple[int, list[str]]:
        """(the player being dealt, the cards of that deck not placed yet, in list order; empty
        while the deck is still to be chosen)."""
        p = 0 if len(self.dealing[0]) <= SHUFFLED else 1
        outcomes = self.dealing[p]
        if not outcomes:
            return p, []
        deck = list(self.get_game().decks[outcomes[0]])
        cards = self.get_game().config.cards
        general = next(c for c in deck if cards.card(c).rank == "general")
        deck.remove(general)
        for i in outcomes[1:]:
            deck.pop(i)
        return p, deck

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.core_game is not None:
            return []
        _p, left = self._deal_step()
        n = len(left) if left else len(self.get_game().decks)
        return [(i, 1.0 / n) for i in range(n)]

    def _legal_actions(self, player: int) -> list[int]:
        if self.core_game is None:
            return []
        if self.core_game.result is not None or player != self.core_game.decider - 1:
            return []
        ids: list[int] = self.core_game.legal_ids()
        return ids

    def _apply_action(self, action: int) -> None:
        if self.core_game is None:
            p, left = self._deal_step()
            n = len(left) if left else len(self.get_game().decks)
            if not 0 <= int(action) < n:
                raise ValueError(f"chance outcome {action} at the deal: 0 to {n - 1}")
            self.dealing[p].append(int(action))
            if len(self.dealing[1]) == SHUFFLED + 1:
                self.core_game = self.get_game().game_class.from_position(self._dealt())
            return
        text = self.core_game.action_text(int(action))
        events = self.core_game.apply(text)
        self.played.append(text)
        for e in events:  # lordsofwar.rules.knowledge.known_hands, one action at a time
            if e["type"] == "reveal":
                self.known[e["player"]] = sorted(c for c in e["hand"] if c is not None)
            elif e["type"] == "deploy" and e["card"] in self.known[e["player"]]:
                self.known[e["player"]].remove(e["card"])
            elif e["type"] == "recall":
                self.known[e["player"]].append(e["card"])

    def _dealt(self) -> Position:
        """The opening position of the deal's chance outcomes (as :func:`notation.deal` deals)."""
        game = self.get_game()
        config, cards = game.config, game.config.cards
        pos = Position(cards, config.variant)
        for p in (1, 2):
            outcomes = self.dealing[p - 1]
            deck = list(game.decks[outcomes[0]])
            general = next(c for c in deck if cards.card(c).rank == "general")
            deck.remove(general)
            order = [deck.pop(i) for i in outcomes[1:]]
            pos.hands[p] = [*order[:5], general]
            pos.decks[p] = order[5:]
            pos.armies[p] = cards.standard_army_of(game.decks[outcomes[0]]) or "mercenary"
        engine.start_turn(pos)
        return pos

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            p = 0 if len(self.dealing[0]) <= SHUFFLED else 1
            return f"deal p{p + 1} {'deck' if not self.dealing[p] else 'card'} {action}"
        try:
            return f"p{player + 1} {self.core_game.action_text(int(action))}"
        except Exception:  # an id that names nothing here
            return f"p{player + 1} action {action}"

    def is_terminal(self) -> bool:
        return self.core_game is not None and self.core_game.result is not None

    def returns(self) -> list[float]:
        result = None if self.core_game is None else self.core_game.result
        if result is None or result.winner is None:
            return [0.0, 0.0]
        return [1.0, -1.0] if result.winner == 1 else [-1.0, 1.0]

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> LordsOfWarState:
        """A state with the same information state for ``player_id``: the cards hidden from that
        player drawn again (a seed from ``probability_sampler``, a callable giving [0, 1))."""
        seed = int(float(probability_sampler()) * 2**62)
        me = player_id + 1
        view = self.core_game.view(me)
        # The opponent's cards in the open stay in their hand; a general not in the open is in
        # its owner's hand (encoding.determinize_position).
        hidden = view.hidden()[3 - me]["hand"]
        known = {3 - me: self.known[3 - me]} if hidden else None
        world = view.determinize(seed, known=known)
        return LordsOfWarState(self.get_game(), world, list(self.played), self.known)

    def __str__(self) -> str:
        if self.core_game is None:
            return "dealing " + json.dumps(self.dealing)
        return json.dumps(self.core_game.to_json(), sort_keys=True)


class LordsOfWarObserver:
    """The observer of OpenSpiel's Python games: a player's view as a tensor and as a string."""

    def __init__(self, game: LordsOfWarGame, iig_obs_type: Any, params: Any):
        if params:
            raise ValueError(f"the observer takes no parameters, got {params}")
        self.config = game.config
        self.perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        self.tensor = np.zeros(self.config.observation_size, np.float32)
        planes = self.config.planes_size
        self.dict = {
            "planes": self.tensor[:planes].reshape(-1, self.config.height, self.config.width),
            "info": self.tensor[planes:],
        }

    def set_from(self, state: LordsOfWarState, player: int) -> None:
        game = state.core_game
        if game is None:  # the deal is under way: nothing to see yet
            self.tensor[:] = 0
            return
        if game.result is None and game.decider == player + 1:
            planes, info = game.observation()
        else:
            planes, info = observe_view(game, player + 1, self.config)
        flat_observation(planes, info, self.tensor)

    def string_from(self, state: LordsOfWarState, player: int) -> str:
        if state.core_game is None:
            return "dealing"
        view = notation.view_json(state.core_game.to_position(), player + 1)
        text = json.dumps(view, sort_keys=True, separators=(",", ":"))
        if self.perfect_recall:
            return text + "|" + ";".join(state.played)
        return text


pyspiel.register_game(_GAME_TYPE, LordsOfWarGame)

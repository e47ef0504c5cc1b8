"""Lords of War as an OpenSpiel game: ``pyspiel.load_game("lords_of_war")`` after
``import lordsofwar.rl.spiel`` (docs/rl.md).

A Python game on the native core: players 0 and 1 are the game's players 1 and 2. The deal is
sampled when a state is made (``ChanceMode.SAMPLED_STOCHASTIC``: the decks' shuffle is the only
chance in the game, and a reinforcement draws from the shuffled deck), so a state has no chance
node. Actions are the core's integer ids (docs/core.md), read from the deciding player's side.

- ``information_state_string(p)``: player ``p``'s view (notation's JSON of what p may know)
  and every action played so far, all of which are public: perfect recall;
- ``information_state_tensor(p)`` and ``observation_tensor(p)``: the observation vector of
  ``lordsofwar.rl`` for ``p``'s view, from ``p``'s side of the mat (planes, then the info floats);
- ``resample_from_infostate(p, sampler)``: a state with ``p``'s view and history whose hidden
  cards (the opponent's hidden hand and both decks) are drawn again from what ``p`` has not
  seen, as the search bots sample them (each army's standard list minus the cards seen).

Parameters: ``rules``, ``hands``, ``mat``, ``units_to_win``, ``commands_to_win``,
``no_progress_turns`` (the variant), ``seed`` (the first deal), ``frame_width`` and
``frame_height`` (the unbordered mat's frame).
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
from lordsofwar.rules import notation

SHORT_NAME = "lords_of_war"

_DEFAULTS: dict[str, Any] = {
    "rules": "intermediate",
    "hands": "hidden",
    "mat": "bordered",
    "units_to_win": 20,
    "commands_to_win": 4,
    "no_progress_turns": 40,
    "seed": 0,
    "frame_width": 21,
    "frame_height": 21,
}

_GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Lords of War",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC,
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
        info = pyspiel.GameInfo(
            num_distinct_actions=self.config.num_actions,
            max_chance_outcomes=0,
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=MAX_GAME_LENGTH,
        )
        super().__init__(_GAME_TYPE, info, full)
        self._rng = np.random.default_rng(int(full["seed"]))
        self.game_class = core.Game if self.config.mat == "bordered" else with_frame(core.Game, self.config.frame)

    def new_initial_state(self) -> LordsOfWarState:
        _decks, pos = self.config.deal(self._rng)
        return LordsOfWarState(self, self.game_class.from_position(pos), [])

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> LordsOfWarObserver:
        return LordsOfWarObserver(self, iig_obs_type, params)


class LordsOfWarState(pyspiel.State):  # type: ignore[misc]
    """A state: the core game and the actions played (see the module text)."""

    def __init__(self, game: LordsOfWarGame, core_game: Any, history: list[str]):
        super().__init__(game)
        self.core_game = core_game
        self.played = history

    def current_player(self) -> int:
        if self.core_game.result is not None:
            return int(pyspiel.PlayerId.TERMINAL)
        return int(self.core_game.decider - 1)

    def _legal_actions(self, player: int) -> list[int]:
        if self.core_game.result is not None or player != self.core_game.decider - 1:
            return []
        ids: list[int] = self.core_game.legal_ids()
        return ids

    def _apply_action(self, action: int) -> None:
        text = self.core_game.action_text(int(action))
        self.core_game.apply_id(int(action))
        self.played.append(text)

    def _action_to_string(self, player: int, action: int) -> str:
        try:
            return f"p{player + 1} {self.core_game.action_text(int(action))}"
        except Exception:  # an id that names nothing here
            return f"p{player + 1} action {action}"

    def is_terminal(self) -> bool:
        return self.core_game.result is not None

    def returns(self) -> list[float]:
        result = self.core_game.result
        if result is None or result.winner is None:
            return [0.0, 0.0]
        return [1.0, -1.0] if result.winner == 1 else [-1.0, 1.0]

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> LordsOfWarState:
        """A state with the same information state for ``player_id``: the cards hidden from that
        player drawn again (a seed from ``probability_sampler``, a callable giving [0, 1))."""
        seed = int(float(probability_sampler()) * 2**62)
        view = self.core_game.view(player_id + 1)
        world = view.determinize(seed)
        return LordsOfWarState(self.get_game(), world, list(self.played))

    def __str__(self) -> str:
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
        if game.result is None and game.decider == player + 1:
            planes, info = game.observation()
        else:
            planes, info = observe_view(game, player + 1, self.config)
        flat_observation(planes, info, self.tensor)

    def string_from(self, state: LordsOfWarState, player: int) -> str:
        view = notation.view_json(state.core_game.to_position(), player + 1)
        text = json.dumps(view, sort_keys=True, separators=(",", ":"))
        if self.perfect_recall:
            return text + "|" + ";".join(state.played)
        return text


pyspiel.register_game(_GAME_TYPE, LordsOfWarGame)

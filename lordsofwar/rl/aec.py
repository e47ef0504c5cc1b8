"""Lords of War as a PettingZoo AEC environment: ``lordsofwar.rl.env(**options)`` (docs/rl.md).

Two agents, ``player_1`` and ``player_2``. The agent selected is the player who decides: a turn
is several actions in a row by the same player (declared shots, a deployment, moves, fired
shots, the reinforcement), and a berserker's advance is decided by its owner, even in the
opponent's turn. Observations are ``{"observation": float32 vector, "action_mask": int8 per
action id}``, from the observing agent's side of the mat and of its own view only (what that
player may know: never the opponent's hidden hand or a deck's order). Rewards are +1 / -1 / 0
at the end of the game (and the optional shaped reward, off by default).
"""

from __future__ import annotations

import io
from typing import Any

import gymnasium
import numpy as np

from lordsofwar import core
from lordsofwar.core.encoding import frame_of
from lordsofwar.core.observation import INFO, PLANES, write_player
from lordsofwar.rl.config import AGENTS, Config, flat_observation, normalise, spaces_of
from lordsofwar.rules.errors import IllegalActionError

try:
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers
except ImportError as exc:  # pragma: no cover - the extra is not installed
    raise ImportError("lordsofwar.rl needs PettingZoo and Gymnasium: pip install 'lordsofwar[rl]'") from exc


def player_of(agent: str) -> int:
    if agent not in AGENTS:
        raise ValueError(f"unknown agent {agent!r}: the agents are {', '.join(AGENTS)}")
    return AGENTS.index(agent) + 1


def game_class(config: Config) -> Any:
    """The class of the games for ``config``'s mat: the core's, or one on a frame (unbordered)."""
    return core.Game if config.mat == "bordered" else _framed(config.frame)


class PicklesWithoutGameClass:
    """An environment pickled without its game class: a frame's class is made at run time, so it
    is rebuilt from the options when the environment is loaded."""

    config: Config
    _game_class: Any

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state.pop("_game_class", None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._game_class = game_class(self.config)


class raw_env(PicklesWithoutGameClass, AECEnv):  # noqa: N801 - PettingZoo's name for the unwrapped environment
    """The environment without PettingZoo's wrappers (see the module text and docs/rl.md)."""

    metadata: dict[str, Any] = {
        "name": "lordsofwar_v0",
        "render_modes": ["human", "ansi"],
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(self, render_mode: str | None = None, **options: Any):
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r}: one of {self.metadata['render_modes']}")
        self.render_mode = render_mode
        self.config = Config.of(**options)
        self.possible_agents = list(AGENTS)
        observation, action = spaces_of(self.config)
        self.observation_spaces = dict.fromkeys(self.possible_agents, observation)
        self.action_spaces = dict.fromkeys(self.possible_agents, action)
        self._rng = np.random.default_rng()
        self.game: Any = None
        self._game_class = game_class(self.config)
        self._mask: np.ndarray | None = None

    def observation_space(self, agent: str) -> Any:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> Any:
        return self.action_spaces[agent]

    # --- the episode ---------------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.decks, pos = self.config.deal(self._rng)
        self.game = self._game_class.from_position(pos)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._next_decision()

    def _next_decision(self) -> None:
        """Select the decider and list its legal ids (an empty list: the frame is outgrown)."""
        self._mask = None
        self.agent_selection = AGENTS[self.game.decider - 1]
        if self._legal_mask().any():
            return
        for a in self.agents:  # no legal action fits the frame (unbordered mat): cut short
            self.truncations[a] = True
            self.infos[a] = {"reason": "no legal action has an id in the frame"}

    def _legal_mask(self) -> np.ndarray:
        if self._mask is None:
            mask = self.game.legal_mask()
            self._mask = mask.view(np.int8)  # the same bytes: 0 and 1
        return self._mask

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        mask = self._legal_mask()
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise IllegalActionError(f"{agent}: an action is an integer id, not {action!r}")
        i = int(action)
        if not 0 <= i < mask.size or not mask[i]:
            raise IllegalActionError(
                f"{agent}: action id {i} is not legal now ({int(mask.sum())} legal ids; see action_mask)"
            )
        self._cumulative_rewards[agent] = 0.0
        for a in self.agents:
            self.rewards[a] = 0.0
        weight = self.config.shaped_reward
        before = _lost(self.game) if weight else None
        self.game.apply_id(i)
        if before is not None:
            after = _lost(self.game)
            for p in (1, 2):
                q = 3 - p
                self.rewards[AGENTS[p - 1]] += weight * ((after[q] - before[q]) - (after[p] - before[p]))
        result = self.game.result
        if result is not None:
            for p in (1, 2):
                a = AGENTS[p - 1]
                self.rewards[a] += 0.0 if result.winner is None else (1.0 if result.winner == p else -1.0)
                self.terminations[a] = True
                self.infos[a] = {"reason": result.reason, "winner": result.winner or 0}
            self._mask = None
        else:
            self._next_decision()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    # --- what an agent sees -------------------------------------------------------------------

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The agent's observation (of its own view, from its side of the mat) and its legal ids
        (all 0 when it is not the one to decide)."""
        player = player_of(agent)
        game = self.game
        mask = np.zeros(self.config.num_actions, np.int8)
        if game.result is None and game.decider == player:
            obs = np.empty(self.config.observation_size, np.float32)
            game.observe_into(obs, mask)
            normalise(obs, self.config.planes_size)
            return {"observation": obs, "action_mask": mask}
        planes, info = observe_view(game, player, self.config)
        return {"observation": flat_observation(planes, info), "action_mask": mask}

    def render(self) -> str | None:
        """``ansi``: the status and the mat as text; ``human``: the same, printed. Without a
        render mode, nothing."""
        return render(self.game and self.game.to_position(), self.render_mode)

    def close(self) -> None:
        self.game = None

    def state(self) -> np.ndarray:  # pragma: no cover - PettingZoo's optional global state
        raise NotImplementedError("a hidden-information game has no observation of the whole state")


def render(pos: Any, mode: str | None) -> str | None:
    """The environments' render(): the status and the mat of ``pos`` as text (``ansi``), or
    printed (``human``); nothing without a mode (Gymnasium's warning) or a position."""
    if mode is None:
        gymnasium.logger.warn("render() without a render_mode: make the environment with render_mode='ansi' or 'human'")
        return None
    if pos is None:
        return None
    from rich.console import Console

    from lordsofwar.render import render_mat, render_status

    console = Console(file=io.StringIO(), width=160, record=True)
    console.print(render_status(pos))
    console.print(render_mat(pos))
    text = console.export_text()
    if mode == "human":
        print(text)
        return None
    return text


def observe_view(game: Any, player: int, config: Config) -> tuple[np.ndarray, np.ndarray]:
    """The observation of ``player`` who is not deciding now (or of a finished game): computed
    from that player's view alone, from that player's side, in the decision's frame."""
    pos = game.to_position()
    f = frame_of(pos, config.frame)  # the view's frame: the same units, the same squares
    planes = np.zeros((PLANES, f.height, f.width), np.uint8)
    info = np.zeros(INFO, np.float32)
    write_player(pos, player, config.frame, planes, info)  # squares outside the frame are left out
    return planes, info


def _lost(game: Any) -> tuple[int, int, int]:
    """(unused, player 1's, player 2's) units lost so far."""
    players = game.to_json()["players"]
    return 0, len(players["1"]["lost"]), len(players["2"]["lost"])


def _framed(frame: tuple[int, int]) -> Any:
    from lordsofwar.core.batching import with_frame

    return with_frame(core.Game, frame)


def env(render_mode: str | None = None, **options: Any) -> Any:
    """The environment in PettingZoo's ``OrderEnforcingWrapper`` (no step or observation before
    a reset). Actions need no other wrapper: :meth:`raw_env.step` refuses an id that is out of
    range or not legal itself, saying which."""
    return wrappers.OrderEnforcingWrapper(raw_env(render_mode=render_mode, **options))

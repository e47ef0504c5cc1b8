"""Lords of War as a Gymnasium environment for one agent against a bot:
``gymnasium.make("lordsofwar/LordsOfWar-v0", opponent="greedy")`` after ``import lordsofwar.rl``
(docs/rl.md).

The agent plays one seat (``seat=1`` or ``2``; default: drawn at every reset), the bot the other;
the bot's actions are played inside :meth:`LordsOfWarEnv.step` until the agent decides again.
``random`` and ``greedy`` are the core's own (``Game.greedy_action``, the compiled greedy bot, and
a uniformly random legal action), reading only what the bot's seat may know; every other bot is
shown its own view, the hand cards the agent revealed and its own deck, as every bot is
(:func:`lordsofwar.bots.decide`). The agent's observation is of its own view only.

An action is an integer id (docs/core.md); the observation's ``action_mask`` marks the legal
ones (so does ``info["action_mask"]``, and :meth:`LordsOfWarEnv.action_masks` for sb3-contrib's
``MaskablePPO``, as bools). An illegal id ends the episode as a loss (reward -1, ``info["illegal_action"]``), as
PettingZoo's ``TerminateIllegalWrapper`` does, so that Gymnasium's checker and unmasked random
agents can run; ``illegal_action="raise"`` raises :class:`IllegalActionError` instead and
changes nothing.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np

from lordsofwar.rl.aec import PicklesWithoutGameClass, _lost, game_class, observe_view, render
from lordsofwar.rl.config import Config, flat_observation, spaces_of
from lordsofwar.rules import notation
from lordsofwar.rules.errors import IllegalActionError
from lordsofwar.rules.events import Event
from lordsofwar.rules.knowledge import known_hands

CORE_BOTS = ("random", "greedy")
"""The bots the core plays itself (the vector environment's opponents too)."""


class LordsOfWarEnv(PicklesWithoutGameClass, gymnasium.Env):
    """One agent against ``opponent`` (a bot's name, weakest first: random, recruit, greedy,
    scout, veteran, elite, general, marshal; ``policy:FILE``, a trained policy, checked against
    the mat when the environment is made; or ``python:MODULE:FACTORY``, a bot written in Python,
    made for each game from the game's bot seed); see the module text."""

    metadata: dict[str, Any] = {"render_modes": ["human", "ansi"], "render_fps": 1}

    def __init__(
        self,
        opponent: str = "random",
        seat: int | None = None,
        illegal_action: str = "lose",
        render_mode: str | None = None,
        **options: Any,
    ):
        from lordsofwar.bots import BOTS, POLICY_PREFIX, PYTHON_PREFIX, make_bot

        self._policy_bot: Any = None
        if isinstance(opponent, str) and opponent.startswith(POLICY_PREFIX):
            self._policy_bot = make_bot(opponent, 0)  # the file read and checked now, once
        elif isinstance(opponent, str) and opponent.startswith(PYTHON_PREFIX):
            make_bot(opponent, 0)  # a name that makes no bot is refused now, saying why
        elif opponent not in BOTS:
            raise ValueError(f"opponent {opponent!r}: one of {', '.join(BOTS)}, policy:FILE or python:MODULE:FACTORY")
        if seat not in (None, 1, 2):
            raise ValueError(f"seat {seat!r}: 1, 2 or None (drawn at every reset)")
        if illegal_action not in ("lose", "raise"):
            raise ValueError(f"illegal_action {illegal_action!r}: 'lose' or 'raise'")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r}: one of {self.metadata['render_modes']}")
        self.config = Config.of(**options)
        if self._policy_bot is not None:
            policy = self._policy_bot.policy
            frame_differs = self.config.mat == "unbordered" and policy.frame != self.config.frame
            if policy.mat != self.config.mat or frame_differs:
                raise ValueError(
                    f"opponent {opponent!r} was trained for the {policy.mat} mat (frame {policy.frame[0]} x "
                    f"{policy.frame[1]}), not this environment's {self.config.mat} mat"
                    + (f" (frame {self.config.frame[0]} x {self.config.frame[1]})" if frame_differs else "")
                )
        self.opponent = opponent
        self.seat = seat
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        self.observation_space, self.action_space = spaces_of(self.config)
        self._game_class = game_class(self.config)
        self.game: Any = None
        self.me = 1
        self._mask = np.zeros(self.config.num_actions, np.int8)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        super().reset(seed=seed)
        from lordsofwar.bots import make_bot

        rng = self.np_random
        self.decks, pos = self.config.deal(rng)
        self.me = self.seat or 1 + int(rng.integers(2))
        bot_seed = int(rng.integers(2**31))
        self._core_rng = np.random.default_rng(bot_seed)  # the core's bots draw their seeds here
        if self._policy_bot is not None:
            self.bot = self._policy_bot.reseeded(bot_seed)
        elif self.opponent in CORE_BOTS:
            self.bot = None  # the core plays it
        else:
            self.bot = make_bot(self.opponent, bot_seed)
        self.game = self._game_class.from_position(pos)
        self.events: list[Event] = []
        self._opponent_plays()
        obs, truncated = self._observe()
        info: dict[str, Any] = {"seat": self.me, "action_mask": self.action_masks()}
        if truncated:  # pragma: no cover - a dealt game always has legal ids in its frame
            info["reason"] = "no legal action has an id in the frame"
        return obs, info

    def action_masks(self) -> np.ndarray:
        """The legal ids now, one bool per id (sb3-contrib's ``MaskablePPO`` asks for it; all
        False once the episode is over). ``info["action_mask"]`` carries the same after every
        reset and step."""
        return self._mask.astype(bool)

    def _opponent_plays(self) -> None:
        from lordsofwar.bots import decide

        game, them = self.game, 3 - self.me
        while game.result is None and game.decider == them:
            if self.opponent == "greedy":
                self.events.extend(game.apply(game.greedy_action(int(self._core_rng.integers(2**63)))))
            elif self.opponent == "random":
                legal = game.legal()
                self.events.extend(game.apply(legal[int(self._core_rng.integers(len(legal)))]))
            else:
                view = notation.view(game.to_position(), them)
                action = decide(self.bot, view, known_hands(self.events, them), self.decks[them - 1])
                self.events.extend(game.apply(action))

    def _observe(self) -> tuple[dict[str, np.ndarray], bool]:
        """The agent's observation; whether the game must be cut short (no legal id in the frame)."""
        game = self.game
        if game.result is None:
            planes, info = game.observation()
            self._mask = game.legal_mask().view(np.int8)  # the same bytes: 0 and 1
            mask = self._mask.copy()
            truncated = not mask.any()
        else:
            planes, info = observe_view(game, self.me, self.config)
            self._mask = np.zeros(self.config.num_actions, np.int8)
            mask, truncated = self._mask.copy(), False
        return {"observation": flat_observation(planes, info), "action_mask": mask}, truncated

    def step(self, action: Any) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        game = self.game
        if game is None or game.result is not None:
            raise RuntimeError("the episode is over: call reset() first")
        legal = not isinstance(action, (bool, np.bool_)) and isinstance(action, (int, np.integer))
        i = int(action) if legal else -1
        legal = legal and 0 <= i < self._mask.size and bool(self._mask[i])
        if not legal:
            if self.illegal_action == "raise":
                raise IllegalActionError(f"action id {action!r} is not legal now (see the observation's action_mask)")
            obs, _ = self._observe()
            obs["action_mask"][:] = 0
            self._mask[:] = 0
            self.game = None  # the episode is over
            lost = {"seat": self.me, "illegal_action": True, "reason": f"illegal action id {action!r}"}
            return obs, -1.0, True, False, {**lost, "action_mask": self.action_masks()}
        weight = self.config.shaped_reward
        before = _lost(game) if weight else None
        self.events.extend(game.apply(game.action_text(i)))
        self._opponent_plays()
        reward = 0.0
        if before is not None:
            after, me, them = _lost(game), self.me, 3 - self.me
            reward += weight * ((after[them] - before[them]) - (after[me] - before[me]))
        info: dict[str, Any] = {"seat": self.me}
        result = game.result
        if result is not None:
            reward += 0.0 if result.winner is None else (1.0 if result.winner == self.me else -1.0)
            info.update(reason=result.reason, winner=result.winner or 0)
        obs, truncated = self._observe()
        info["action_mask"] = self.action_masks()
        if truncated:
            info["reason"] = "no legal action has an id in the frame"
        if self.render_mode == "human":
            self.render()
        return obs, reward, result is not None, truncated, info

    def render(self) -> str | None:
        """``ansi``: the status and the mat of the agent's view as text; ``human``: the same,
        printed. Without a render mode, nothing."""
        return render(self.game and notation.view(self.game.to_position(), self.me), self.render_mode)

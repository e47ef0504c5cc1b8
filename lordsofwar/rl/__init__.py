"""Lords of War for reinforcement learning, on the native core (docs/rl.md):

- :func:`env` / :class:`raw_env`: a PettingZoo AEC environment for two agents;
- ``gymnasium.make("lordsofwar/LordsOfWar-v0", opponent=LEVEL)``: a single agent against a bot
  (:class:`lordsofwar.rl.single.LordsOfWarEnv`), registered when this package is imported;
- :class:`lordsofwar.rl.vector.LordsOfWarVectorEnv`: many games at once (Gymnasium's vector API);
- :mod:`lordsofwar.rl.spiel`: the OpenSpiel game ``lords_of_war``.

Every environment takes the options of :class:`lordsofwar.rl.config.Config`. The environments
need the extra ``lordsofwar[rl]`` (PettingZoo, Gymnasium, OpenSpiel); the observation helpers
here need NumPy alone (a trained policy plays without the extra, :mod:`lordsofwar.bots.policy`).
"""

from __future__ import annotations

import contextlib
from typing import Any

from lordsofwar.rl.config import AGENTS, Config, flat_observation, split_observation

ENV_ID = "lordsofwar/LordsOfWar-v0"


def _register() -> None:
    with contextlib.suppress(ImportError):  # without Gymnasium there is nothing to register
        import gymnasium

        if ENV_ID not in gymnasium.registry:
            gymnasium.register(
                id=ENV_ID,
                entry_point="lordsofwar.rl.single:LordsOfWarEnv",
                vector_entry_point="lordsofwar.rl.vector:make_vector",
            )


_register()


def __getattr__(name: str) -> Any:
    if name in ("env", "raw_env"):
        from lordsofwar.rl import aec

        return getattr(aec, name)
    raise AttributeError(f"module 'lordsofwar.rl' has no attribute {name!r}")


__all__ = ["AGENTS", "ENV_ID", "Config", "env", "flat_observation", "raw_env", "split_observation"]

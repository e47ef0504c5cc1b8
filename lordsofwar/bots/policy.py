"""A bot that plays a trained policy network: ``policy:FILE`` (docs/rl.md, "A trained policy").

``FILE`` is a NumPy ``.npz`` written by :func:`save_policy` (for instance by
``examples/train_policy.py``): a multilayer perceptron over the observation vector of
:mod:`lordsofwar.rl` (dense layers with ReLU between them) whose last layer gives one logit per
action id. A version 2 file reads the observation as the environments give it (each number
scaled to [0, 1]); a version 1 file, written before the observation was scaled, reads ``log1p``
of the unscaled numbers (:func:`lordsofwar.rl.config.raw_observation`), and is still played so. Playing needs NumPy only, not the library it was
trained with. The bot plays as the policy was trained to: it draws a legal id with the
probabilities of the softmax of the logits over the legal ids, from its own seeded generator
(``temperature`` 0 plays the most likely one instead, which is weaker for a policy trained to
act stochastically); when no legal action has an id in the frame (the unbordered mat, rarely)
it plays a random legal action.

The file holds ``format`` (``lordsofwar-policy``), ``version`` (2; 1 is read), the variant's ``mat``,
``frame``, ``observation_size`` and ``num_actions`` it was trained for, and the layers ``w0``,
``b0``, ``w1``, ``b1``, ... (``w`` of shape (inputs, outputs)). A file that is not such a policy
is refused with a message saying why.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from lordsofwar.rules.actions import parse_action
from lordsofwar.rules.state import Action, Position

FORMAT = "lordsofwar-policy"
VERSION = 2
"""The version :func:`save_policy` writes: the network reads the scaled observation."""
VERSIONS = (1, 2)
"""The versions read: 1 reads ``log1p`` of the unscaled observation."""
MAX_LAYERS = 16
MAX_BYTES = 200 * 1024 * 1024


class PolicyError(ValueError):
    """The file is not a policy this version can play."""


def save_policy(path: str | Path, layers: Sequence[tuple[np.ndarray, np.ndarray]], meta: Mapping[str, Any]) -> None:
    """Write a policy: ``layers`` as (weights (inputs, outputs), biases (outputs,)) in order,
    ``meta`` with ``mat``, ``frame``, ``observation_size`` and ``num_actions``."""
    arrays: dict[str, np.ndarray] = {}
    for i, (w, b) in enumerate(layers):
        arrays[f"w{i}"] = np.asarray(w, np.float32)
        arrays[f"b{i}"] = np.asarray(b, np.float32)
    header = {"format": FORMAT, "version": VERSION, **meta}
    arrays["meta"] = np.frombuffer(json.dumps(header).encode(), np.uint8)
    with open(path, "wb") as f:
        np.savez_compressed(f, **arrays)  # type: ignore[arg-type]


class Policy:
    """A policy read from a file (see the module text)."""

    def __init__(self, path: str | Path):
        path = Path(path)
        try:
            size = path.stat().st_size
        except OSError as exc:
            raise PolicyError(f"policy file {str(path)!r}: {exc.strerror or exc}") from None
        if size > MAX_BYTES:
            raise PolicyError(f"policy file {str(path)!r} is {size:,} bytes, more than a policy needs")
        try:
            with np.load(path, allow_pickle=False) as data:
                arrays = {k: data[k] for k in data.files}
        except Exception as exc:
            raise PolicyError(f"policy file {str(path)!r} is not a NumPy .npz archive ({type(exc).__name__})") from None
        try:
            meta = json.loads(bytes(arrays.pop("meta")).decode())
        except Exception:
            raise PolicyError(f"policy file {str(path)!r} has no readable 'meta' entry") from None
        if not isinstance(meta, dict) or meta.get("format") != FORMAT:
            raise PolicyError(f"policy file {str(path)!r} is not a {FORMAT} file")
        if meta.get("version") not in VERSIONS:
            raise PolicyError(
                f"policy file {str(path)!r} has version {meta.get('version')!r}; this program reads "
                f"{' and '.join(map(str, VERSIONS))}"
            )
        self.version = int(meta["version"])
        layers: list[tuple[np.ndarray, np.ndarray]] = []
        for i in range(MAX_LAYERS + 1):
            if f"w{i}" not in arrays:
                break
            w, b = arrays[f"w{i}"], arrays.get(f"b{i}")
            if b is None or w.ndim != 2 or b.shape != (w.shape[1],) or not np.issubdtype(w.dtype, np.floating):
                raise PolicyError(f"policy file {str(path)!r}: layer {i} is malformed")
            if layers and layers[-1][0].shape[1] != w.shape[0]:
                raise PolicyError(f"policy file {str(path)!r}: layer {i} does not follow layer {i - 1}")
            layers.append((w.astype(np.float32), b.astype(np.float32)))
        if not layers or len(layers) > MAX_LAYERS:
            raise PolicyError(f"policy file {str(path)!r} has no layers (or too many)")
        try:
            self.observation_size = int(meta["observation_size"])
            self.num_actions = int(meta["num_actions"])
            self.mat = str(meta["mat"])
            self.frame = (int(meta["frame"][0]), int(meta["frame"][1]))
        except (KeyError, TypeError, ValueError, IndexError):
            raise PolicyError(f"policy file {str(path)!r}: its meta lacks the mat, frame or sizes") from None
        from lordsofwar.rl.config import Config

        try:
            config = Config.of(mat=self.mat, frame=self.frame)
        except ValueError as exc:
            raise PolicyError(f"policy file {str(path)!r}: {exc}") from None
        if (self.observation_size, self.num_actions) != (config.observation_size, config.num_actions):
            raise PolicyError(
                f"policy file {str(path)!r} maps {self.observation_size} numbers to {self.num_actions} actions; the "
                f"{self.mat} mat has {config.observation_size} and {config.num_actions}"
            )
        if layers[0][0].shape[0] != self.observation_size or layers[-1][0].shape[1] != self.num_actions:
            raise PolicyError(f"policy file {str(path)!r}: its layers do not map observations to actions")
        self.layers = layers
        self.meta = meta
        self.path = path

    def observe(self, planes: np.ndarray, info: np.ndarray) -> np.ndarray:
        """The network's input for the core's observation ``(planes, info)``: the scaled
        observation vector (version 2), or ``log1p`` of the unscaled one (version 1)."""
        from lordsofwar.rl.config import flat_observation, raw_observation

        if self.version == 1:
            x: np.ndarray = np.log1p(np.maximum(raw_observation(planes, info), 0))
            return x
        return flat_observation(planes, info)

    def logits(self, x: np.ndarray) -> np.ndarray:
        """The logits of the input ``x`` (:meth:`observe`; a batch along the first axis too)."""
        x = x.astype(np.float32)
        for i, (w, b) in enumerate(self.layers):
            x = x @ w + b
            if i < len(self.layers) - 1:
                np.maximum(x, 0, out=x)
        return x


class PolicyBot:
    """Plays a :class:`Policy` (see the module text)."""

    def __init__(self, path: str | Path, seed: int | None = None, temperature: float = 1.0):
        if not temperature >= 0:
            raise ValueError(f"temperature: 0 or more, got {temperature!r}")
        self.policy = Policy(path)
        self.name = f"policy:{Path(path).name}"
        self.rng = random.Random(seed)
        self.np_rng = np.random.default_rng(seed)
        self.temperature = temperature

    def reseeded(self, seed: int | None) -> PolicyBot:
        """The same policy (not read again) with generators seeded by ``seed``."""
        bot = copy.copy(self)
        bot.seed_with(seed)
        return bot

    def seed_with(self, seed: int | None) -> None:
        self.rng = random.Random(seed)
        self.np_rng = np.random.default_rng(seed)

    def choose(
        self,
        view: Position,
        known: Mapping[int, Sequence[str]] | None = None,
        deck: Sequence[str] | None = None,
    ) -> Action:
        from lordsofwar import core
        from lordsofwar.core.batching import with_frame

        policy = self.policy
        if view.variant.mat != policy.mat:
            raise PolicyError(f"{self.name} was trained for the {policy.mat} mat, not the {view.variant.mat} one")
        game_class = core.Game if view.variant.bordered else with_frame(core.Game, policy.frame)
        game = game_class.from_position(view)
        if game.num_actions != policy.num_actions:
            raise PolicyError(f"{self.name} has {policy.num_actions} action ids, this game {game.num_actions}")
        mask = game.legal_mask()
        if not mask.any():
            return self.rng.choice(view.legal_actions())
        planes, info = game.observation()
        logits = policy.logits(policy.observe(planes, info))
        legal = np.flatnonzero(mask)
        if self.temperature == 0:
            choice = int(legal[np.argmax(logits[legal])])
        else:
            z = logits[legal] / self.temperature
            p = np.exp(z - z.max())
            choice = int(self.np_rng.choice(legal, p=p / p.sum()))
        return parse_action(game.action_text(choice), view)

    def __repr__(self) -> str:
        return f"PolicyBot({str(self.policy.path)!r})"

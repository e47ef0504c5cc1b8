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

A version 3 file (a *network*, :func:`save_network`; the shipped ``lordsofwar/bots/data/net.npz``
that the ``marshal`` level searches with) adds a value head: the layers ``vw0``, ``vb0``, ``vw1``, ... read
the activation (after ReLU) of policy layer ``meta["value_from"]``, with ReLU between them; the
last has one output, and ``tanh`` of it (:meth:`Policy.value`) is the expected result, from -1
(lost) to +1 (won), for the player about to decide. Its policy layers are read as version 2's.

A version 4 file (:func:`save_network` with an action head; the shipped
``lordsofwar/bots/data/scout.npz`` that the ``scout`` level plays) adds to each legal action's
logit a score of the action: ``aw1 @ ReLU(aw0 @ [f; h] + ab0) + ab1``, where ``f`` are the action's
``meta["features"]`` numbers (:func:`lordsofwar.bots.features.features` of the greedy bot's
judgement) and ``h`` the activation of policy layer ``meta["action_from"]``.
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
NETWORK_VERSION = 3
"""The version :func:`save_network` writes: a version 2 policy with a value head."""
ACTION_HEAD_VERSION = 4
"""The version :func:`save_network` writes with an action head."""
VERSIONS = (1, 2, 3, 4)
"""The versions read: 1 reads ``log1p`` of the unscaled observation; 3 adds a value head; 4 an action head."""
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


def save_network(
    path: str | Path,
    policy_layers: Sequence[tuple[np.ndarray, np.ndarray]],
    value_layers: Sequence[tuple[np.ndarray, np.ndarray]],
    meta: Mapping[str, Any],
    action_layers: Sequence[tuple[np.ndarray, np.ndarray]] = (),
) -> None:
    """Write a network (version 3): the policy ``layers`` as :func:`save_policy` writes them, and
    the value head's ``value_layers`` reading the activation of policy layer
    ``meta["value_from"]``; ``meta`` also with ``mat``, ``frame``, ``observation_size``,
    ``num_actions`` (and, free form, ``training``). With ``action_layers`` (the action head's two
    layers; ``meta`` then with ``features`` and ``action_from``) the file is version 4."""
    arrays: dict[str, np.ndarray] = {}
    for prefix, chain in (("", policy_layers), ("v", value_layers), ("a", action_layers)):
        for i, (w, b) in enumerate(chain):
            arrays[f"{prefix}w{i}"] = np.asarray(w, np.float32)
            arrays[f"{prefix}b{i}"] = np.asarray(b, np.float32)
    header = {"format": FORMAT, **meta, "version": ACTION_HEAD_VERSION if action_layers else NETWORK_VERSION}
    arrays["meta"] = np.frombuffer(json.dumps(header).encode(), np.uint8)
    with open(path, "wb") as f:
        np.savez_compressed(f, **arrays)  # type: ignore[arg-type]


def _flushed(a: np.ndarray) -> np.ndarray:
    """``a`` as float32, its subnormal numbers (below 1.2e-38 in size; weight decay leaves
    hundreds of thousands in a trained network) set to 0: they change no result a float32 can
    hold, and on many processors an arithmetic step that meets one takes a hundred times longer
    (the shipped network evaluated 28 times slower). The core's evaluator flushes them alike."""
    out = a.astype(np.float32)
    out[np.abs(out) < np.finfo(np.float32).tiny] = 0
    return out


def _chain(arrays: dict[str, np.ndarray], prefix: str, where: str) -> list[tuple[np.ndarray, np.ndarray]]:
    """The dense layers ``{prefix}w0``, ``{prefix}b0``, ... of a file, each checked to follow the one before."""
    layers: list[tuple[np.ndarray, np.ndarray]] = []
    for i in range(MAX_LAYERS + 1):
        if f"{prefix}w{i}" not in arrays:
            break
        w, b = arrays[f"{prefix}w{i}"], arrays.get(f"{prefix}b{i}")
        if b is None or w.ndim != 2 or b.shape != (w.shape[1],) or not np.issubdtype(w.dtype, np.floating):
            raise PolicyError(f"{where}: layer {prefix}{i} is malformed")
        if not np.issubdtype(b.dtype, np.floating):
            raise PolicyError(f"{where}: layer {prefix}{i} is malformed")
        if layers and layers[-1][0].shape[1] != w.shape[0]:
            raise PolicyError(f"{where}: layer {prefix}{i} does not follow layer {prefix}{i - 1}")
        layers.append((_flushed(w), _flushed(b)))
    if not layers or len(layers) > MAX_LAYERS:
        raise PolicyError(f"{where} has no {'value ' if prefix else ''}layers (or too many)")
    return layers


def _dense(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``x @ w + b``. One input goes through ``einsum``'s own loop, not the BLAS: a BLAS that
    spreads one matrix-vector product over its threads took 20 to 50 times longer (8 to 20 ms for
    the shipped network) on a 2-core machine busy with other work."""
    if x.ndim == 1:
        out: np.ndarray = np.einsum("i,ij->j", x, w) + b
        return out
    batch: np.ndarray = x @ w + b
    return batch


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
        where = f"policy file {str(path)!r}"
        layers = _chain(arrays, "", where)
        self.value_layers: list[tuple[np.ndarray, np.ndarray]] = []
        self.value_from = -1
        self.action_layers: list[tuple[np.ndarray, np.ndarray]] = []
        self.action_from = -1
        self.features = 0
        if self.version >= NETWORK_VERSION:
            value_from = meta.get("value_from")
            if isinstance(value_from, bool) or not isinstance(value_from, int) or not 0 <= value_from < len(layers) - 1:
                raise PolicyError(
                    f"{where}: its value_from {value_from!r} is not a hidden policy layer (0 to {len(layers) - 2})"
                )
            self.value_layers = _chain(arrays, "v", where)
            if self.value_layers[0][0].shape[0] != layers[value_from][0].shape[1]:
                raise PolicyError(f"{where}: its value head does not read policy layer {value_from}")
            if self.value_layers[-1][0].shape[1] != 1:
                raise PolicyError(f"{where}: its value head does not end in one number")
            self.value_from = value_from
        if self.version == ACTION_HEAD_VERSION:
            action_from, features = meta.get("action_from"), meta.get("features")
            if (
                isinstance(action_from, bool)
                or not isinstance(action_from, int)
                or not 0 <= action_from < len(layers) - 1
            ):
                raise PolicyError(f"{where}: its action_from {action_from!r} is not a hidden policy layer")
            if isinstance(features, bool) or not isinstance(features, int) or features < 1:
                raise PolicyError(f"{where}: its features {features!r} is not a positive count")
            self.action_layers = _chain(arrays, "a", where)
            if len(self.action_layers) != 2 or self.action_layers[1][0].shape[1] != 1:
                raise PolicyError(f"{where}: its action head is not two layers ending in one number")
            if self.action_layers[0][0].shape[0] != features + layers[action_from][0].shape[1]:
                raise PolicyError(f"{where}: its action head does not read {features} features and layer {action_from}")
            self.action_from, self.features = action_from, features
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
        return self.evaluate(x)[0]

    @property
    def has_value(self) -> bool:
        """Whether the file has a value head (version 3)."""
        return bool(self.value_layers)

    def value(self, x: np.ndarray) -> np.ndarray | float:
        """The value head's estimate for the input ``x`` (a float for one input, an array for a
        batch): the expected result for the player about to decide, from -1 to +1. A policy
        without a value head (versions 1 and 2) raises :class:`PolicyError`."""
        v = self.evaluate(x)[1]
        if v is None:
            raise PolicyError(f"policy file {str(self.path)!r} (version {self.version}) has no value head")
        return float(v) if np.ndim(v) == 0 else v

    def evaluate(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """The logits and (for a network with a value head, else None) the value of ``x``, in one pass."""
        logits, value, _ = self._forward(x)
        return logits, value

    def action_logits(self, x: np.ndarray, ids: np.ndarray, features: np.ndarray) -> np.ndarray:
        """For one input ``x``: the logits of the actions ``ids`` whose features (one row per
        action, :func:`lordsofwar.bots.features.features`) are ``features``, with the action
        head's score added (a network without one: the plain logits of ``ids``)."""
        logits, _, hidden = self._forward(x)
        out: np.ndarray = logits[ids].astype(np.float32)
        if not self.action_layers:
            return out
        assert hidden is not None
        (w0, b0), (w1, b1) = self.action_layers
        f = np.asarray(features, np.float32)
        if f.shape != (len(ids), self.features):
            raise PolicyError(f"the action head reads {self.features} features per action, got {f.shape}")
        h = np.maximum(f @ w0[: self.features] + (np.einsum("i,ij->j", hidden, w0[self.features :]) + b0), 0)
        out += (h @ w1 + b1)[:, 0]
        return out

    def _forward(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
        """The logits, the value (or None) and the action head's input layer (or None)."""
        x = np.asarray(x, np.float32)
        hidden: np.ndarray | None = None
        action_input: np.ndarray | None = None
        last = len(self.layers) - 1
        for i, (w, b) in enumerate(self.layers):
            x = _dense(x, w, b)
            if i < last:
                np.maximum(x, 0, out=x)
            if i == self.value_from:
                hidden = x
            if i == self.action_from:
                action_input = x
        if hidden is None:
            return x, None, action_input
        v = hidden
        for i, (w, b) in enumerate(self.value_layers):
            v = _dense(v, w, b)
            if i < len(self.value_layers) - 1:
                np.maximum(v, 0, out=v)
        return x, np.tanh(v[..., 0]), action_input


class PolicyBot:
    """Plays a :class:`Policy` (see the module text)."""

    def __init__(
        self, path: str | Path | Policy, seed: int | None = None, temperature: float = 1.0, name: str | None = None
    ):
        if not temperature >= 0:
            raise ValueError(f"temperature: 0 or more, got {temperature!r}")
        self.policy = path if isinstance(path, Policy) else Policy(path)
        self.name = name or f"policy:{self.policy.path.name}"
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
        if policy.action_layers:
            # The action head reads the greedy bot's numbers of each legal action (bots/features.py).
            from lordsofwar.bots.features import features, raw_scores

            legal, raw = raw_scores(game)
            if len(legal) == 0:
                return self.rng.choice(view.legal_actions())
            planes, info = game.observation()
            scores = policy.action_logits(policy.observe(planes, info), legal, features(raw))
        else:
            mask = game.legal_mask()
            if not mask.any():
                return self.rng.choice(view.legal_actions())
            planes, info = game.observation()
            legal = np.flatnonzero(mask)
            scores = policy.logits(policy.observe(planes, info))[legal]
        if self.temperature == 0 or len(legal) == 1:
            choice = int(legal[np.argmax(scores)])
        else:
            z = scores / self.temperature
            p = np.exp(z - z.max())
            choice = int(self.np_rng.choice(legal, p=p / p.sum()))
        return parse_action(game.action_text(choice), view)

    def __repr__(self) -> str:
        return f"PolicyBot({str(self.policy.path)!r})"


SHIPPED = Path(__file__).parent / "data" / "net.npz"
"""The network ``marshal`` searches with (docs/bots.md, "The network")."""
SCOUT = Path(__file__).parent / "data" / "scout.npz"
"""The network the ``scout`` level plays: a version 4 file, with an action head."""

SCOUT_TEMPERATURE = 0.0
"""The ``scout`` level plays the network's most likely legal action (docs/bots.md says why)."""

_shipped: dict[Path, Policy] = {}


def shipped_network(path: Path = SHIPPED) -> Policy:
    """A shipped network (:data:`SHIPPED` or :data:`SCOUT`), read once."""
    if path not in _shipped:
        _shipped[path] = Policy(path)
    return _shipped[path]


class ScoutBot:
    """The ``scout`` level: a shipped network's policy alone, no search (:data:`SCOUT`, with its
    action head). On a game the network was not trained for (the unbordered mat, other cards) it
    plays as the greedy bot does."""

    name = "scout"

    def __init__(self, seed: int | None = None, network: Policy | None = None):
        self.policy = network or shipped_network(SCOUT)
        self.net = PolicyBot(self.policy, seed, SCOUT_TEMPERATURE, name=self.name)
        self.seed = seed
        self._greedy: Any = None

    def choose(
        self,
        view: Position,
        known: Mapping[int, Sequence[str]] | None = None,
        deck: Sequence[str] | None = None,
    ) -> Action:
        if view.variant.mat == self.policy.mat:
            try:
                return self.net.choose(view, known, deck)
            except PolicyError:
                pass  # another card set's action ids: the greedy bot's choice below
        if self._greedy is None:
            from lordsofwar.bots.greedy import GreedyBot

            self._greedy = GreedyBot(self.seed)
        action: Action = self._greedy.choose(view)
        return action

    def __repr__(self) -> str:
        return f"ScoutBot(seed={self.seed!r})"

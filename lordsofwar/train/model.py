"""The network (PyTorch): a trunk of dense layers over the observation vector, a policy head
with one logit per action id and a value head, and optionally an action head that adds to each
legal action's logit a score computed from the trunk's last layer and the greedy bot's numbers
for that action (:mod:`lordsofwar.bots.features`) (docs/bots.md, "The network"; the file it is
exported to: :func:`lordsofwar.bots.policy.save_network`)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np
import torch
from torch import nn

from lordsofwar.core.observation import INFO, PLANES
from lordsofwar.rl.config import normalise

BORDERED_FRAME = (7, 6)
OBSERVATION_SIZE = PLANES * BORDERED_FRAME[0] * BORDERED_FRAME[1] + INFO
NUM_ACTIONS = 1724
"""The bordered mat's observation size (1,860) and action ids (1,724) with the core cards."""


@lru_cache(maxsize=1)
def observation_scale() -> np.ndarray:
    """The divisor of each number of the raw observation as a factor (the scaled observation is
    ``min(raw * factor, 1)``: :func:`lordsofwar.rl.config.normalise`); made once and shared: do not change it."""
    ones = np.ones(OBSERVATION_SIZE, np.float32)
    scale: np.ndarray = normalise(ones, OBSERVATION_SIZE - INFO)
    return scale


class Network(nn.Module):
    """``trunk`` hidden layers (ReLU after each), then the policy layer (one logit per action
    id) and, from the last hidden layer, the value head (``value_hidden`` layers with ReLU, then
    one number, whose ``tanh`` is the expected result)."""

    def __init__(
        self,
        inputs: int = OBSERVATION_SIZE,
        trunk: Sequence[int] = (512, 256),
        actions: int = NUM_ACTIONS,
        value_hidden: Sequence[int] = (64,),
        features: int = 0,
        feature_hidden: int = 64,
    ):
        super().__init__()
        if not trunk:
            raise ValueError("the network needs at least one hidden layer (the value head reads the last)")
        sizes = [inputs, *trunk]
        self.trunk = nn.ModuleList(nn.Linear(a, b) for a, b in zip(sizes, sizes[1:], strict=False))
        self.policy = nn.Linear(sizes[-1], actions)
        vsizes = [sizes[-1], *value_hidden, 1]
        self.value = nn.ModuleList(nn.Linear(a, b) for a, b in zip(vsizes, vsizes[1:], strict=False))
        self.shape = {"inputs": inputs, "trunk": list(trunk), "actions": actions, "value_hidden": list(value_hidden)}
        self.features = features
        if features:
            # The action head: ReLU(W [features; trunk]) then one number, per legal action.
            self.action_hidden = nn.Linear(features + sizes[-1], feature_hidden)
            self.action_out = nn.Linear(feature_hidden, 1)
            self.shape.update(features=features, feature_hidden=feature_hidden)

    def forward(
        self, x: torch.Tensor, entries: tuple[torch.Tensor, torch.Tensor, torch.Tensor] | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """The logits and the value before ``tanh`` of a batch of scaled observations. With an
        action head, ``entries`` (each legal action's batch row, its id and its features) adds
        the head's score to those logits."""
        for layer in self.trunk:
            x = torch.relu(layer(x))
        logits = self.policy(x)
        if self.features:
            if entries is None:
                raise ValueError("a network with an action head needs each legal action's features")
            rows, ids, feats = entries
            w = self.action_hidden.weight  # (hidden, features + trunk)
            from_trunk = x @ w[:, self.features :].T  # (batch, hidden), once per position
            h = torch.relu(feats @ w[:, : self.features].T + from_trunk[rows] + self.action_hidden.bias)
            logits = logits.index_put((rows, ids), self.action_out(h)[:, 0], accumulate=True)
        v = x
        for i, layer in enumerate(self.value):
            v = layer(v)
            if i < len(self.value) - 1:
                v = torch.relu(v)
        return logits, v[:, 0]

    def export_layers(self) -> tuple[list[tuple[np.ndarray, np.ndarray]], list[tuple[np.ndarray, np.ndarray]], int]:
        """The policy chain, the value head (weights as (inputs, outputs)) and ``value_from``, for
        :func:`lordsofwar.bots.policy.save_network` (the action head: :meth:`export_action_head`)."""
        policy = [_pair(layer) for layer in self.trunk] + [_pair(self.policy)]
        value = [_pair(layer) for layer in self.value]
        return policy, value, len(self.trunk) - 1

    def export_action_head(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """The action head's two layers (weights as (inputs, outputs); the first reads the
        features, then the trunk's last layer), or none."""
        if not self.features:
            return []
        return [_pair(self.action_hidden), _pair(self.action_out)]


def _pair(layer: nn.Module) -> tuple[np.ndarray, np.ndarray]:
    """A dense layer as NumPy (weights as (inputs, outputs), biases), float32."""
    assert isinstance(layer, nn.Linear)
    return (
        layer.weight.detach().cpu().numpy().T.astype(np.float32).copy(),
        layer.bias.detach().cpu().numpy().astype(np.float32).copy(),
    )


def parameter_count(net: nn.Module) -> int:
    return sum(p.numel() for p in net.parameters())

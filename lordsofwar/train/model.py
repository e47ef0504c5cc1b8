"""The network (PyTorch): a trunk of dense layers over the observation vector, a policy head
with one logit per action id and a value head (docs/bots.md, "The network"; the file it is
exported to: :func:`lordsofwar.bots.policy.save_network`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from torch import nn

from lordsofwar.core.observation import INFO, PLANES
from lordsofwar.rl.config import normalise

BORDERED_FRAME = (7, 6)
OBSERVATION_SIZE = PLANES * BORDERED_FRAME[0] * BORDERED_FRAME[1] + INFO
NUM_ACTIONS = 1724
"""The bordered mat's observation size (1,860) and action ids (1,724) with the core cards."""


def observation_scale() -> np.ndarray:
    """The divisor of each number of the raw observation as a factor (the scaled observation is
    ``min(raw * factor, 1)``: :func:`lordsofwar.rl.config.normalise`)."""
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

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The logits and the value before ``tanh`` of a batch of scaled observations."""
        for layer in self.trunk:
            x = torch.relu(layer(x))
        logits = self.policy(x)
        v = x
        for i, layer in enumerate(self.value):
            v = layer(v)
            if i < len(self.value) - 1:
                v = torch.relu(v)
        return logits, v[:, 0]

    def export_layers(self) -> tuple[list[tuple[np.ndarray, np.ndarray]], list[tuple[np.ndarray, np.ndarray]], int]:
        """The policy chain, the value head (weights as (inputs, outputs)) and ``value_from``, for
        :func:`lordsofwar.bots.policy.save_network`."""

        def pair(layer: nn.Module) -> tuple[np.ndarray, np.ndarray]:
            assert isinstance(layer, nn.Linear)
            return (
                layer.weight.detach().cpu().numpy().T.astype(np.float32).copy(),
                layer.bias.detach().cpu().numpy().astype(np.float32).copy(),
            )

        policy = [pair(layer) for layer in self.trunk] + [pair(self.policy)]
        value = [pair(layer) for layer in self.value]
        return policy, value, len(self.trunk) - 1


def parameter_count(net: nn.Module) -> int:
    return sum(p.numel() for p in net.parameters())

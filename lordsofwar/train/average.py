"""The mean of the weights of network files of one shape (``lordsofwar train average``): snapshots
of one run averaged smooth the noise of the last updates (docs/bots.md, "Improving `scout` by
playing"). NumPy only."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from lordsofwar.bots.policy import Policy


def average(paths: list[str | Path]) -> tuple[list[list[tuple[np.ndarray, np.ndarray]]], dict[str, Any]]:
    """The mean of the weights of network files of one shape (snapshots of one run: averaging
    them smooths the noise of the last updates), as save_network's layer chains (policy, value,
    action head) and the first file's meta with the averaged files named in its training."""
    policies = [Policy(p) for p in paths]
    if not policies:
        raise ValueError("give at least one network file")
    first = policies[0]

    def chains(p: Policy) -> list[list[tuple[np.ndarray, np.ndarray]]]:
        return [p.layers, p.value_layers, p.action_layers]

    shape = [[(w.shape, b.shape) for w, b in chain] for chain in chains(first)]
    for path, p in zip(paths, policies, strict=True):
        same_heads = (p.features, p.value_from, p.action_from, p.mat) == (
            first.features,
            first.value_from,
            first.action_from,
            first.mat,
        )
        if [[(w.shape, b.shape) for w, b in chain] for chain in chains(p)] != shape or not same_heads:
            raise ValueError(f"{str(path)!r}: not the shape of {str(paths[0])!r}")
    mean = [
        [
            (
                np.mean([chains(p)[c][i][0] for p in policies], axis=0).astype(np.float32),
                np.mean([chains(p)[c][i][1] for p in policies], axis=0).astype(np.float32),
            )
            for i in range(len(chain))
        ]
        for c, chain in enumerate(chains(first))
    ]
    meta = {k: v for k, v in first.meta.items() if k not in ("format", "version")}
    training = dict(meta.get("training") or {})
    training["averaged"] = [
        {"file": Path(path).name, "iteration": (p.meta.get("training") or {}).get("improved", {}).get("iteration")}
        for path, p in zip(paths, policies, strict=True)
    ]
    meta["training"] = training
    return mean, meta

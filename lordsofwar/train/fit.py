"""Fitting the network to self-play data (expert iteration's learning step), with resumable
checkpoints, and exporting it to the NumPy file the bots play.

The loss of a decision is the cross entropy of the policy, over the legal ids only (the others'
logits are masked out), against the search's visit distribution, plus ``value_weight`` times
the squared error of ``tanh`` of the value against the target ``(1 - root_mix) * result +
root_mix * root value`` (the game's result for the decider, mixed with the search's own estimate
at the root). Adam, minibatches drawn without replacement epoch by epoch from a seeded
generator; one game in ``holdout`` (by its index) is kept out of training and its loss printed.

A run's directory holds ``checkpoint.pt`` (the model, the optimiser, the step, the generators'
states, the training seconds so far and the list of shards it trains on), rewritten every
``checkpoint_every`` steps, so ``--resume`` continues a stopped run exactly; ``log.jsonl`` (one
line per evaluation) and, every ``snapshot_every`` steps, ``snapshots/net-STEP.npz`` (the network
then, for a curve of strength against training time).
"""

from __future__ import annotations

import dataclasses
import json
import os
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from lordsofwar.bots.policy import save_network
from lordsofwar.train.model import BORDERED_FRAME, NUM_ACTIONS, OBSERVATION_SIZE, Network, observation_scale
from lordsofwar.train.selfplay import SHARD_FORMAT, shard_paths


@dataclass
class FitConfig:
    """The settings of a training run (stored in its checkpoint; a resumed run keeps them)."""

    steps: int = 3000
    batch: int = 256
    lr: float = 5e-4
    weight_decay: float = 1e-4
    value_weight: float = 0.25
    root_mix: float = 0.5
    trunk: tuple[int, ...] = (512, 256)
    value_hidden: tuple[int, ...] = (64,)
    action_head: bool = False
    """An action head over the greedy bot's numbers (:mod:`lordsofwar.bots.features`; the shards
    must be version 2)."""
    feature_hidden: int = 64
    holdout: int = 20
    """One game in ``holdout`` (game index modulo ``holdout`` == 0) is held out."""
    seed: int = 0
    checkpoint_every: int = 500
    snapshot_every: int = 0
    """0: no snapshots."""
    eval_every: int = 500


@dataclass
class Data:
    """Decisions of self-play shards, in memory."""

    planes: np.ndarray
    info: np.ndarray
    legal_ptr: np.ndarray
    legal_ids: np.ndarray
    visit_ptr: np.ndarray
    visit_ids: np.ndarray
    visits: np.ndarray
    value: np.ndarray
    result: np.ndarray
    game: np.ndarray
    shards: list[str]
    features: np.ndarray | None = None
    """Per legal id (in the order of ``legal_ids``), its features (:func:`lordsofwar.bots.features.features`),
    where every shard has the greedy bot's numbers."""

    def __len__(self) -> int:
        return len(self.value)


def load_data(paths: Sequence[str | Path]) -> Data:
    """The decisions of the shards at ``paths`` (each a shard or a directory of them), in order."""
    files: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            files.extend(shard_paths(p))
        elif p.is_file():
            files.append(p)
        else:
            raise FileNotFoundError(f"no self-play data at {str(p)!r}")
    if not files:
        raise ValueError(f"no self-play shards in {', '.join(map(str, paths))}")
    from lordsofwar.bots.features import NUM_FEATURES, features

    parts: dict[str, list[np.ndarray]] = {}
    feature_parts: list[np.ndarray] | None = []
    legal_base = visit_base = 0
    for path in files:
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(bytes(data["meta"]).decode())
            if meta.get("format") != SHARD_FORMAT:
                raise ValueError(f"{path} is not a {SHARD_FORMAT} shard")
            arrays = {k: data[k] for k in data.files}
        n = len(arrays["value"])
        parts.setdefault("planes", []).append(arrays["planes"].reshape(n, -1))
        parts.setdefault("info", []).append(arrays["info"])
        parts.setdefault("legal_ptr", []).append(arrays["legal_ptr"][:-1] + legal_base)
        parts.setdefault("visit_ptr", []).append(arrays["visit_ptr"][:-1] + visit_base)
        legal_base += int(arrays["legal_ptr"][-1])
        visit_base += int(arrays["visit_ptr"][-1])
        for key in ("legal_ids", "visit_ids", "visits", "value", "result", "game"):
            parts.setdefault(key, []).append(arrays[key])
        if "greedy" not in arrays:
            feature_parts = None
        elif feature_parts is not None:
            ptr, raw = arrays["legal_ptr"], arrays["greedy"]
            f = np.empty((len(raw), NUM_FEATURES), np.float32)
            for i in range(n):
                f[ptr[i] : ptr[i + 1]] = features(raw[ptr[i] : ptr[i + 1]])
            feature_parts.append(f)
    joined: dict[str, Any] = {k: np.concatenate(v) for k, v in parts.items()}
    joined["features"] = np.concatenate(feature_parts) if feature_parts else None
    joined["legal_ptr"] = np.append(joined["legal_ptr"], legal_base)
    joined["visit_ptr"] = np.append(joined["visit_ptr"], visit_base)
    if joined["planes"].shape[1] + joined["info"].shape[1] != OBSERVATION_SIZE:
        raise ValueError(f"the shards' observations do not have the bordered mat's {OBSERVATION_SIZE} numbers")
    return Data(**joined, shards=[str(f) for f in files])


def _spans(ptr: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For the rows ``rows`` of a ragged array with offsets ``ptr``: each element's batch row and its index."""
    starts, ends = ptr[rows], ptr[rows + 1]
    lengths = ends - starts
    row_of = np.repeat(np.arange(len(rows)), lengths)
    offsets = np.arange(int(lengths.sum())) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    return row_of, np.repeat(starts, lengths) + offsets


Entries = tuple[torch.Tensor, torch.Tensor, torch.Tensor]
"""Each legal action of a batch: its row, its id, its features (for the action head)."""


class Batches:
    """Minibatches of :class:`Data` as tensors: the scaled observations, the legal mask, the
    visit distribution, the value target, and (with ``action_head``) each legal action's
    features."""

    def __init__(self, data: Data, root_mix: float, action_head: bool = False):
        if action_head and data.features is None:
            raise ValueError("an action head needs the greedy bot's numbers: shards of version 2 (train generate)")
        self.data = data
        self.scale = torch.from_numpy(observation_scale())
        self.root_mix = root_mix
        self.action_head = action_head

    def get(self, rows: np.ndarray) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, Entries | None]:
        d = self.data
        b = len(rows)
        x = torch.cat([torch.from_numpy(d.planes[rows]).float(), torch.from_numpy(d.info[rows])], dim=1)
        x = torch.clamp(x * self.scale, 0.0, 1.0)
        legal = torch.zeros(b, NUM_ACTIONS, dtype=torch.bool)
        r, i = _spans(d.legal_ptr, rows)
        legal_rows, legal_ids = torch.from_numpy(r), torch.from_numpy(d.legal_ids[i].astype(np.int64))
        legal[legal_rows, legal_ids] = True
        entries: Entries | None = None
        if self.action_head:
            assert d.features is not None
            entries = (legal_rows, legal_ids, torch.from_numpy(d.features[i]))
        target = torch.zeros(b, NUM_ACTIONS)
        r, i = _spans(d.visit_ptr, rows)
        target[torch.from_numpy(r), torch.from_numpy(d.visit_ids[i].astype(np.int64))] = torch.from_numpy(
            d.visits[i].astype(np.float32)
        )
        target /= target.sum(dim=1, keepdim=True).clamp(min=1.0)
        z = (1 - self.root_mix) * d.result[rows] + self.root_mix * d.value[rows]
        return x, legal, target, torch.from_numpy(z.astype(np.float32)), entries


def losses(
    net: Network,
    x: torch.Tensor,
    legal: torch.Tensor,
    target: torch.Tensor,
    z: torch.Tensor,
    entries: Entries | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """The policy loss (cross entropy over the legal ids) and the value loss (squared error) of a batch."""
    logits, v = net(x, entries)
    logits = logits.masked_fill(~legal, -1e9)
    policy = -(target * torch.log_softmax(logits, dim=1)).sum(dim=1).mean()
    value = torch.mean((torch.tanh(v) - z) ** 2)
    return policy, value


def _save_atomic(obj: Any, path: Path) -> None:
    tmp = path.with_suffix(".tmp")
    torch.save(obj, tmp)
    os.replace(tmp, path)


def export(net: Network, path: str | Path, training: dict[str, Any]) -> None:
    """Write ``net`` as a network file (:func:`lordsofwar.bots.policy.save_network`): version 3,
    or 4 with an action head."""
    policy, value, value_from = net.export_layers()
    meta: dict[str, Any] = {
        "mat": "bordered",
        "frame": list(BORDERED_FRAME),
        "observation_size": OBSERVATION_SIZE,
        "num_actions": NUM_ACTIONS,
        "value_from": value_from,
        "training": training,
    }
    if net.features:
        meta.update(features=net.features, action_from=len(policy) - 2)
    save_network(path, policy, value, meta, net.export_action_head())


def _config_of(stored: dict[str, Any]) -> FitConfig:
    stored = dict(stored)
    for key in ("trunk", "value_hidden"):
        stored[key] = tuple(stored[key])
    return FitConfig(**stored)


def make_network(config: FitConfig) -> Network:
    from lordsofwar.bots.features import NUM_FEATURES

    return Network(
        trunk=config.trunk,
        value_hidden=config.value_hidden,
        features=NUM_FEATURES if config.action_head else 0,
        feature_hidden=config.feature_hidden,
    )


def fit(
    data_paths: Sequence[str | Path],
    run: str | Path,
    config: FitConfig | None = None,
    resume: bool = False,
    threads: int | None = None,
    say: Callable[[str], None] = print,
) -> Network:
    """Train a network on the shards of ``data_paths`` in the run directory ``run`` (see the
    module text); ``resume`` continues from ``run``'s checkpoint with its settings and shards.
    Returns the network at the last step."""
    run = Path(run)
    ckpt_path = run / "checkpoint.pt"
    if threads:
        torch.set_num_threads(threads)
    state: dict[str, Any] | None = None
    if resume:
        if not ckpt_path.exists():
            raise FileNotFoundError(f"no checkpoint to resume in {str(run)!r}")
        state = torch.load(ckpt_path, weights_only=False)
        stored = _config_of(state["config"])
        if config is not None:  # a resumed run keeps its settings; only its length may change
            stored.steps = config.steps
        config = stored
        data = load_data(state["shards"])
    else:
        if ckpt_path.exists():
            raise FileExistsError(f"{str(run)!r} already holds a run: resume it (--resume) or use another directory")
        config = config or FitConfig()
        data = load_data(data_paths)
    assert config is not None
    run.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(config.seed)
    random.seed(config.seed)
    net = make_network(config)
    opt = torch.optim.Adam(net.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    rng = np.random.default_rng(config.seed)
    held = data.game % config.holdout == 0
    train_rows = np.flatnonzero(~held)
    held_rows = np.flatnonzero(held)[:4096]
    order = rng.permutation(train_rows)
    cursor = 0
    step = 0
    seconds = 0.0
    if state is not None:
        net.load_state_dict(state["model"])
        opt.load_state_dict(state["optimizer"])
        rng.bit_generator.state = state["numpy_rng"]
        torch.set_rng_state(state["torch_rng"])
        random.setstate(state["python_rng"])
        order, cursor, step, seconds = state["order"], state["cursor"], state["step"], state["seconds"]
        say(f"resumed at step {step} ({seconds:.0f} s of training)")
    batches = Batches(data, config.root_mix, config.action_head)
    say(
        f"{len(data):,} decisions from {len(data.shards)} shards: {len(train_rows):,} to train on, "
        f"{int(held.sum()):,} held out; network {net.shape}"
    )
    snapshots = run / "snapshots"
    if config.snapshot_every:
        snapshots.mkdir(exist_ok=True)

    def held_loss() -> tuple[float, float]:
        net.eval()
        with torch.no_grad():
            p_sum = v_sum = 0.0
            for i in range(0, len(held_rows), 1024):
                rows = held_rows[i : i + 1024]
                p, v = losses(net, *batches.get(rows))
                p_sum += float(p) * len(rows)
                v_sum += float(v) * len(rows)
        net.train()
        n = len(held_rows)
        return (p_sum / n, v_sum / n) if n else (float("nan"), float("nan"))

    def training_facts() -> dict[str, Any]:
        return {
            "decisions": len(data),
            "shards": len(data.shards),
            "steps": step,
            "seconds": round(seconds, 1),
            "config": dataclasses.asdict(config),
        }

    def checkpoint() -> None:
        _save_atomic(
            {
                "model": net.state_dict(),
                "optimizer": opt.state_dict(),
                "numpy_rng": rng.bit_generator.state,
                "torch_rng": torch.get_rng_state(),
                "python_rng": random.getstate(),
                "order": order,
                "cursor": cursor,
                "step": step,
                "seconds": seconds,
                "config": dataclasses.asdict(config),
                "shards": data.shards,
                "decisions": len(data),
                "shape": net.shape,
            },
            ckpt_path,
        )

    run_p = run_v = 0.0
    run_n = 0
    started = time.perf_counter()
    base_seconds = seconds
    while step < config.steps:
        if cursor + config.batch > len(order):
            order = rng.permutation(train_rows)
            cursor = 0
        rows = np.sort(order[cursor : cursor + config.batch])
        cursor += config.batch
        p, v = losses(net, *batches.get(rows))
        loss = p + config.value_weight * v
        opt.zero_grad()
        loss.backward()  # type: ignore[no-untyped-call]
        opt.step()
        step += 1
        seconds = base_seconds + time.perf_counter() - started
        run_p += float(p.detach())
        run_v += float(v.detach())
        run_n += 1
        if step % config.eval_every == 0 or step == config.steps:
            hp, hv = held_loss()
            line = {
                "step": step,
                "seconds": round(seconds, 1),
                "policy": round(run_p / run_n, 4),
                "value": round(run_v / run_n, 4),
                "held_policy": round(hp, 4),
                "held_value": round(hv, 4),
            }
            with open(run / "log.jsonl", "a") as f:
                f.write(json.dumps(line) + "\n")
            say(
                f"step {step}: train policy {line['policy']:.3f} value {line['value']:.3f}; held out policy "
                f"{hp:.3f} value {hv:.3f} ({seconds:.0f} s)"
            )
            run_p = run_v = 0.0
            run_n = 0
        if config.snapshot_every and step % config.snapshot_every == 0:
            export(net, snapshots / f"net-{step:07d}.npz", training_facts())
        if step % config.checkpoint_every == 0 or step == config.steps:
            checkpoint()
    return net


def load_checkpoint(path: str | Path) -> tuple[Network, dict[str, Any]]:
    """The network of a checkpoint (a run directory or its ``checkpoint.pt``) and the facts of its training."""
    path = Path(path)
    if path.is_dir():
        path = path / "checkpoint.pt"
    state = torch.load(path, weights_only=False)
    config = _config_of(state["config"])
    net = make_network(config)
    net.load_state_dict(state["model"])
    facts = {
        "decisions": state.get("decisions"),
        "shards": len(state["shards"]),
        "steps": state["step"],
        "seconds": round(state["seconds"], 1),
        "config": state["config"],
    }
    return net, facts

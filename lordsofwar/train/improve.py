"""Reinforcement learning against a bot: a network with an action head (``scout``'s) improved by
proximal policy optimisation (PPO, Schulman et al. 2017) in games against an opponent the core's
batch plays (docs/bots.md, "Improving `scout` by playing").

Every iteration plays ``steps`` decisions in each of ``games`` games of a :class:`core.Batch`
against ``opponent`` (the greedy bot, a search level or the random player, played in C++): the
learner draws its action from its policy over the legal ids (the logits of the observation plus
the action head's score from the greedy bot's numbers for each action,
``Batch.greedy_scores``), and its rewards are the games' results (+1 won, -1 lost, 0 drawn, at the
game's end). The advantages are generalised advantage estimates (``gamma`` 1, ``lam``) from the
value head; the update is PPO's clipped objective with a value loss and an entropy bonus, for
``epochs`` passes in minibatches. Every ``eval_every`` iterations the greedy policy (the highest
logit, as ``scout`` plays) meets the opponent in ``eval_games`` games dealt from a fixed seed,
and the best snapshot so far is kept.

The run is reproducible from its seed and the iterations it was stopped at on one machine
(torch's CPU build; ``torch.set_num_threads`` as given), and resumable: ``checkpoint.pt`` is
written after every iteration. A resumed run deals new games (the batch's games under way are not
kept), so it ends elsewhere than a run never stopped.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from lordsofwar.bots.features import NUM_FEATURES, features
from lordsofwar.bots.policy import Policy
from lordsofwar.train.fit import export
from lordsofwar.train.model import Network, observation_scale


@dataclass
class ImproveConfig:
    """The settings of a run (see the module text)."""

    network: str
    """The network file to start from (version 4, with an action head)."""
    opponent: str = "greedy"
    games: int = 128
    steps: int = 32
    iterations: int = 100
    lr: float = 3e-5
    clip: float = 0.2
    epochs: int = 2
    minibatch: int = 1024
    lam: float = 0.95
    value_weight: float = 0.5
    entropy: float = 0.003
    temperature: float = 0.25
    """The policy played and improved is the softmax of the logits / ``temperature`` (the
    imitation network's own softmax is far flatter than its argmax's play)."""
    eval_every: int = 10
    eval_games: int = 400
    snapshot_every: int = 50
    """Write the network every this many iterations to ``snapshots/it-NNNNN.npz`` (0: never)."""
    seed: int = 0
    threads: int = 2


def network_from_file(policy: Policy) -> Network:
    """A PyTorch :class:`Network` with the weights of a version 4 file (its trunk, policy layer,
    value head and action head)."""
    if not policy.action_layers or not policy.value_layers:
        raise ValueError("improving needs a network with a value head and an action head (version 4)")
    last_hidden = len(policy.layers) - 2
    if policy.value_from != last_hidden or policy.action_from != last_hidden:
        raise ValueError("improving needs the value and action heads to read the trunk's last layer")
    trunk = [w.shape[1] for w, _ in policy.layers[:-1]]
    value_hidden = [w.shape[1] for w, _ in policy.value_layers[:-1]]
    net = Network(
        inputs=policy.layers[0][0].shape[0],
        trunk=trunk,
        actions=policy.layers[-1][0].shape[1],
        value_hidden=value_hidden,
        features=policy.features,
        feature_hidden=policy.action_layers[0][0].shape[1],
    )
    layers = [*net.trunk, net.policy]
    pairs = [
        *zip(layers, policy.layers, strict=True),
        *zip(net.value, policy.value_layers, strict=True),
        (net.action_hidden, policy.action_layers[0]),
        (net.action_out, policy.action_layers[1]),
    ]
    with torch.no_grad():
        for layer, (w, b) in pairs:
            layer.weight.copy_(torch.from_numpy(np.ascontiguousarray(w.T)))
            layer.bias.copy_(torch.from_numpy(b))
    return net


def decision_inputs(batch: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The network's inputs for every game of ``batch`` (each waiting for its learner): the scaled
    observations (size, 1860), each legal action's row, id and features (flat, by game), and
    where each game's actions start (size + 1)."""
    x = np.concatenate([batch.planes.reshape(batch.size, -1), batch.info], axis=1, dtype=np.float32)
    np.minimum(x * observation_scale(), 1.0, out=x)
    ids, raw, ptr = batch.greedy_scores()
    feats = np.empty((len(ids), NUM_FEATURES), np.float32)
    for b in range(batch.size):
        lo, hi = int(ptr[b]), int(ptr[b + 1])
        feats[lo:hi] = features(raw[lo:hi])
    rows = np.repeat(np.arange(batch.size), np.diff(ptr))
    return x.astype(np.float32), rows.astype(np.int64), ids.astype(np.int64), feats, ptr


def judge(net: Network, batch: Any) -> tuple[np.ndarray, ...]:
    """:func:`decision_inputs` of ``batch`` and the network's judgement of them (no gradient): the
    inputs, then the legal actions' logits and each row's value before tanh, as NumPy."""
    x, rows, ids, feats, ptr = decision_inputs(batch)
    with torch.no_grad():
        lg, v = legal_logits(net, *(torch.from_numpy(a) for a in (x, rows, ids, feats)))
    return x, rows, ids, feats, ptr, lg.numpy(), v.numpy()


def legal_logits(
    net: Network, x: torch.Tensor, rows: torch.Tensor, ids: torch.Tensor, feats: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """The logit of every legal action (flat, as ``rows``/``ids``) and each row's value (before tanh)."""
    logits, v = net(x, (rows, ids, feats))
    return logits[rows, ids], v


def first_best(values: np.ndarray, rows: np.ndarray, ptr: np.ndarray) -> np.ndarray:
    """Per row (each with at least one entry), the flat index of its highest value (the first
    of equals)."""
    order = np.lexsort((-values, rows))
    found: np.ndarray = order[ptr[:-1]]
    return found


def segment_log_softmax(values: torch.Tensor, rows: torch.Tensor, n: int) -> torch.Tensor:
    """log softmax of ``values`` within each row's segment."""
    top = torch.full((n,), -1e30).scatter_reduce(0, rows, values.detach(), reduce="amax")
    shifted = values - top[rows]
    sums = torch.zeros(n).index_add(0, rows, torch.exp(shifted))
    return shifted - torch.log(sums)[rows]


def evaluate(net: Network, opponent: str, games: int, seed: int) -> float:
    """The score (wins + half the draws, as a share) of ``net``'s highest-logit policy in
    ``games`` games against ``opponent`` dealt from ``seed``, half of them in each seat (seat 1
    has the odd one)."""
    from lordsofwar import core

    size = min(games, 200)
    batch: Any = core.Batch(size, seed=seed, opponent=opponent)
    seats = batch.seats.astype(np.int64)
    quota = {1: (games + 1) // 2, 2: games // 2}
    started = {s: int((seats == s).sum()) for s in (1, 2)}
    live = np.ones(size, bool)  # a slot still counts the game it holds
    for s in (1, 2):  # more slots of a seat than its quota (a small odd run): those wait
        extra = np.flatnonzero(seats == s)[quota[s] :]
        live[extra] = False
        started[s] -= len(extra)
    scores: list[float] = []
    net.eval()
    while live.any():
        _, rows, ids, _, ptr, lg, _ = judge(net, batch)
        actions = ids[first_best(lg, rows, ptr)].astype(np.int32)
        actions[~live] = -1
        batch.step(actions)
        for b in np.flatnonzero(batch.done & live):
            seat = int(seats[b])
            scores.append((float(batch.rewards[b, seat - 1]) + 1) / 2)
            if started[seat] < quota[seat]:
                started[seat] += 1
            else:
                live[b] = False
    net.train()
    return float(np.mean(scores))


@dataclass
class Rollout:
    """The decisions of one iteration, flat over ``steps`` x ``games`` rows (row ``t * games + b``):
    the scaled observations, each legal action's row, id and features (by row), the flat index of
    the action played, its log probability then, and the advantage and return of each row."""

    x: torch.Tensor
    rows: np.ndarray
    ids: torch.Tensor
    feats: torch.Tensor
    played: np.ndarray
    old_logp: torch.Tensor
    advantage: torch.Tensor
    returns: torch.Tensor
    games: int
    won: int


def rollout(net: Network, batch: Any, config: ImproveConfig, rng: np.random.Generator) -> Rollout:
    """``config.steps`` decisions in each game of ``batch``, the learner's actions drawn from the
    tempered policy, and the advantages (GAE with the value head, ``gamma`` 1)."""
    G, T = batch.size, config.steps
    xs, rows_l, ids_l, feats_l, played, logps, vals, rews, dones = [], [], [], [], [], [], [], [], []
    seen = 0
    for t in range(T):
        x, rows, ids, feats, ptr, lg, v = judge(net, batch)
        logp = segment_log_softmax(torch.from_numpy(lg / config.temperature), torch.from_numpy(rows), G).numpy()
        choice = first_best(logp - np.log(-np.log(rng.random(len(logp)))), rows, ptr)  # Gumbel-max: a draw
        batch.step(ids[choice].astype(np.int32))
        xs.append(x)
        rows_l.append(rows + t * G)
        ids_l.append(ids)
        feats_l.append(feats)
        played.append(choice + seen)
        seen += len(ids)
        logps.append(logp[choice])
        vals.append(np.tanh(v))
        rews.append(batch.rewards[np.arange(G), batch.seats.astype(np.int64) - 1].copy())
        dones.append(batch.done.astype(bool).copy())
    last = np.tanh(judge(net, batch)[-1])
    values, rewards, done = np.stack(vals), np.stack(rews), np.stack(dones)
    adv = np.zeros((T, G), np.float32)
    gae = np.zeros(G, np.float32)
    for t in reversed(range(T)):
        following = last if t == T - 1 else values[t + 1]
        going_on = 1.0 - done[t]
        gae = rewards[t] + following * going_on - values[t] + config.lam * going_on * gae
        adv[t] = gae
    returns = (adv + values).reshape(-1)
    flat = adv.reshape(-1)
    flat = (flat - flat.mean()) / (flat.std() + 1e-8)
    return Rollout(
        x=torch.from_numpy(np.concatenate(xs)),
        rows=np.concatenate(rows_l),
        ids=torch.from_numpy(np.concatenate(ids_l)),
        feats=torch.from_numpy(np.concatenate(feats_l)),
        played=np.concatenate(played),
        old_logp=torch.from_numpy(np.concatenate(logps).astype(np.float32)),
        advantage=torch.from_numpy(flat.astype(np.float32)),
        returns=torch.from_numpy(returns.astype(np.float32)),
        games=int(done.sum()),
        won=int((rewards > 0).sum()),
    )


def ppo_losses(net: Network, data: Rollout, rows: np.ndarray, config: ImproveConfig) -> tuple[torch.Tensor, ...]:
    """PPO's clipped policy loss, the value loss and the policy's entropy over the rollout's
    ``rows`` (ascending)."""
    ptr = np.searchsorted(data.rows, np.arange(len(data.played) + 1))
    lengths = ptr[rows + 1] - ptr[rows]
    flat = np.concatenate([np.arange(ptr[r], ptr[r + 1]) for r in rows])
    local = torch.from_numpy(np.repeat(np.arange(len(rows)), lengths))
    lg, v = legal_logits(net, data.x[rows], local, data.ids[flat], data.feats[flat])
    logp_all = segment_log_softmax(lg / config.temperature, local, len(rows))
    logp = logp_all[torch.from_numpy(np.searchsorted(flat, data.played[rows]))]
    ratio = torch.exp(logp - data.old_logp[rows])
    a = data.advantage[rows]
    policy = -torch.min(ratio * a, torch.clamp(ratio, 1 - config.clip, 1 + config.clip) * a).mean()
    value = ((torch.tanh(v) - data.returns[rows]) ** 2).mean()
    entropy = -torch.zeros(len(rows)).index_add(0, local, torch.exp(logp_all) * logp_all).mean()
    return policy, value, entropy


def update(net: Network, opt: torch.optim.Optimizer, data: Rollout, config: ImproveConfig, seed: int) -> np.ndarray:
    """``config.epochs`` passes of minibatches over the rollout; the mean (policy, value, entropy)."""
    n = len(data.played)
    stats = []
    for epoch in range(config.epochs):
        perm = np.random.default_rng([seed, epoch]).permutation(n)
        for s in range(0, n, config.minibatch):
            policy, value, entropy = ppo_losses(net, data, np.sort(perm[s : s + config.minibatch]), config)
            loss = policy + config.value_weight * value - config.entropy * entropy
            opt.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call]
            torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
            opt.step()
            stats.append((policy.item(), value.item(), entropy.item()))
    means: np.ndarray = np.mean(stats, axis=0)
    return means


def run(config: ImproveConfig, out: Path, log: Callable[[str], None] = print) -> dict[str, Any]:
    """A run into ``out`` (see the module text): ``checkpoint.pt`` after every iteration (a run
    there is continued up to ``config.iterations``, with its own other settings), ``best.npz``
    (the network file of the snapshot that scored best in the evaluations), ``last.npz`` (that of
    the last one evaluated) and ``curve.json`` (the scores of the evaluations)."""
    from lordsofwar import core

    out.mkdir(parents=True, exist_ok=True)
    ckpt_path = out / "checkpoint.pt"
    ckpt: dict[str, Any] | None = torch.load(ckpt_path, weights_only=False) if ckpt_path.exists() else None
    if ckpt is not None:
        kept = ImproveConfig(**{**ckpt["config"], "iterations": config.iterations})
        if kept != config:
            changed = sorted(k for k, v in asdict(config).items() if asdict(kept)[k] != v)
            log(f"continuing the run in {out} with its own settings (not the {', '.join(changed)} given)")
        config = kept
    torch.manual_seed(config.seed)
    torch.set_num_threads(config.threads)
    source = Policy(config.network)
    net = network_from_file(source)
    opt = torch.optim.Adam(net.parameters(), lr=config.lr)
    first, spent, curve, best = 0, 0.0, [], -1.0
    if ckpt is not None:
        net.load_state_dict(ckpt["net"])
        opt.load_state_dict(ckpt["opt"])
        first, spent, curve, best = ckpt["iteration"], ckpt["seconds"], ckpt["curve"], ckpt["best"]
    batch: Any = core.Batch(config.games, seed=config.seed + 7919 * first, opponent=config.opponent)
    rng = np.random.default_rng([config.seed, first])
    start = time.perf_counter() - spent
    eval_seed = config.seed + 10**9
    if first == 0:
        best = evaluate(net, config.opponent, config.eval_games, seed=eval_seed)
        curve.append({"iteration": 0, "score": best, "seconds": 0.0})
        _save(net, source, out / "best.npz", config, 0, best)
        log(f"iteration 0: score {best:.3f} against {config.opponent}")
    for it in range(first + 1, config.iterations + 1):
        data = rollout(net, batch, config, rng)
        policy, value, entropy = update(net, opt, data, config, seed=config.seed * 1_000_003 + it)
        elapsed = time.perf_counter() - start
        line = (
            f"iteration {it}: games {data.games}, won {data.won / max(data.games, 1):.3f}, policy {policy:.4f}, "
            f"value {value:.4f}, entropy {entropy:.3f}, {elapsed:.0f} s"
        )
        if it % config.eval_every == 0 or it == config.iterations:
            score = evaluate(net, config.opponent, config.eval_games, seed=eval_seed)
            curve.append({"iteration": it, "score": score, "seconds": round(elapsed, 1)})
            line += f"; score {score:.3f}"
            _save(net, source, out / "last.npz", config, it, score)
            if score > best:
                best = score
                _save(net, source, out / "best.npz", config, it, score)
        if config.snapshot_every and it % config.snapshot_every == 0:
            (out / "snapshots").mkdir(exist_ok=True)
            _save(net, source, out / "snapshots" / f"it-{it:05d}.npz", config, it, float("nan"))
        log(line)
        state = {"net": net.state_dict(), "opt": opt.state_dict(), "iteration": it, "seconds": elapsed}
        partial = ckpt_path.with_suffix(".partial")
        torch.save({**state, "curve": curve, "best": best, "config": asdict(config)}, partial)
        partial.replace(ckpt_path)  # whole or not at all: a stop while writing keeps the last one
        (out / "curve.json").write_text(json.dumps(curve, indent=1))
    return {"best": best, "curve": curve, "config": asdict(config)}


def _save(net: Network, source: Policy, path: Path, config: ImproveConfig, iteration: int, score: float) -> None:
    """``net`` as a network file (:func:`lordsofwar.train.fit.export`), its training that of
    ``source`` with this run's settings, iteration and evaluation score added; written whole or not
    at all."""
    training = {k: v for k, v in (source.meta.get("training") or {}).items() if k != "averaged"}
    settings = {**asdict(config), "network": Path(config.network).name}  # the file's name, not this machine's path
    training["improved"] = {**settings, "iteration": iteration, "score": None if score != score else score}
    partial = path.with_name(path.name + ".partial")
    export(net, partial, training)
    partial.replace(path)

"""Train a small policy for Lords of War with PyTorch on the vector environment, then measure it.

    pip install 'lordsofwar[train]'          # PyTorch (CPU) besides the RL extra
    python examples/train_policy.py --minutes 10 --out policy.npz
    lordsofwar play --opponent policy:policy.npz

Proximal policy optimisation (PPO, clipped) with action masks, against the vector environment's
random opponent (``LordsOfWarVectorEnv(opponent="random")``), with the shaped reward on (units
the opponent lost minus one's own, weight ``--shaping``) besides the result's +1 / -1. The
network is a multilayer perceptron over the observation vector (each number in [0, 1]), with a policy head
(one logit per action id, illegal ids masked out) and a value head.

When the time is up it writes the policy head's layers as NumPy arrays (``--out``; read by
:mod:`lordsofwar.bots.policy`, so playing needs no PyTorch), then plays ``--eval-games`` games
against ``random`` and against ``greedy`` (the policy bot drawing its actions as trained, half
the games as each player) and prints the win rates with 95% intervals. ``--json``
prints one object instead.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

try:
    import torch
    from torch import nn
except ImportError:  # pragma: no cover - the example needs the extra
    raise SystemExit("this example needs PyTorch: pip install 'lordsofwar[train]'") from None

from lordsofwar.bots.policy import save_policy
from lordsofwar.rl.vector import LordsOfWarVectorEnv


class Net(nn.Module):  # type: ignore[misc]
    def __init__(self, observations: int, actions: int, hidden: int):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(observations, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.pi = nn.Linear(hidden, actions)
        self.v = nn.Linear(hidden, 1)
        nn.init.zeros_(self.pi.weight)  # a uniform policy over the legal ids at first
        nn.init.zeros_(self.pi.bias)

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.body(obs)
        logits = self.pi(h).masked_fill(~mask, -1e9)
        return logits, self.v(h).squeeze(-1)

    def layers(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """The policy's dense layers as (weights (inputs, outputs), biases), for NumPy."""
        out = []
        for layer in (self.body[0], self.body[2], self.pi):
            out.append((layer.weight.detach().numpy().T.copy(), layer.bias.detach().numpy().copy()))
        return out


def train(args: argparse.Namespace) -> tuple[Net, dict[str, Any]]:
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    env = LordsOfWarVectorEnv(args.envs, opponent="random", copy=False, shaped_reward=args.shaping)
    obs, _ = env.reset(seed=args.seed)
    size, n_actions = env.config.observation_size, env.config.num_actions
    net = Net(size, n_actions, args.hidden)
    opt = torch.optim.Adam(net.parameters(), lr=args.lr)
    T, N = args.steps, args.envs
    buf_obs = torch.zeros((T, N, size))
    buf_mask = torch.zeros((T, N, n_actions), dtype=torch.bool)
    buf_act = torch.zeros((T, N), dtype=torch.long)
    buf_logp = torch.zeros((T, N))
    buf_val = torch.zeros((T, N))
    buf_rew = torch.zeros((T, N))
    buf_done = torch.zeros((T, N))
    start = time.perf_counter()
    deadline = start + 60 * args.minutes
    updates = samples = 0
    results: list[float] = []
    log: list[dict[str, Any]] = []
    while time.perf_counter() < deadline:
        with torch.no_grad():
            for t in range(T):
                o = torch.from_numpy(obs["observation"]).clone()
                m = torch.from_numpy(obs["action_mask"]).bool()
                logits, value = net(o, m)
                dist = torch.distributions.Categorical(logits=logits)
                a = dist.sample()
                buf_obs[t], buf_mask[t], buf_act[t] = o, m, a
                buf_logp[t], buf_val[t] = dist.log_prob(a), value
                obs, reward, terminated, truncated, _info = env.step(a.numpy().astype(np.int32))
                done = terminated | truncated
                buf_rew[t] = torch.from_numpy(reward.copy())
                buf_done[t] = torch.from_numpy(done.astype(np.float32))
                results += [1.0 if r > 0.5 else 0.0 if r < -0.5 else 0.5 for r in reward[terminated]]
            _, last_value = net(torch.from_numpy(obs["observation"]).clone(), torch.from_numpy(obs["action_mask"]).bool())
        # generalised advantage estimation
        adv = torch.zeros((T, N))
        gae = torch.zeros(N)
        for t in reversed(range(T)):
            next_value = last_value if t == T - 1 else buf_val[t + 1]
            nonterminal = 1.0 - buf_done[t]
            delta = buf_rew[t] + args.gamma * next_value * nonterminal - buf_val[t]
            gae = delta + args.gamma * args.lam * nonterminal * gae
            adv[t] = gae
        ret = adv + buf_val
        b_obs, b_mask = buf_obs.reshape(T * N, size), buf_mask.reshape(T * N, n_actions)
        b_act, b_logp, b_adv, b_ret = buf_act.reshape(-1), buf_logp.reshape(-1), adv.reshape(-1), ret.reshape(-1)
        for _ in range(args.epochs):
            order = torch.randperm(T * N)
            for chunk in order.split((T * N) // args.minibatches):
                logits, value = net(b_obs[chunk], b_mask[chunk])
                dist = torch.distributions.Categorical(logits=logits)
                ratio = torch.exp(dist.log_prob(b_act[chunk]) - b_logp[chunk])
                a = b_adv[chunk]
                a = (a - a.mean()) / (a.std() + 1e-8)
                policy_loss = -torch.min(ratio * a, ratio.clamp(1 - args.clip, 1 + args.clip) * a).mean()
                value_loss = 0.5 * ((value - b_ret[chunk]) ** 2).mean()
                loss = policy_loss + args.value_coef * value_loss - args.entropy * dist.entropy().mean()
                opt.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(net.parameters(), 0.5)
                opt.step()
        updates += 1
        samples += T * N
        if updates % 10 == 0:
            recent = results[-400:]
            entry = {
                "seconds": round(time.perf_counter() - start, 1),
                "samples": samples,
                "games": len(results),
                "score_recent": round(float(np.mean(recent)), 3) if recent else None,
            }
            log.append(entry)
            if not args.json:
                print(json.dumps(entry), file=sys.stderr, flush=True)
    stats = {
        "train_seconds": round(time.perf_counter() - start, 1),
        "updates": updates,
        "samples": samples,
        "training_games": len(results),
        "training_score_last_400": round(float(np.mean(results[-400:])), 3) if results else None,
        "log": log,
    }
    return net, stats


def evaluate(path: Path, opponent: str, games: int, workers: int, seed: int) -> dict[str, Any]:
    from lordsofwar.bots.play import run_games, summarise

    name = f"policy:{path.resolve()}"
    results = run_games([(name, opponent, seed + i) for i in range(games)], workers, None, None)
    summary = summarise(name, opponent, results)
    return {
        "opponent": opponent,
        "games": games,
        "wins": summary["wins"],
        "draws": summary["draws"],
        "losses": summary["losses"],
        "score": round(summary["score"], 4),
        "interval": [round(x, 4) for x in summary["interval"]],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0, help="training time")
    parser.add_argument("--out", type=Path, default=Path("policy.npz"))
    parser.add_argument("--envs", type=int, default=128)
    parser.add_argument("--steps", type=int, default=32, help="steps per environment per update")
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--gamma", type=float, default=0.99)
    parser.add_argument("--lam", type=float, default=0.95)
    parser.add_argument("--clip", type=float, default=0.2)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--minibatches", type=int, default=4)
    parser.add_argument("--value-coef", type=float, default=0.5)
    parser.add_argument("--entropy", type=float, default=0.01)
    parser.add_argument("--shaping", type=float, default=0.1, help="weight of the shaped reward")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1, help="PyTorch threads")
    parser.add_argument("--eval-games", type=int, default=200, help="games against random and against greedy (0: none)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="processes for the evaluation")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)

    net, stats = train(args)
    env = LordsOfWarVectorEnv(1)
    meta = {
        "mat": env.config.mat,
        "frame": list(env.config.frame),
        "observation_size": env.config.observation_size,
        "num_actions": env.config.num_actions,
        "trained": {k: v for k, v in stats.items() if k != "log"},
    }
    save_policy(args.out, net.layers(), meta)
    figures: dict[str, Any] = {**stats, "policy": str(args.out), "evaluation": []}
    if args.eval_games:
        for opponent in ("random", "greedy"):
            figures["evaluation"].append(evaluate(args.out, opponent, args.eval_games, args.workers, 1_000_000))
    if args.json:
        print(json.dumps(figures))
    else:
        print(f"trained {stats['train_seconds']} s: {stats['updates']} updates, {stats['samples']:,} decisions, "
              f"{stats['training_games']:,} games; written to {args.out}")
        for e in figures["evaluation"]:
            lo, hi = e["interval"]
            print(f"against {e['opponent']}: {e['wins']} won, {e['draws']} drawn, {e['losses']} lost of {e['games']}: "
                  f"{100 * e['score']:.1f}% (95% interval {100 * lo:.1f}% to {100 * hi:.1f}%)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

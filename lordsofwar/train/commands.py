"""``lordsofwar train``: generate self-play data, fit the network, export it (docs/bots.md,
"The network"). PyTorch is imported only by ``fit`` and ``export``; without it they say which
extra to install."""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

DEFAULT_DATA = "train-data"
DEFAULT_RUN = "train-run"


def _bad(message: str) -> click.ClickException:
    from lordsofwar.cli import CliError

    return CliError(message)


def _need_torch() -> None:
    if importlib.util.find_spec("torch") is None:
        raise _bad("training needs PyTorch: pip install 'lordsofwar[train]'")


def _need_core() -> None:
    from lordsofwar import core

    if core.IMPLEMENTATION != "native":
        raise _bad(f"self-play needs the compiled core: {core.FALLBACK_REASON}")


@click.group("train")
def train_group() -> None:
    """Train the network the scout level plays: self-play data, fitting, export.

    'lordsofwar train all' does the three in turn and, run again, goes on where it stopped.
    """


_games = click.option(
    "--games",
    type=click.IntRange(1, 10_000_000),
    default=1350,
    show_default=True,
    help="Self-play games in all (a run already there is continued up to this many).",
)
_seed = click.option(
    "--seed",
    type=click.IntRange(0, 2**62),
    default=0,
    show_default=True,
    help="The run's seed: game i is dealt and searched from derivations of seed + i.",
)
_iterations = click.option(
    "--iterations",
    type=click.IntRange(1, 1_000_000),
    default=1200,
    show_default=True,
    help="The teacher's iterations a decision (the elite level's settings otherwise).",
)
_data = click.option(
    "--data", default=DEFAULT_DATA, show_default=True, metavar="DIR", help="The directory of self-play shards."
)
_fit_data = click.option(
    "--data",
    multiple=True,
    default=[DEFAULT_DATA],
    show_default=True,
    metavar="DIR",
    help="A directory of self-play shards (repeat the option to train on several).",
)
_action_head = click.option(
    "--action-head/--no-action-head",
    default=False,
    show_default=True,
    help="Add the action head over the greedy bot's numbers (the network scout plays; shards of version 2).",
)
_trunk = click.option(
    "--trunk",
    default="512,256",
    show_default=True,
    metavar="N,N,...",
    help="The hidden layers' sizes.",
)
_run = click.option(
    "--run",
    "run_dir",
    default=DEFAULT_RUN,
    show_default=True,
    metavar="DIR",
    help="The training run's directory (checkpoint, log, snapshots).",
)
_steps = click.option(
    "--steps",
    type=click.IntRange(1, 100_000_000),
    default=3000,
    show_default=True,
    help="Training steps (minibatches) in all.",
)
_threads = click.option(
    "--threads",
    type=click.IntRange(1, 256),
    default=1,
    show_default=True,
    help="PyTorch's threads (on a busy 2-core machine two were 6 times slower than one).",
)
_snapshot = click.option(
    "--snapshot-every",
    type=click.IntRange(0, 100_000_000),
    default=1000,
    show_default=True,
    help="Export the network every this many steps into DIR/snapshots (0: never).",
)
_lr = click.option(
    "--lr", type=click.FloatRange(min=0, min_open=True), default=5e-4, show_default=True, help="Adam's learning rate."
)
_value_weight = click.option(
    "--value-weight",
    type=click.FloatRange(min=0),
    default=0.25,
    show_default=True,
    help="The value loss's weight beside the policy's.",
)
_weight_decay = click.option(
    "--weight-decay", type=click.FloatRange(min=0), default=1e-4, show_default=True, help="Adam's weight decay (L2)."
)
_out = click.option(
    "--out",
    default="net.npz",
    show_default=True,
    metavar="FILE",
    help="The network file to write (version 3, or 4 with an action head; read by policy:FILE).",
)


_data_opponent = click.option(
    "--opponent",
    "data_opponent",
    type=click.Choice(["self", "greedy"]),
    default="self",
    show_default=True,
    help="Whom the search plays: itself (both sides recorded) or the greedy bot (its own side recorded).",
)


def _generate(
    data: str,
    games: int,
    seed: int,
    iterations: int,
    opponent: str = "self",
    learner: str | None = None,
    teacher_share: float = 0.5,
) -> None:
    _need_core()
    from lordsofwar.bots.policy import PolicyError
    from lordsofwar.train.selfplay import generate

    try:
        n = generate(
            data,
            games,
            seed,
            iterations,
            progress=lambda s: click.echo(s, err=True),
            opponent=opponent,
            learner=learner,
            teacher_share=teacher_share,
        )
    except (ValueError, PolicyError) as exc:
        raise _bad(str(exc)) from None
    click.echo(f"{n:,} new decisions in {data}")


def _trunk_sizes(text: str) -> tuple[int, ...]:
    try:
        sizes = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise _bad(f"--trunk: sizes separated by commas, got {text!r}") from None
    if not sizes or not all(1 <= n <= 8192 for n in sizes):
        raise _bad(f"--trunk: one to many sizes from 1 to 8192, got {text!r}")
    return sizes


def _fit(
    data: Sequence[str],
    run_dir: str,
    steps: int,
    resume: bool,
    threads: int,
    snapshot_every: int,
    lr: float = 5e-4,
    value_weight: float = 0.25,
    weight_decay: float = 1e-4,
    action_head: bool = False,
    trunk: str = "512,256",
) -> Any:
    _need_torch()
    from lordsofwar.train.fit import FitConfig, fit

    config = FitConfig(
        steps=steps,
        snapshot_every=snapshot_every,
        lr=lr,
        value_weight=value_weight,
        weight_decay=weight_decay,
        action_head=action_head,
        trunk=_trunk_sizes(trunk),
    )
    try:
        return fit(list(data), run_dir, config, resume=resume, threads=threads, say=lambda s: click.echo(s, err=True))
    except (ValueError, FileNotFoundError, FileExistsError) as exc:
        raise _bad(str(exc)) from None


def _export(run_dir: str, out: str) -> None:
    _need_torch()
    from lordsofwar.train.fit import export, load_checkpoint

    if not (Path(run_dir) / "checkpoint.pt").exists():
        raise _bad(f"no checkpoint in {run_dir!r}: fit first")
    net, facts = load_checkpoint(run_dir)
    export(net, out, facts)
    click.echo(f"wrote {out} (step {facts['steps']}, {facts['seconds']:.0f} s of training)")


@train_group.command("generate")
@_data
@_games
@_seed
@_iterations
@_data_opponent
@click.option(
    "--learner",
    default=None,
    metavar="FILE",
    help="A network whose choices the recorded sides play at some decisions, the search labelling each (DAgger).",
)
@click.option(
    "--teacher-share",
    type=click.FloatRange(0, 1, max_open=True),
    default=0.5,
    show_default=True,
    help="With --learner: the share of decisions (after the first 12) where the search's choice is played.",
)
def generate_command(
    data: str, games: int, seed: int, iterations: int, data_opponent: str, learner: str | None, teacher_share: float
) -> None:
    """Play self-play games of the search into DIR, a shard every 10 games (continues a run there)."""
    _generate(data, games, seed, iterations, data_opponent, learner, teacher_share)


@train_group.command("fit")
@_fit_data
@_run
@_steps
@click.option("--resume", is_flag=True, help="Continue the run's checkpoint (its settings and data).")
@_threads
@_snapshot
@_lr
@_value_weight
@_weight_decay
@_action_head
@_trunk
def fit_command(
    data: tuple[str, ...],
    run_dir: str,
    steps: int,
    resume: bool,
    threads: int,
    snapshot_every: int,
    lr: float,
    value_weight: float,
    weight_decay: float,
    action_head: bool,
    trunk: str,
) -> None:
    """Fit the network to the shards in DIR, checkpointing into the run's directory (a resumed
    run keeps its settings but --steps)."""
    _fit(data, run_dir, steps, resume, threads, snapshot_every, lr, value_weight, weight_decay, action_head, trunk)


@train_group.command("export")
@_run
@_out
def export_command(run_dir: str, out: str) -> None:
    """Write the run's network (its last checkpoint) as a network file (version 3, or 4 with an action head)."""
    _export(run_dir, out)


@train_group.command("all")
@_data
@_run
@_games
@_seed
@_iterations
@_steps
@_threads
@_snapshot
@_lr
@_value_weight
@_weight_decay
@_action_head
@_trunk
@_data_opponent
@_out
def all_command(
    data: str,
    run_dir: str,
    games: int,
    seed: int,
    iterations: int,
    steps: int,
    threads: int,
    snapshot_every: int,
    lr: float,
    value_weight: float,
    weight_decay: float,
    action_head: bool,
    trunk: str,
    data_opponent: str,
    out: str,
) -> None:
    """Generate, fit and export in turn; run again after a stop, it continues each step."""
    _need_torch()
    _generate(data, games, seed, iterations, data_opponent)
    resume = (Path(run_dir) / "checkpoint.pt").exists()
    _fit([data], run_dir, steps, resume, threads, snapshot_every, lr, value_weight, weight_decay, action_head, trunk)
    _export(run_dir, out)


@train_group.command("curve")
@_run
@click.option("--opponent", default="greedy", show_default=True, help="The bot the snapshots play.")
@click.option("--games", type=click.IntRange(1, 100_000), default=100, show_default=True, help="Games per snapshot.")
@click.option("--every", type=click.IntRange(1, 1000), default=1, show_default=True, help="Every this many snapshots.")
@click.option("--plot", "plot_file", default=None, metavar="FILE", help="Draw the curve into this PNG (matplotlib).")
def curve_command(run_dir: str, opponent: str, games: int, every: int, plot_file: str | None) -> None:
    """The strength of the run's snapshots (their policy alone) against a bot, by training time
    (kept in DIR/curve-OPPONENT.json; the plot draws every opponent measured so)."""
    _need_core()
    from lordsofwar.bots import make_bot
    from lordsofwar.train.evaluate import curve, plot

    try:
        make_bot(opponent, 0)
        points = curve(run_dir, opponent, games, every=every, say=lambda s: click.echo(s, err=True))
    except (ValueError, FileNotFoundError) as exc:
        raise _bad(str(exc)) from None
    for p in points:
        click.echo(
            f"{p['steps']:>7} steps {p['seconds'] / 60:6.1f} min: {p['score']:.1%} "
            f"({p['won']}-{p['drawn']}-{p['lost']}) against {opponent}"
        )
    if plot_file:
        if importlib.util.find_spec("matplotlib") is None:
            raise _bad("the plot needs matplotlib: pip install 'lordsofwar[dev]'")
        curves = [json.loads(f.read_text()) for f in sorted(Path(run_dir).glob("curve-*.json"))]
        plot([c for c in curves if c], plot_file, "the network's policy alone, by training time")
        click.echo(f"wrote {plot_file}")


@train_group.command("improve")
@click.option(
    "--network",
    default=None,
    metavar="FILE",
    help="The network to start from (version 4, with an action head) [default: the shipped scout's].",
)
@click.option(
    "--run",
    "run_dir",
    default="improve-run",
    show_default=True,
    metavar="DIR",
    help="The run's directory (checkpoint, best.npz, last.npz, curve.json); a run there is continued.",
)
@click.option(
    "--opponent",
    default="greedy",
    show_default=True,
    help="The bot it plays, inside the core's batch: random, greedy or a search level.",
)
@click.option(
    "--iterations", type=click.IntRange(1, 1_000_000), default=400, show_default=True, help="Iterations in all."
)
@click.option("--games", type=click.IntRange(1, 4096), default=128, show_default=True, help="Games played at once.")
@click.option(
    "--steps", type=click.IntRange(1, 4096), default=32, show_default=True, help="Decisions per game an iteration."
)
@click.option(
    "--lr", type=click.FloatRange(min=0, min_open=True), default=3e-5, show_default=True, help="Adam's learning rate."
)
@click.option(
    "--temperature",
    type=click.FloatRange(min=0, min_open=True),
    default=0.25,
    show_default=True,
    help="The policy trained is the softmax of the logits / this.",
)
@click.option(
    "--eval-every", type=click.IntRange(1, 1_000_000), default=5, show_default=True, help="Evaluate every this many."
)
@click.option(
    "--eval-games", type=click.IntRange(2, 100_000), default=400, show_default=True, help="Games of an evaluation."
)
@_seed
@_threads
@click.option(
    "--snapshot-every",
    type=click.IntRange(0, 1_000_000),
    default=50,
    show_default=True,
    help="Write the network every this many iterations into DIR/snapshots (0: never).",
)
@click.option("--out", default=None, metavar="FILE", help="Copy a snapshot's network file here at the end.")
@click.option(
    "--pick",
    type=click.Choice(["best", "last"]),
    default="best",
    show_default=True,
    help="Which snapshot --out copies: the best scoring of the evaluations (optimistic: chosen on them) or the last.",
)
@click.option("--plot", "plot_file", default=None, metavar="FILE", help="Draw the evaluations' scores into this PNG.")
def improve_command(
    network: str | None,
    run_dir: str,
    opponent: str,
    iterations: int,
    games: int,
    steps: int,
    lr: float,
    temperature: float,
    eval_every: int,
    eval_games: int,
    seed: int,
    threads: int,
    snapshot_every: int,
    out: str | None,
    pick: str,
    plot_file: str | None,
) -> None:
    """Improve a network by playing against a bot (PPO; docs/bots.md, "Improving scout by playing"):
    the best snapshot by its evaluations is kept in DIR/best.npz, the last evaluated in DIR/last.npz."""
    _need_torch()
    _need_core()
    import shutil

    from lordsofwar.bots.policy import SCOUT, PolicyError
    from lordsofwar.core.batching import OPPONENTS
    from lordsofwar.train.improve import ImproveConfig, run

    if opponent not in OPPONENTS:
        raise _bad(f"opponent {opponent!r}: one of {', '.join(OPPONENTS)}")
    config = ImproveConfig(
        network=str(network or SCOUT),
        opponent=opponent,
        games=games,
        steps=steps,
        iterations=iterations,
        lr=lr,
        temperature=temperature,
        eval_every=eval_every,
        eval_games=eval_games,
        seed=seed,
        threads=threads,
        snapshot_every=snapshot_every,
    )
    try:
        found = run(config, Path(run_dir), log=lambda s: click.echo(s, err=True))
    except (PolicyError, ValueError, OSError) as exc:
        raise _bad(str(exc)) from None
    click.echo(f"best score {found['best']:.1%} against {found['config']['opponent']}: {Path(run_dir) / 'best.npz'}")
    if out:
        shutil.copyfile(Path(run_dir) / f"{pick}.npz", out)
        click.echo(f"wrote {out}")
    if plot_file:
        _improve_plot(found["curve"], found["config"], plot_file)
        click.echo(f"wrote {plot_file}")


def _improve_plot(curve: list[dict[str, Any]], config: dict[str, Any], plot_file: str) -> None:
    """The evaluations' scores by training time (at most 40 points, evenly spread), each with its
    95% Wilson interval."""
    if importlib.util.find_spec("matplotlib") is None:
        raise _bad("the plot needs matplotlib: pip install 'lordsofwar[dev]'")
    from lordsofwar.bots.play import wilson
    from lordsofwar.train.evaluate import plot

    step = max(1, (len(curve) + 39) // 40)
    games = int(config["eval_games"])
    points = []
    for p in curve[::step]:
        low, high = wilson(p["score"] * games, games)
        points.append({**p, "opponent": config["opponent"], "interval": [low, high]})
    plot([points], plot_file, "the network's policy alone, improved by playing")


@train_group.command("average")
@click.argument("files", nargs=-1, required=True, metavar="FILE...")
@click.option("--out", required=True, metavar="FILE", help="The network file to write.")
def average_command(files: tuple[str, ...], out: str) -> None:
    """Write the mean of the weights of network files of one shape (snapshots of one run)."""
    from lordsofwar.bots.policy import PolicyError, save_network
    from lordsofwar.train.average import average

    try:
        (policy, value, action), meta = average(list(files))
    except (PolicyError, ValueError, OSError) as exc:
        raise _bad(str(exc)) from None
    save_network(out, policy, value, meta, action)
    click.echo(f"wrote {out}: the mean of {len(files)} networks")

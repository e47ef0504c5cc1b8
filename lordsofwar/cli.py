"""The ``lordsofwar`` command (notation.md section 6).

Every command reads and writes the project's notation; the rules themselves live in
:mod:`lordsofwar.rules` and are only called from here. Bad input of any kind ends the command
with exit status 2 and one line on stderr (``error: ...``), never a traceback: rules errors and
file errors are turned into that line in one place, :func:`_one_line_errors`, which the
command group wraps around parsing and running every command.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import random
import secrets
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, TypeVar

import click

from lordsofwar import __version__, decks
from lordsofwar.bots import BOTS, SEARCH_LEVELS, TOP
from lordsofwar.rules.cards import DECK_SIZE, Card, CardSet, load_card_set
from lordsofwar.rules.errors import DeckError, LordsOfWarError
from lordsofwar.rules.notation import (
    GameRecord,
    deal,
    dumps,
    loads,
    parse_position,
    parse_record,
    position_to_json,
    replay,
    view_json,
)
from lordsofwar.rules.state import LENGTHS, Event, Position, Variant

F = TypeVar("F", bound=Callable[..., Any])

EXIT_BAD_INPUT = 2
"""Exit status for every kind of bad input, as for click's own usage errors."""

MAX_SEED = 2**63 - 1
"""Largest seed a game record accepts."""

BOT_CHOICES = list(BOTS)
"""The bots a command can name, weakest first."""


class BotName(click.ParamType[str, Any]):
    """A bot's name (:data:`BOT_CHOICES`, and ``extra``), or ``policy:FILE``: a trained policy
    (docs/rl.md), read at once so that a bad file is refused before anything starts."""

    name = "bot"

    def __init__(self, extra: Sequence[str] = ()):
        self.choices = [*BOT_CHOICES, *extra]

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        return "[" + "|".join(self.choices) + "|policy:FILE|python:MODULE:FACTORY]"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        text = str(value)
        if text in self.choices:
            return text
        if text.startswith("policy:"):
            from lordsofwar.bots.policy import Policy, PolicyError

            path = Path(text[len("policy:") :]).expanduser()
            try:
                Policy(path)
            except PolicyError as exc:
                self.fail(str(exc), param, ctx)
            return f"policy:{path.resolve()}"
        if text.startswith("python:"):
            return _python_bot_name(text, lambda message: self.fail(message, param, ctx))
        self.fail(f"{text!r} is not one of {', '.join(self.choices)}, policy:FILE or python:MODULE:FACTORY", param, ctx)


def _python_bot_name(text: str, fail: Callable[[str], Any]) -> str:
    """``python:MODULE:FACTORY`` (docs/bots.md, "Rating your own agent") with a ``.py`` file's
    path made absolute, once one bot was made from it (so that a bad one is refused before
    anything starts)."""
    from lordsofwar.bots import make_bot

    module, _, attr = text[len("python:") :].rpartition(":")
    if module.endswith(".py"):
        text = f"python:{Path(module).expanduser().resolve()}:{attr}"
    try:
        make_bot(text, 0)
    except ValueError as exc:
        fail(str(exc))
    return text


# --- errors: one line, exit status 2 -------------------------------------------------------------


class CliError(click.ClickException):
    """Bad input: shown as one ``error: ...`` line on stderr, exit status 2."""

    exit_code = EXIT_BAD_INPUT

    def show(self, file: IO[Any] | None = None) -> None:
        click.echo(f"error: {_one_line(self.format_message())}", err=True, file=file)


class InternalError(CliError):
    """A fault of the program itself: one line asking for a report, exit status 1."""

    exit_code = 1


def _one_line(text: str) -> str:
    return " ".join(text.split())


@contextlib.contextmanager
def _one_line_errors() -> Iterator[None]:
    """Turn rules errors, file errors and click's usage errors into one :class:`CliError` line."""
    try:
        yield
    except (CliError, click.exceptions.NoArgsIsHelpError):
        raise  # already one line; or a bare ``lordsofwar``, which shows the help
    except click.UsageError as exc:
        hint = f" (see '{exc.ctx.command_path} --help')" if exc.ctx is not None else ""
        raise CliError(f"{_one_line(exc.format_message())}{hint}") from None
    except LordsOfWarError as exc:
        raise CliError(str(exc)) from None
    except BrokenPipeError:
        raise  # click handles a closed stdout itself
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        raise CliError(f"{where}{exc.strerror or exc}") from None
    except (click.exceptions.Exit, click.exceptions.Abort, KeyboardInterrupt):
        raise
    except Exception as exc:
        if os.environ.get("LOW_DEBUG"):
            raise
        raise InternalError(
            f"internal error ({type(exc).__name__}: {_one_line(str(exc))}); please report it "
            "with the command and its input (LOW_DEBUG=1 shows the traceback)"
        ) from None


class _Group(click.Group):
    """The command group; it runs every command inside :func:`_one_line_errors`."""

    def make_context(
        self, info_name: str | None, args: list[str], parent: click.Context | None = None, **extra: Any
    ) -> click.Context:
        with _one_line_errors():
            return super().make_context(info_name, args, parent, **extra)

    def invoke(self, ctx: click.Context) -> Any:
        with _one_line_errors():
            return super().invoke(ctx)


# --- shared state: the card set ------------------------------------------------------------------


@dataclass
class _Session:
    """What the group and the command share: the card packs given with ``--cards``."""

    packs: list[str] = field(default_factory=list)
    loaded: CardSet | None = None

    def cards(self) -> CardSet:
        if self.loaded is None:
            self.loaded = load_card_set(self.packs)
        return self.loaded


def _remember_packs(ctx: click.Context, _param: click.Parameter, value: Sequence[str]) -> None:
    ctx.ensure_object(_Session).packs.extend(value)


def _cards_option(f: F) -> F:
    return click.option(
        "--cards",
        "packs",
        multiple=True,
        metavar="PACK.json",
        expose_value=False,
        callback=_remember_packs,
        help="Load an extra card pack (repeatable).",
    )(f)


def _card_set() -> CardSet:
    return click.get_current_context().ensure_object(_Session).cards()


# --- reading and writing files ---------------------------------------------------------------------


def _read_text(source: str, what: str, max_bytes: int | None = None) -> str:
    """The text of a file, or of stdin for ``-``; unreadable input is a one-line error. With
    ``max_bytes``, no more than that is read: a longer input is refused."""
    try:
        if source == "-":
            stdin = sys.stdin
            if hasattr(stdin, "buffer"):
                data = stdin.buffer.read(-1 if max_bytes is None else max_bytes + 1)
            else:
                data = stdin.read().encode("utf-8", "surrogateescape")
        else:
            with Path(source).open("rb") as f:
                data = f.read(-1 if max_bytes is None else max_bytes + 1)
        if max_bytes is not None and len(data) > max_bytes:
            raise CliError(f"{_label(source, what)}: longer than {max_bytes} bytes")
        return data.decode("utf-8-sig")  # tolerate the byte order mark some editors write
    except UnicodeDecodeError:
        raise CliError(f"{_label(source, what)}: not UTF-8 text") from None
    except OSError as exc:
        raise CliError(f"cannot read {what} {source}: {exc.strerror or exc}") from None


def _label(source: str, what: str) -> str:
    return what if source == "-" else source


def _write_json(path: str, doc: Any, what: str) -> None:
    try:
        Path(path).write_text(dumps(doc) + "\n", encoding="utf-8")
    except OSError as exc:
        raise CliError(f"cannot write {what} {path}: {exc.strerror or exc}") from None


def _read_position(source: str) -> Position:
    text = _read_text(source, "position")
    return parse_position(loads(text, _label(source, "position")), _card_set())


def _print_json(doc: Any) -> None:
    click.echo(dumps(doc))


# --- option values -----------------------------------------------------------------------------------


def _comma_list(value: str, count: int | None, example: str) -> list[str]:
    items = [item.strip() for item in value.split(",")]
    if any(not item for item in items) or (count is not None and len(items) != count):
        need = f"{count} values" if count is not None else "values"
        raise click.BadParameter(f"expected {need} separated by commas, e.g. {example}; got {value!r}")
    return items


def _armies_value(_ctx: click.Context, _param: click.Parameter, value: str) -> tuple[str, str]:
    a, b = _comma_list(value, 2, "orcs,dwarves or random,random")
    return a, b


def _names_value(_ctx: click.Context, _param: click.Parameter, value: str) -> tuple[str, str]:
    a, b = _comma_list(value, 2, "alice,bob")
    for name in (a, b):
        if len(name) > 100:
            raise click.BadParameter(f"a name holds at most 100 characters, {name[:20]!r}... is longer")
        try:
            name.encode("utf-8")
        except UnicodeEncodeError:
            raise click.BadParameter(f"{ascii(name)} is not valid text in this terminal's encoding") from None
    return a, b


def _allowed_value(_ctx: click.Context, _param: click.Parameter, value: str | None) -> list[str] | None:
    return None if value is None else _comma_list(value, None, "orcs,elves")


def _variant_options(f: F) -> F:
    """The variant options of ``new`` and ``play`` (clarifications 8.1, 8.3, 9.1)."""
    d = Variant()
    options = [
        click.option(
            "--rules",
            type=click.Choice(["intermediate", "basic"]),
            default=d.rules,
            show_default=True,
            help="basic: no berserker advance, no cavalry recall.",
        ),
        click.option(
            "--hands",
            type=click.Choice(["hidden", "visible"]),
            default=d.hands,
            show_default=True,
            help="Whether hands are open.",
        ),
        click.option(
            "--mat",
            "mat_kind",
            type=click.Choice(["bordered", "unbordered"]),
            default=d.mat,
            show_default=True,
            help="unbordered: units may stand off the printed mat.",
        ),
        click.option(
            "--length",
            type=click.Choice(list(LENGTHS)),
            default=None,
            help="Standard game length: units / command units to win [default: 20/4].",
        ),
        click.option(
            "--units-to-win",
            type=click.IntRange(1, 1000),
            default=None,
            help="Units to eliminate to win (overrides --length).",
        ),
        click.option(
            "--commands-to-win",
            type=click.IntRange(1, 1000),
            default=None,
            help="Command units to eliminate to win (overrides --length).",
        ),
        click.option(
            "--no-progress-turns",
            type=click.IntRange(0, 100_000),
            default=d.no_progress_turns,
            show_default=True,
            help="Draw after this many turns without an elimination; 0 = off.",
        ),
    ]
    for option in reversed(options):
        f = option(f)
    return f


def _setup_options(f: F) -> F:
    """The options of ``new`` and ``play`` that set up a game: armies or decks, seed, names, variant."""
    options = [
        click.option(
            "--armies",
            default="random,random",
            show_default=True,
            callback=_armies_value,
            metavar="A,B",
            help="The two armies' standard decks; 'random' picks one from the seed.",
        ),
        click.option(
            "--deck1",
            type=str,
            default=None,
            metavar="FILE",
            help="Player 1's custom deck: one card id a line ('#' comments), or a JSON list of ids.",
        ),
        click.option("--deck2", type=str, default=None, metavar="FILE", help="Player 2's custom deck."),
        click.option(
            "--allowed-armies",
            default=None,
            callback=_allowed_value,
            metavar="A,B,...",
            help="Armies the decks may draw from [default: any].",
        ),
        click.option(
            "--seed",
            type=click.IntRange(0, MAX_SEED),
            default=None,
            metavar="N",
            help="Seed of the shuffle (and of random armies) [default: a random one].",
        ),
        click.option(
            "--names",
            default="player 1,player 2",
            show_default=True,
            callback=_names_value,
            metavar="NAME1,NAME2",
            help="The players' names.",
        ),
    ]
    f = _variant_options(f)
    for option in reversed(options):
        f = option(f)
    return f


def _variant(
    rules: str,
    hands: str,
    mat_kind: str,
    length: str | None,
    units_to_win: int | None,
    commands_to_win: int | None,
    no_progress_turns: int,
) -> Variant:
    units, commands = LENGTHS[length] if length else (Variant().units_to_win, Variant().commands_to_win)
    return Variant(
        rules=rules,  # type: ignore[arg-type]
        hands=hands,  # type: ignore[arg-type]
        mat=mat_kind,  # type: ignore[arg-type]
        units_to_win=units if units_to_win is None else units_to_win,
        commands_to_win=commands if commands_to_win is None else commands_to_win,
        no_progress_turns=no_progress_turns,
    )


# --- decks -----------------------------------------------------------------------------------------


def read_deck_file(path: str, cards: CardSet) -> list[str]:
    """A custom deck file (docs/decks.md): one card id a line (``#`` starts a comment), or JSON.

    Errors name the file and the line; the deck itself is not checked here.
    """
    return decks.parse(_read_text(path, "deck", 4 * decks.FILE_LIMIT), cards, _label(path, "deck")).cards


def _choose_decks(
    cards: CardSet,
    armies: tuple[str, str],
    deck_files: tuple[str | None, str | None],
    allowed: list[str] | None,
    seed: int,
) -> list[list[str]]:
    """Both players' decks (clarifications 8.4), each checked; ``random`` armies come from the seed.

    A random army is one with a full standard deck, among the allowed armies, and differs from
    the other player's army where possible.
    """
    if allowed is not None:
        for army in allowed:
            cards.army(army)  # an unknown army is an error
    pool = [a for a in cards.armies if len(cards.army(a)) == DECK_SIZE and (allowed is None or a in allowed)]
    rng = random.Random(f"lordsofwar armies {seed}")
    chosen: list[str | None] = [None, None]
    for i in (0, 1):
        if armies[i] != "random":
            cards.army(armies[i])  # named armies must exist even when a deck file replaces one
            if deck_files[i] is None:
                chosen[i] = armies[i]
    for i in (0, 1):
        if deck_files[i] is None and armies[i] == "random":
            if not pool:
                raise DeckError("no army with a full standard deck is allowed, so none can be picked at random")
            fresh = [a for a in pool if a not in chosen]
            chosen[i] = rng.choice(fresh or pool)
    decks: list[list[str]] = []
    for i in (0, 1):
        deck_file = deck_files[i]
        if deck_file is not None:
            deck = read_deck_file(deck_file, cards)
            source = deck_file
        else:
            picked = chosen[i]
            assert picked is not None
            deck = cards.standard_deck(picked)
            source = f"army {picked}"
        try:
            cards.validate_deck(deck, allowed_armies=allowed)
        except DeckError as exc:
            raise DeckError(f"player {i + 1}'s deck ({source}): {exc}") from None
        decks.append(deck)
    return decks


@dataclass(frozen=True)
class _Setup:
    """A game as ``new`` deals it and ``play`` starts it."""

    decks: list[list[str]]
    seed: int
    variant: Variant
    names: tuple[str, str]


def _setup(options: dict[str, Any]) -> _Setup:
    cards = _card_set()
    seed = options["seed"] if options["seed"] is not None else secrets.randbelow(2**32)
    variant = _variant(
        options["rules"],
        options["hands"],
        options["mat_kind"],
        options["length"],
        options["units_to_win"],
        options["commands_to_win"],
        options["no_progress_turns"],
    )
    decks = _choose_decks(
        cards, options["armies"], (options["deck1"], options["deck2"]), options["allowed_armies"], seed
    )
    return _Setup(decks, seed, variant, options["names"])


# --- the commands -------------------------------------------------------------------------------------


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="lordsofwar")
@_cards_option
def cli() -> None:
    """Lords of War: play, check and convert positions and game records.

    POSITION and GAME arguments are JSON files in the project's notation, or '-' for stdin.
    """


@cli.command("cards")
@click.option("--army", default=None, help="Only this army's cards.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON array of card facts.")
@_cards_option
def cards_command(army: str | None, as_json: bool) -> None:
    """List the cards and their facts."""
    cards = _card_set()
    armies = [army] if army is not None else cards.armies
    listed = [card for a in armies for card in cards.army(a)]
    if as_json:
        _print_json([card.facts() for card in listed])
        return
    _print_card_table(listed, army)


def _print_card_table(cards: list[Card], army: str | None) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    table = Table(title=f"{army or 'all armies'}: {len(cards)} cards")
    for header in ("id", "name", "rank", "class", "defence", "attacks", "ranged", "moves"):
        table.add_column(
            header,
            justify="right" if header == "defence" else "left",
            no_wrap=header in ("id", "rank", "class", "defence"),
            min_width=4 if header == "moves" else None,
        )
    for card in cards:
        facts = card.facts()
        attacks = " ".join(f"{d}{v}" for d, v in facts["attacks"].items())
        ranged = "" if card.ranged is None else f"{card.ranged.damage} dmg, {len(card.ranged.targets)} squares"
        table.add_row(
            card.id, escape(card.name), card.rank, card.cls, str(card.defence), attacks, ranged, " ".join(card.moves)
        )
    console = Console()
    if not console.is_terminal:
        console = Console(width=max(console.width, 120))
    console.print(table)


@cli.command("new")
@_setup_options
@click.option("--record", default=None, metavar="FILE", help="Also write a game record (no actions yet) to FILE.")
@_cards_option
def new_command(record: str | None, **options: Any) -> None:
    """Deal a new game and print its opening position."""
    setup = _setup(options)
    pos = deal(setup.decks, setup.seed, setup.variant, _card_set())
    if record is not None:
        doc = GameRecord(setup.decks, setup.seed, setup.variant, list(setup.names)).to_json()
        _write_json(record, doc, "game record")
    _print_json(position_to_json(pos))


@cli.command("legal")
@click.argument("position", metavar="POSITION")
@_cards_option
def legal_command(position: str) -> None:
    """Print the legal actions of the player who must act now, one a line."""
    pos = _read_position(position)
    for text in sorted({str(action) for action in pos.legal_actions()}):
        click.echo(text)


@cli.command("apply")
@click.argument("position", metavar="POSITION")
@click.argument("actions", metavar="ACTION [ACTION ...]", nargs=-1, required=True)
@_cards_option
def apply_command(position: str, actions: tuple[str, ...]) -> None:
    """Apply actions in order; print the resulting position with its events.

    An illegal action prints one line naming the action and the rule, and exits with status 2.
    """
    pos = _read_position(position)
    events: list[Event] = []
    for text in actions:
        events.extend(pos.push(text))
    _print_json(position_to_json(pos, events))


@cli.command("replay")
@click.argument("game", metavar="GAME")
@click.option("--all", "every", is_flag=True, help="Print a JSON list of every position, the opening first.")
@_cards_option
def replay_command(game: str, every: bool) -> None:
    """Check a game record and print its final position."""
    cards = _card_set()
    text = _read_text(game, "game record")
    positions = replay(parse_record(loads(text, _label(game, "game")), cards), cards)
    if every:
        _print_json([position_to_json(p) for p in positions])
    else:
        _print_json(position_to_json(positions[-1]))


@cli.command("view")
@click.argument("position", metavar="POSITION")
@click.option("--player", type=click.IntRange(1, 2), required=True, help="Whose view: 1 or 2.")
@_cards_option
def view_command(position: str, player: int) -> None:
    """Print what one player may see of a position (hidden cards become null)."""
    _print_json(view_json(_read_position(position), player))


@cli.command("play")
@_setup_options
@click.option(
    "--opponent",
    type=BotName(["human"]),
    default="random",
    show_default=True,
    help="A bot, weakest first (random: random legal actions; greedy: the most value each turn; "
    "recruit, veteran, elite, general: search bots, docs/bots.md), policy:FILE: a trained policy "
    "(docs/rl.md), or human: hot-seat.",
)
@click.option(
    "--as", "human_player", type=click.IntRange(1, 2), default=1, show_default=True, help="Which player you are."
)
@click.option("--save", default=None, metavar="FILE", help="Save the game record to FILE.")
@click.option(
    "--bot-seed", type=click.IntRange(0, MAX_SEED), default=None,
    help="The bot's seed, a stream apart from the deal's --seed (a bot's seed never reveals the deal) "
    "[default: drawn at random].",
)
@_cards_option
def play_command(opponent: str, human_player: int, save: str | None, bot_seed: int | None, **options: Any) -> None:
    """Play a game in the terminal."""
    setup = _setup(options)
    if bot_seed is None:
        bot_seed = secrets.randbelow(2**63)  # drawn apart from the deal: nothing links the two
    try:
        tui = importlib.import_module("lordsofwar.tui")
    except ModuleNotFoundError as exc:
        raise CliError(f"the terminal game cannot start: module {exc.name!r} is not installed") from None
    code = tui.run_play(
        decks=setup.decks,
        seed=setup.seed,
        variant=setup.variant,
        cards=_card_set(),
        opponent=opponent,
        human_player=human_player,
        save=Path(save) if save is not None else None,
        names=setup.names,
        bot_seed=bot_seed,
    )
    click.get_current_context().exit(int(code or 0))


@cli.command("analyse")
@click.argument("game", metavar="GAME")
@click.option(
    "--level", type=click.Choice(SEARCH_LEVELS), default=TOP, show_default=True,
    help="The search level that judges (by default the strongest, as for hints).",
)
@click.option("--seconds", type=click.FloatRange(0.01, 600), default=None, help="Time for each decision [default: the level's budget].")
@click.option("--iterations", type=click.IntRange(1, 10_000_000), default=None, help="Iterations for each decision [default: the level's].")
@click.option("--json", "as_json", is_flag=True, help="Print the whole analysis as one JSON object.")
@_cards_option
def analyse_command(game: str, level: str, seconds: float | None, iterations: int | None, as_json: bool) -> None:
    """Judge every decision of the game record GAME with a search bot (docs/bots.md).

    Each decision is judged from what its player knew then. Prints player 1's win probability
    through the game, the bot's preferred action where it differs from the one played, and the
    mistakes (a drop of 10 points or more) and blunders (25 or more).
    """
    from lordsofwar.bots.analysis import analyse_record

    cards = _card_set()
    record = parse_record(loads(_read_text(game, "game record"), _label(game, "game")), cards)
    replay(record, cards)  # a record that does not replay is bad input, said before any search

    def progress(done: int, total: int) -> None:
        if not as_json and sys.stderr.isatty():
            click.echo(f"\ranalysing: {done}/{total} actions", nl=False, err=True)

    try:
        found = analyse_record(record, cards, level, seconds, iterations, progress)
    except RuntimeError as exc:
        raise CliError(str(exc)) from None
    if not as_json and sys.stderr.isatty():
        click.echo("", err=True)
    if as_json:
        _print_json(found)
        return
    names = record.names
    click.echo(f"Analysis by the {level} bot: {len(found['decisions'])} actions")
    for d in found["decisions"]:
        before = found["graph"][d["n"] - 1]
        line = f"{d['n']:>4}  turn {d['turn']:>3}  {names[d['player'] - 1][:14]:<14} {d['played']:<32}"
        line += f" P1 {100 * before:5.1f}%"
        if d["forced"]:
            line += "  (only action)"
        elif d["best"] != d["played"]:
            line += f"  best: {d['best']}"
            if d["verdict"]:
                line += f"  {d['verdict'].upper()} (-{100 * d['drop']:.0f})"
        click.echo(line)
    for p in (1, 2):
        marked = [d for d in found["decisions"] if d["player"] == p and d["verdict"]]
        blunders = sum(d["verdict"] == "blunder" for d in marked)
        click.echo(f"{names[p - 1]}: {len(marked) - blunders} mistakes, {blunders} blunders")


@cli.command("match")
@click.argument("a", type=BotName(), metavar="AGENT")
@click.argument("b", type=BotName(), metavar="[B]", required=False)
@click.option(
    "--against", default=None, metavar="LEVELS",
    help="Without B: the stored levels to play, comma-separated [default: greedy first, then the two "
    "levels around the estimate].",
)
@click.option(
    "--games", type=click.IntRange(1, 100_000), default=None,
    help="Games to play: against B [default: 20], or against each level [default: 100].",
)
@click.option(
    "--seed", type=click.IntRange(0, MAX_SEED - 100_000), default=0, show_default=True,
    help="The first game's seed: game i's deal (armies included) and its bots' seeds are independent "
    "SHA-256 derivations of seed + i.",
)
@click.option(
    "--workers", type=click.IntRange(1, 256), default=None,
    help="Games played at once, each in its own process [default: the CPU count].",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@_variant_options
def match_command(
    a: str, b: str | None, against: str | None, games: int | None, seed: int, workers: int | None, as_json: bool,
    **options: Any,
) -> None:
    """Place AGENT on the bots' ladder, or play it against B.

    Without B: AGENT plays stored levels of the ladder (lordsofwar/bots/ladder.json): first
    greedy, then the two levels whose ratings are around the first estimate (or the --against
    levels), and gets a rating on the ladder's scale with the stored ratings held fixed, and a
    95% interval from resampling its games (docs/bots.md, "Rating your own agent"). With B:
    AGENT's wins, draws and losses against B with a 95% interval.

    AGENT plays player 1 in even games and player 2 in odd ones; each side's deck is a core army's
    standard deck drawn from the game's deal; the bots' seeds are derived apart from the deal's.
    Bots, weakest first: random, recruit, greedy, scout, veteran, elite, general, marshal
    (docs/bots.md),
    policy:FILE, a trained policy (docs/rl.md), or python:MODULE:FACTORY, a bot written in Python
    (FACTORY(seed) returns an object with choose(view, known=None, deck=None)).
    """
    from lordsofwar.bots import agent_label
    from lordsofwar.bots.play import run_games, summarise

    variant = _variant(
        options["rules"], options["hands"], options["mat_kind"], options["length"],
        options["units_to_win"], options["commands_to_win"], options["no_progress_turns"],
    )
    workers = workers or os.cpu_count() or 1
    shown = [0]

    def progress(game: dict[str, Any]) -> None:
        shown[0] += 1
        if not as_json and sys.stderr.isatty():
            click.echo(f"\r{shown[0]} games played", nl=False, err=True)

    if b is None:
        _place(a, against, games or 100, seed, workers, variant, as_json, progress)
        return
    if against is not None:
        raise CliError("--against places AGENT on the ladder: give it without B")
    games = games or 20
    tasks = [(a, b, seed + i) for i in range(games)]
    try:
        results = run_games(tasks, workers, variant, progress)
    except RuntimeError as exc:
        raise CliError(str(exc)) from None
    if not as_json and sys.stderr.isatty():
        click.echo("", err=True)
    summary = summarise(a, b, results)
    if as_json:
        _print_json({**summary, "seed": seed, "variant": variant.to_json()})
        return
    lo, hi = summary["interval"]
    a_name, b_name = agent_label(a), agent_label(b)
    click.echo(
        f"{a_name} against {b_name}: {summary['wins']} wins, {summary['draws']} draws, {summary['losses']} losses "
        f"in {games} games"
    )
    click.echo(f"{a_name}'s score {100 * summary['score']:.1f}% (95% interval {100 * lo:.1f}% to {100 * hi:.1f}%)")
    for side, name in (("a", a_name), ("b", b_name)):
        ms = summary["ms"][side]
        if ms["decisions"]:
            click.echo(f"{name}: {ms['p50']:.1f} ms a decision (p50), {ms['p99']:.1f} ms (p99), {ms['decisions']} decisions")


def _place(
    agent: str, against: str | None, games: int, seed: int, workers: int, variant: Variant, as_json: bool,
    progress: Callable[[dict[str, Any]], None],
) -> None:
    """``match AGENT``: its rating on the stored ladder (:func:`lordsofwar.bots.ladder.place`)."""
    from lordsofwar.bots import ladder

    if variant != Variant():
        raise CliError("the ladder was measured in the default variant: place AGENT there, or name B to play another")
    levels = _comma_list(against, None, "greedy,veteran") if against is not None else None
    try:
        found = ladder.place(agent, games, seed, workers, levels, progress=progress)
    except (ValueError, RuntimeError) as exc:
        raise CliError(str(exc)) from None
    if not as_json and sys.stderr.isatty():
        click.echo("", err=True)
    if as_json:
        _print_json(found)
        return
    stored = found["ladder"]
    lo, hi = found["interval"]
    click.echo(
        f"{found['name']}: rating {found['rating']} (95% interval {lo} to {hi}) on the ladder of "
        f"{stored['date']} (greedy = 1000)"
    )
    if first := found["first_round"]:
        near = [p["b"] for p in found["pairs"] if p["b"] != first["against"]]
        click.echo(
            f"first {first['games']} games against {first['against']}: estimate {first['estimate']}; "
            f"then {', '.join(near) or 'no other level'}, the stored levels around it"
        )
    click.echo(f"{'against':<10} {'rating':>6} {'games':>6} {'won':>5} {'drawn':>5} {'lost':>5} {'score':>7}  95% interval")
    for p in found["pairs"]:
        plo, phi = p["interval"]
        click.echo(
            f"{p['b']:<10} {p['rating']:>6.0f} {p['games']:>6} {p['wins']:>5} {p['draws']:>5} {p['losses']:>5} "
            f"{100 * p['score']:>6.1f}%  {100 * plo:.1f}% to {100 * phi:.1f}%"
        )
    ms = found["ms"]
    if ms["decisions"]:
        click.echo(
            f"{found['name']}: {ms['p50']:.1f} ms a decision (p50), {ms['p99']:.1f} ms (p99), {ms['decisions']} decisions"
        )
    workers = found["workers"]
    click.echo(f"{found['games']} games in {found['seconds']} s ({workers} worker{'s' if workers != 1 else ''})")


def _migrated_settings() -> Any:
    """The web settings from the environment, with the database schema brought up to date."""
    from sqlalchemy.exc import SQLAlchemyError

    from lordsofwar.web.db import migrate
    from lordsofwar.web.settings import Settings

    try:
        settings = Settings()
        settings.sync_url()
    except ValueError as exc:
        raise CliError(str(exc)) from None
    try:
        migrate(settings)
    except (SQLAlchemyError, OSError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise CliError(f"cannot open the database {settings.database_url.split('@')[-1]}: {first[:200]}") from None
    return settings


@cli.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535), help="Port to listen on.")
@click.option("--workers", default=1, show_default=True, type=click.IntRange(1, 64),
              help="Server processes (several need LOW_DATABASE_URL=postgresql://... and LOW_REDIS_URL).")
@click.option("--bot-workers", default=None, type=click.IntRange(0, 256),
              help="Search processes per server process (LOW_BOT_WORKERS, default 2); 0: none, every search goes "
              "to the search workers ('lordsofwar worker', needs LOW_REDIS_URL).")
def serve_command(host: str, port: int, workers: int, bot_workers: int | None) -> None:
    """Run the web server: creates or upgrades the database, then serves the lobby and games.

    The database is LOW_DATABASE_URL (default: the SQLite file data/lordsofwar.sqlite3).
    """
    import uvicorn

    if bot_workers is not None:
        os.environ["LOW_BOT_WORKERS"] = str(bot_workers)  # read by every server process's settings
    settings = _migrated_settings()
    if settings.bot_workers == 0 and not settings.redis_url:
        raise CliError("--bot-workers 0 (LOW_BOT_WORKERS=0) sends every search to the search workers: set LOW_REDIS_URL")
    if workers > 1 and (settings.database_url.startswith("sqlite") or not settings.redis_url):
        raise CliError("--workers above 1 needs LOW_DATABASE_URL=postgresql://... and LOW_REDIS_URL=redis://...")
    where = settings.database_url.split("@")[-1]
    click.echo(f"Lords of War is running at http://{host}:{port}/  (database: {where}; Ctrl+C stops it)")
    uvicorn.run(
        "lordsofwar.web.main:app" if workers > 1 else "lordsofwar.web.main:make",
        factory=workers == 1,
        host=host,
        port=port,
        workers=workers,
        log_level="warning",
        ws_max_size=64 * 1024,
        timeout_graceful_shutdown=5,  # open sockets do not keep a stopping server alive
        # the client's address comes from X-Forwarded-For only when told so (behind a proxy)
        proxy_headers=settings.trust_proxy_headers,
        forwarded_allow_ips=settings.forwarded_allow_ips,
    )


def _redis_settings() -> Any:
    from lordsofwar.web.settings import Settings

    try:
        settings = Settings()
    except ValueError as exc:
        raise CliError(str(exc)) from None
    if not settings.redis_url:
        raise CliError("the search workers meet the servers on Redis: set LOW_REDIS_URL=redis://...")
    return settings


@cli.command("worker")
@click.option("--max-jobs", type=click.IntRange(1), default=None, help="Leave after answering this many jobs.")
def worker_command(max_jobs: int | None) -> None:
    """Run a search worker: bots' turns, hints and analysis decisions taken from Redis Streams.

    It needs LOW_REDIS_URL and the installation's LOW_REDIS_PREFIX (or the servers' LOW_DATABASE_URL,
    from which the prefix is derived); never the database. Start as many as there are cores to spare,
    on any machine that reaches Redis. SIGTERM or Ctrl+C: the search under way is finished first.
    """
    import logging

    from redis.exceptions import RedisError

    from lordsofwar.web.workers.worker import Worker

    settings = _redis_settings()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    worker = Worker(settings.redis_url, settings.redis_namespace(), settings.worker_claim_s)
    worker.stop_on_signals()
    click.echo(f"search worker {worker.name} on {settings.redis_url.split('@')[-1]}, prefix {worker.prefix}", err=True)
    try:
        worker.run(max_jobs)
    except RedisError as exc:
        raise CliError(f"Redis: {exc}") from None


@cli.command("workers")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def workers_command(as_json: bool) -> None:
    """Show the search workers: jobs waiting by kind, the oldest wait, each worker's decisions per second."""
    import dataclasses

    from redis.exceptions import RedisError

    from lordsofwar.web.workers import status

    settings = _redis_settings()
    try:
        found = status.read_url(settings.redis_url, settings.redis_namespace())
    except RedisError as exc:
        raise CliError(f"Redis: {exc}") from None
    if as_json:
        _print_json(dataclasses.asdict(found))
    else:
        for line in status.lines(found):
            click.echo(line)


@cli.group("db")
def db_group() -> None:
    """The web platform's database (LOW_DATABASE_URL, default the SQLite file data/lordsofwar.sqlite3)."""


@db_group.command("upgrade")
def db_upgrade_command() -> None:
    """Create the schema or upgrade it to the newest revision (serve does this too)."""
    settings = _migrated_settings()
    click.echo(f"database at the newest schema: {settings.database_url.split('@')[-1]}")


@cli.group("admin")
def admin_group() -> None:
    """Running a server: the moderators (LOW_DATABASE_URL, as serve; docs/community.md)."""


def _set_moderator(name: str, grant: bool) -> None:
    from sqlalchemy import create_engine, delete, select
    from sqlalchemy.orm import Session

    from lordsofwar.web.models import Moderator, User, utcnow

    settings = _migrated_settings()
    engine = create_engine(settings.sync_url())
    try:
        with Session(engine) as db:
            user = db.scalar(select(User).where(User.name_key == name.strip().lower(), User.closed_at.is_(None)))
            if user is None or user.bot is not None:
                raise CliError(f"there is no player called {name!r}")
            held = db.get(Moderator, user.id) is not None
            if grant and not held:
                db.add(Moderator(user_id=user.id, granted_at=utcnow()))
            elif not grant and held:
                db.execute(delete(Moderator).where(Moderator.user_id == user.id))
            db.commit()
            was = "already " if held == grant else ""
            click.echo(f"{user.name} is {was}{'a moderator' if grant else 'not a moderator'}")
    finally:
        engine.dispose()


@admin_group.command("grant-moderator")
@click.argument("name")
def grant_moderator_command(name: str) -> None:
    """Make the player NAME a moderator: the /moderation page and its actions."""
    _set_moderator(name, True)


@admin_group.command("revoke-moderator")
@click.argument("name")
def revoke_moderator_command(name: str) -> None:
    """The player NAME is a moderator no more (what they did stays in the log)."""
    _set_moderator(name, False)


@cli.group("deck")
def deck_group() -> None:
    """Custom decks (clarifications 8.4; file formats in docs/decks.md)."""


@deck_group.command("check")
@click.argument("file")
@click.option(
    "--allowed-armies",
    default=None,
    callback=_allowed_value,
    metavar="A,B,...",
    help="The armies the game allows custom decks from [default: any].",
)
@click.option("--json", "as_json", is_flag=True, help="Print the verdict, the problems and the statistics as JSON.")
@_cards_option
def deck_check_command(file: str, allowed_armies: list[str] | None, as_json: bool) -> None:
    """Check the deck FILE ('-' for stdin) for a game allowing custom decks from the given armies.

    A valid deck: exit status 0 and a summary. A deck that breaks a rule: every problem on stdout,
    then one error line and exit status 2, as for a malformed file.
    """
    cards = _card_set()
    for army in allowed_armies or ():
        cards.army(army)  # an unknown army is bad input
    label = _label(file, "deck")
    parsed = decks.parse(_read_text(file, "deck", 4 * decks.FILE_LIMIT), cards, label)
    problems = decks.check(parsed.cards, cards, allowed_armies)
    stats = decks.stats(parsed.cards, cards)
    kind = None
    if not problems:
        kind = decks.kind(parsed.cards, cards)
    if as_json:
        doc = {"file": label, "name": parsed.name, "valid": not problems, "problems": problems, "kind": kind}
        _print_json({**doc, "stats": stats})
    elif problems:
        for problem in problems:
            click.echo(f"- {problem}")
    else:
        allowed = ", ".join(allowed_armies) if allowed_armies else "any army"
        armies = ", ".join(f"{a} {n}" for a, n in stats["armies"].items())
        click.echo(f"{label}: a valid deck ({kind}: {armies}) for a game allowing custom decks from {allowed}")
        classes = ", ".join(f"{n} {c}" for c, n in stats["classes"].items() if n)
        click.echo(f"  {classes}; average defence {stats['average_defence']}; {stats['attack_total']} attack in all")
        click.echo(
            f"  {stats['ranged_units']} ranged units ({stats['ranged_damage']} damage a volley); "
            f"{stats['support_units']} support units ({round(100 * stats['support_share'])}%)"
        )
    if problems:
        raise CliError(f"{label}: not a valid deck ({len(problems)} problem{'s' * (len(problems) > 1)})")


@cli.group("puzzles")
def puzzles_group() -> None:
    """The puzzles mined from bot games (docs/learn.md, "The puzzle generator")."""


@puzzles_group.command("generate")
@click.option("--seed", type=click.IntRange(0, MAX_SEED), default=0, show_default=True,
              help="The run's seed: game i's deal, bots and checks are SHA-256 derivations of it and i.")
@click.option("--first-game", type=click.IntRange(0, MAX_SEED), default=0, show_default=True,
              help="The index of the first game to mine (to go on with a run).")
@click.option("--count", type=click.IntRange(1, 1_000_000), default=None, help="Stop after this many new puzzles.")
@click.option("--seconds", type=click.FloatRange(min=1.0), default=None, help="Start no game after this many seconds.")
@click.option("--out", "out", default=None, metavar="FILE",
              help="The puzzle file (.jsonl, or .jsonl.gz compressed): puzzles already there are kept, and it is "
              "written again after every game that finds one.")
@click.option("--processes", type=click.IntRange(1, 256), default=1, show_default=True, help="Games mined at once.")
@click.option("--tiny", is_flag=True, help="Small search budgets (a quick trial; puzzles still pass every check).")
def puzzles_generate_command(
    seed: int, first_game: int, count: int | None, seconds: float | None, out: str | None, processes: int, tiny: bool
) -> None:
    """Play bot games and keep the decisions where one action is clearly best as puzzles.

    Without --count or --seconds, one game per process. Prints the yield (puzzles kept per hour
    of CPU time on one core) and the margin distribution.
    """
    from lordsofwar import core
    from lordsofwar.learn.generate import Settings, Tally, generate

    if core.IMPLEMENTATION != "native":
        raise CliError(f"puzzles generate needs the compiled core: {core.FALLBACK_REASON}")
    settings = Settings().tiny() if tiny else Settings()

    def progress(tally: Tally, total: int) -> None:
        click.echo(
            f"{tally.games} games, {tally.decisions} decisions, {tally.kept} kept ({total} in all), "
            f"{tally.per_hour():.0f} per core-hour",
            err=True,
        )

    puzzles, tally = generate(seed, count, seconds, out, processes, settings, first_game, progress)
    click.echo(tally.report())
    click.echo(f"{len(puzzles)} puzzles" + (f" in {out}" if out else ""))


def _add_train_group() -> None:
    from lordsofwar.train.commands import train_group

    cli.add_command(train_group)


_add_train_group()


def main(argv: Sequence[str] | None = None) -> None:
    """The console script ``lordsofwar``."""
    cli.main(args=argv, prog_name="lordsofwar")


__all__ = ["CliError", "cli", "main", "read_deck_file"]

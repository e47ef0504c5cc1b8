"""A game in the terminal: ``lordsofwar play``.

The loop deals a game, shows the player who must decide now (``pos.decider``) their own view
only, reads a number, an action or a command, and applies it to the real position through the
engine. A bot opponent is shown its own view and nothing else. Every action is kept in a
:class:`~lordsofwar.rules.notation.GameRecord`, written out at the end when asked.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from rich import box
from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from lordsofwar import render
from lordsofwar.bots import Bot, decide, make_bot
from lordsofwar.rules import engine, mat, notation
from lordsofwar.rules.cards import CardSet
from lordsofwar.rules.errors import InvalidActionError, LordsOfWarError
from lordsofwar.rules.events import Event
from lordsofwar.rules.events import squares as event_squares
from lordsofwar.rules.knowledge import known_hands
from lordsofwar.rules.state import Position, Variant

COMMANDS: tuple[tuple[str, str], ...] = (
    ("<number>", "play the action with that number (as in the action list and on your hand cards)"),
    ("<action>", "type an action, e.g. 'deploy orcs:07 d4', 'shoot d2 d5', 'draw'"),
    ("card <id|square|name>", "show a card: 'card orcs:07', 'card d4' (the unit there), 'card warhog'"),
    ("actions", "every legal action with its number (the screen may show only some)"),
    ("hand", "your hand drawn in full"),
    ("log", "the whole event log"),
    ("show", "draw the screen again"),
    ("save FILE", "write the game so far to FILE (a game record)"),
    ("resign", "give up: your opponent wins"),
    ("quit", "leave the game without a result"),
    ("help", "this help"),
)


class _Stop(Exception):
    """The player left the game (quit, end of input)."""


class PlayLoop:
    """One game at the terminal; :func:`run_play` builds and runs it."""

    def __init__(
        self,
        *,
        pos: Position,
        record: notation.GameRecord,
        bots: dict[int, Bot],
        hot_seat: bool,
        human_player: int,
        names: Sequence[str],
        console: Console,
        read_line: Callable[[str], str],
    ):
        self.pos = pos
        self.record = record
        self.bots = bots
        self.hot_seat = hot_seat
        self.human_player = human_player
        self.names = list(names)
        self.console = console
        self.read_line = read_line
        self.log: list[Text] = []
        self.events: list[Event] = []  # every public event so far (what a bot may know)
        self.turn_squares: set[int] = set()
        self.last_turn_squares: set[int] = set()
        self.shown: int | None = None
        self._turn_header()

    # --- the loop ------------------------------------------------------------------------------

    def run(self) -> bool:
        """Play until the game ends (True) or a player leaves it (False)."""
        try:
            while self.pos.result is None:
                decider = self.pos.decider
                bot = self.bots.get(decider)
                if bot is not None:
                    self._bot_decides(bot, decider)
                    continue
                if self.hot_seat and self.pos.variant.hands == "hidden" and decider != self.shown:
                    self._pass_device(decider)
                self.shown = decider
                self._human_decides(decider)
        except (_Stop, KeyboardInterrupt):
            return False
        return True

    def _ask(self, prompt: str) -> str:
        try:
            return self.read_line(prompt)
        except (EOFError, KeyboardInterrupt):
            self.console.print()
            self.console.print(Text("Input ended: leaving the game.", style="yellow"))
            raise _Stop from None

    def _pass_device(self, player: int) -> None:
        """Hot seat with hidden hands: clear the screen so the next player sees only their view."""
        self.console.clear()
        self.console.print(render.pass_screen(player, self.names))
        self._ask("")
        self.console.clear()

    def legal(self) -> list[str]:
        """The legal actions of the decider, as numbered on screen (sorted notation strings)."""
        return sorted({str(a) for a in self.pos.legal_actions()})

    def highlight(self) -> set[int]:
        return self.last_turn_squares | self.turn_squares

    def screen(self, viewer: int, actions: Sequence[str], reserve: int = 0) -> RenderableType:
        """``viewer``'s screen, made to fit the terminal with ``reserve`` lines to spare."""
        view = notation.view(self.pos, viewer)
        return render.render_screen(
            view,
            viewer=viewer,
            names=self.names,
            actions=actions,
            log=self.log,
            highlight=self.highlight(),
            width=self.console.width,
            height=self.console.height - reserve,
        )

    def _human_decides(self, player: int) -> None:
        actions = self.legal()
        self.console.clear()
        self.console.print(self.screen(player, actions))
        label = render.player_label(player, self.names).plain
        prompt = f"{label} [1-{len(actions)}, action, help] > "
        while True:
            line = " ".join(self._ask(prompt).split())
            if self._command(line, player, actions):
                return

    def _bot_decides(self, bot: Bot, player: int) -> None:
        """The bot sees only its own view, the hand cards its opponent showed and its own deck
        list; its answer is checked and applied to the real game."""
        view = notation.view(self.pos, player)
        try:
            action = decide(bot, view, known_hands(self.events, player), self.record.decks[player - 1])
        except Exception as exc:  # a failing bot ends the game with a message, not a traceback
            raise LordsOfWarError(f"the {bot.name} bot failed: {type(exc).__name__}: {exc}") from exc
        text = str(action)
        if text not in self.legal():
            raise LordsOfWarError(f"the {bot.name} bot chose {text!r}, which is not a legal action now")
        self.apply(text)

    # --- input ---------------------------------------------------------------------------------

    def _refuse(self, message: str) -> bool:
        self.console.print(Text(message, style="red"))
        return False

    def _command(self, line: str, player: int, actions: list[str]) -> bool:
        """Handle one input line; True when the decision is made (or the game ended)."""
        if not line:
            return self._refuse(
                f"Type the number of an action (1-{len(actions)}), an action such as 'draw', or 'help'."
            )
        word, _, rest = line.partition(" ")
        word = word.lower()
        if line.isdigit():
            n = int(line)
            if not 1 <= n <= len(actions):
                return self._refuse(f"There is no action {n}: choose a number from 1 to {len(actions)}.")
            self.apply(actions[n - 1])
            return True
        if word in ("help", "?") and not rest:
            self.console.print(help_panel())
            return False
        if word == "show" and not rest:
            self.console.print(self.screen(player, actions))
            return False
        if word == "actions" and not rest:
            title = f"Your actions ({len(actions)})"
            self.console.print(render.render_actions(actions, self.pos.cards, title=title, width=self.console.width))
            return False
        if word == "hand" and not rest:
            view = notation.view(self.pos, player)
            numbers = render.deploy_numbers(actions)
            self.console.print(
                render.render_hand(view, player, names=self.names, width=self.console.width, numbers=numbers)
            )
            return False
        if word == "log" and not rest:
            self.console.print(render.render_log(self.log, None, title="All events"))
            return False
        if word == "card":
            return self._card(rest)
        if word == "save":
            if not rest:
                return self._refuse("save needs a file name: save FILE")
            if write_record(self.record, Path(rest), self.console):
                self.console.print(f"Game so far saved to {rest}.")
            return False
        if word == "resign" and not rest:
            narrator = render.EventNarrator(self.pos, self.names)
            events = engine.resign(self.pos, player)
            self.log.extend(narrator.describe(e) for e in events)
            return True
        if word in ("quit", "exit") and not rest:
            raise _Stop
        return self._action(line.lower(), actions)

    def _action(self, text: str, actions: list[str]) -> bool:
        try:
            action = notation.parse_action(text, self.pos)
        except InvalidActionError as exc:
            return self._refuse(f"{exc}. Type 'help' for the commands.")
        if str(action) not in actions:
            try:
                reason = engine.explain_illegal(self.pos, action)
            except LordsOfWarError as exc:
                reason = f"{text}: {exc}"
            return self._refuse(f"Not allowed now: {reason}")
        self.apply(str(action))
        return True

    def _card(self, what: str) -> bool:
        """``card orcs:07``, ``card d4`` (the unit there) or ``card warhog`` (by name)."""
        if not what:
            return self._refuse("card needs a card id, a square or a name: card orcs:07, card d4, card warhog")
        cards = self.pos.cards
        key = what.lower()
        if key in cards:
            self.console.print(render.render_card(cards[key]))
            return False
        try:
            sq = mat.parse(key, self.pos.variant.bordered)
        except LordsOfWarError:
            sq = None
        if sq is not None:
            unit = self.pos.board.get(sq)
            if unit is None:
                return self._refuse(f"There is no unit on {mat.name(sq)}.")
            self.console.print(render.render_card(unit.card, unit.owner, mat.name(sq)))
            return False
        found = [c for c in cards.values() if key in c.name.lower()]
        if not found:
            return self._refuse(f"No card id, square or card name matches {what!r}.")
        armies = set(self.pos.armies[1:])
        found.sort(key=lambda c: (c.army not in armies, c.id))
        distinct = {
            (c.name, c.rank, c.cls, c.defence, tuple(sorted(c.attacks.items())), c.ranged): c for c in reversed(found)
        }
        shown = sorted(distinct.values(), key=lambda c: (c.army not in armies, c.id))
        for card in shown[:4]:
            self.console.print(render.render_card(card))
        if len(shown) > 4:
            self.console.print(Text(f"... and {len(shown) - 4} more designs; be more precise.", style="grey62"))
        return False

    # --- applying ------------------------------------------------------------------------------

    def apply(self, text: str) -> None:
        """Push one legal action, record it and narrate its events."""
        narrator = render.EventNarrator(self.pos, self.names)
        turn = (self.pos.turn, self.pos.to_move)
        events = self.pos.push(notation.parse_action(text, self.pos))
        self.events.extend(events)
        self.record.actions.append(text)
        for event in events:
            self.log.append(narrator.describe(event))
            for square in event_squares(event):
                self.turn_squares.add(mat.parse(square, bordered=False))
        if self.pos.result is None and (self.pos.turn, self.pos.to_move) != turn:
            self.last_turn_squares = self.turn_squares
            self.turn_squares = set()
            self._turn_header()

    def _turn_header(self) -> None:
        pos = self.pos
        line = Text(f"── turn {pos.turn}: ", style="grey50")
        line.append_text(render.player_label(pos.to_move))
        line.append(" ──", "grey50")
        self.log.append(line)

    def final_screen(self) -> None:
        """The last screen, then what happened in the last turn and the result."""
        viewer = self.human_player if not self.hot_seat else (self.shown or 1)
        start = max((i for i, line in enumerate(self.log) if line.plain.startswith("── turn")), default=0)
        last_turn = self.log[start:][-8:]
        self.console.print(self.screen(viewer, [], reserve=3 + len(last_turn)))
        self.console.print(Group(*last_turn))
        self.console.print(Panel(render.result_text(self.pos, self.names), box=box.DOUBLE, expand=False))


def help_panel() -> Panel:
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold yellow", no_wrap=True)
    table.add_column()
    for command, meaning in COMMANDS:
        table.add_row(command, meaning)
    return Panel(Group(table, Text(""), Text(render.LEGEND, style="grey70")), title="Help", title_align="left")


def write_record(record: notation.GameRecord, path: Path, console: Console) -> bool:
    """Write the game record as JSON; a failure is one red line, not a traceback."""
    try:
        path.write_text(notation.dumps(record.to_json()) + "\n", encoding="utf-8")
    except OSError as exc:
        console.print(Text(f"Cannot write {path}: {exc.strerror or exc}", style="red"))
        return False
    return True


def run_play(
    *,
    decks: list[list[str]],
    seed: int,
    variant: Variant,
    cards: CardSet,
    opponent: str,
    human_player: int,
    save: Path | None,
    names: tuple[str, str],
    console: Console | None = None,
    read_line: Callable[[str], str] | None = None,
    bot_seed: int | None = None,
) -> int:
    """Play one game at the terminal and return the exit status.

    ``opponent`` is ``"human"`` (hot seat: both players at this terminal; with hidden hands a
    "pass the device" screen comes between deciders) or a bot name from
    :data:`lordsofwar.bots.BOTS` playing the player other than ``human_player``.
    ``read_line(prompt)`` reads one line (default ``console.input``); end of input leaves the
    game. The game record goes to ``save`` when the game ends, is resigned or is left.
    Returns 0, 1 when the record cannot be written or a bot fails, 2 for bad arguments.
    """
    console = console or Console()
    if read_line is None:

        def read_line(prompt: str) -> str:
            return console.input(Text(prompt, style="bold"))

    if human_player not in (1, 2):
        console.print(Text(f"human player must be 1 or 2, not {human_player!r}", style="red"))
        return 2
    bots: dict[int, Bot] = {}
    if opponent != "human":
        try:
            bots[3 - human_player] = make_bot(opponent, bot_seed)
        except ValueError as exc:
            console.print(Text(str(exc), style="red"))
            return 2
    try:
        pos = notation.deal(decks, seed, variant, cards)
    except LordsOfWarError as exc:
        console.print(Text(str(exc), style="red"))
        return 2
    record = notation.GameRecord([list(d) for d in decks], seed, variant, list(names), [], None)
    loop = PlayLoop(
        pos=pos,
        record=record,
        bots=bots,
        hot_seat=opponent == "human",
        human_player=human_player,
        names=names,
        console=console,
        read_line=read_line,
    )
    status = 0
    stopped: Text | None = None
    # Hot seat with hidden hands: play on the terminal's alternate screen, which keeps no
    # scrollback, so the next player cannot scroll back to the previous player's hand.
    private = opponent == "human" and variant.hands == "hidden" and console.is_terminal
    if private:
        console.set_alt_screen(True)
    try:
        finished = loop.run()
    except LordsOfWarError as exc:
        finished, status = False, 1
        stopped = Text(f"The game stopped: {exc}", style="red")
    finally:
        if private:
            console.set_alt_screen(False)
    if stopped is not None:
        console.print(stopped)
    if finished:
        record.result = pos.result
        loop.final_screen()
    else:
        console.print(Text(f"Game left unfinished after {len(record.actions)} actions.", style="yellow"))
    if save is not None:
        if write_record(record, save, console):
            console.print(f"Game record saved to {save}.")
        else:
            status = 1
    return status


__all__ = ["COMMANDS", "PlayLoop", "help_panel", "run_play", "write_record"]

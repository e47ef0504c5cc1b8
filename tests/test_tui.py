"""The terminal game (``lordsofwar play``) driven by scripted input, and its Rich rendering."""

from __future__ import annotations

import io
import json
import random
import re
from collections.abc import Callable, Iterable
from pathlib import Path

from rich.console import Console

from lordsofwar import render
from lordsofwar.bots.random_bot import RandomBot
from lordsofwar.rules import mat, notation
from lordsofwar.rules.cards import CORE
from lordsofwar.rules.state import Position, Variant
from lordsofwar.tui import PlayLoop, run_play

DECKS = [CORE.standard_deck("orcs"), CORE.standard_deck("dwarves")]


def make_console() -> Console:
    return Console(file=io.StringIO(), width=140, height=60, record=True)  # a fixed size: the layout follows it


def scripted(answers: Iterable[str]) -> Callable[[str], str]:
    """A read_line that gives the answers in turn, then end of input."""
    it = iter(answers)

    def read_line(prompt: str) -> str:
        try:
            return next(it)
        except StopIteration:
            raise EOFError from None

    return read_line


def play(
    read_line: Callable[[str], str], *, console: Console | None = None, save: Path | None = None, **kw: object
) -> tuple[int, str]:
    console = console or make_console()
    args: dict[str, object] = {
        "decks": DECKS,
        "seed": 7,
        "variant": Variant(),
        "cards": CORE,
        "opponent": "random",
        "human_player": 1,
        "save": save,
        "names": ("alice", "bot"),
        "bot_seed": 3,
    }
    args.update(kw)
    rc = run_play(console=console, read_line=read_line, **args)  # type: ignore[arg-type]
    return rc, console.export_text()


def load_record(path: Path) -> notation.GameRecord:
    return notation.parse_record(json.loads(path.read_text(encoding="utf-8")))


# --- whole games -------------------------------------------------------------------------------


def test_human_always_choosing_action_1_plays_a_whole_game_that_replays(tmp_path: Path) -> None:
    save = tmp_path / "game.json"
    prompts: list[str] = []

    def always_first(prompt: str) -> str:
        prompts.append(prompt)
        assert len(prompts) < 2000, "the game should end"
        return "1"

    rc, text = play(always_first, save=save)
    assert rc == 0
    record = load_record(save)
    assert record.result is not None
    assert record.names == ["alice", "bot"]
    assert record.seed == 7
    final = notation.replay(record)[-1]
    assert final.result is not None
    assert final.result == record.result
    assert "wins" in text or "Draw" in text or "drawn" in text
    assert "Game record saved to" in text
    assert all(p.startswith("Player 1 (alice)") for p in prompts)


def test_resign_gives_the_opponent_the_win_in_the_saved_record(tmp_path: Path) -> None:
    save = tmp_path / "resigned.json"
    rc, text = play(scripted(["1", "1", "resign"]), save=save)
    assert rc == 0
    record = load_record(save)
    assert record.result is not None
    assert record.result.winner == 2
    assert record.result.reason == "player 1 resigned"
    positions = notation.replay(record)
    assert positions[-1].result == record.result
    assert "resigns" in text
    assert "wins: player 1 resigned" in text


def test_human_as_player_2_waits_for_the_bot_to_open(tmp_path: Path) -> None:
    save = tmp_path / "p2.json"
    rc, text = play(scripted(["1", "1", "1", "1", "quit"]), save=save, human_player=2, names=("bot", "bob"))
    assert rc == 0
    record = load_record(save)
    assert record.result is None
    assert record.actions[0].startswith("deploy orcs:") and record.actions[0].endswith(" c3")
    assert record.actions[2].startswith("deploy dwarves:") and record.actions[2].endswith(" e4")
    notation.replay(record)


# --- input handling -------------------------------------------------------------------------------


def test_bad_input_is_refused_with_a_message_and_changes_nothing(tmp_path: Path) -> None:
    save = tmp_path / "bad.json"
    answers = ["deploy nonsense", "99", "", "deploy orcs:01 a1", "fly away", "0", "1", "quit"]
    rc, text = play(scripted(answers), save=save)
    assert rc == 0
    assert "missing token <square>" in text
    assert "There is no action 99" in text
    assert "There is no action 0" in text
    assert "Type the number of an action" in text
    assert "Not allowed now: deploy orcs:01 a1" in text and "c3" in text
    assert "unknown verb 'fly'" in text
    record = load_record(save)
    assert len(record.actions) == 1, "only the one good answer was played"
    assert record.actions[0].startswith("deploy ") and record.actions[0].endswith(" c3")
    assert record.result is None


def test_an_action_can_be_typed_as_text() -> None:
    pos = notation.deal(DECKS, 7, Variant(), CORE)
    general = "orcs:01"
    assert general in pos.hands[1]
    read = scripted([f"deploy {general} c3", "draw", "card c3", "quit"])
    rc, text = play(read, save=None)
    assert rc == 0
    assert "Player 1 deploys Gonke Longtooth on c3" in text
    assert "FL5 F5 FR5" in text  # the card command on c3


def test_help_log_card_and_show_commands_do_not_play(tmp_path: Path) -> None:
    save = tmp_path / "cmds.json"
    answers = ["help", "log", "card orcs:07", "card warhog", "card d4", "card zzz", "show", "quit"]
    rc, text = play(scripted(answers), save=save)
    assert rc == 0
    assert "give up: your opponent wins" in text
    assert "All events" in text
    assert "Orc Warhog" in text and "F2 FR3 R4 BR3" in text
    assert "There is no unit on d4." in text
    assert "No card id, square or card name matches 'zzz'." in text
    assert load_record(save).actions == []


def test_save_command_writes_the_game_so_far_and_quit_leaves_without_result(tmp_path: Path) -> None:
    midway = tmp_path / "midway.json"
    rc, text = play(scripted(["1", f"save {midway}", "quit"]))
    assert rc == 0
    record = load_record(midway)
    assert len(record.actions) == 1
    assert record.result is None
    assert "Game left unfinished" in text


def test_end_of_input_ends_the_game_cleanly_and_saves(tmp_path: Path) -> None:
    save = tmp_path / "eof.json"
    rc, text = play(scripted(["1", "1"]), save=save)
    assert rc == 0
    record = load_record(save)
    assert record.result is None
    assert len(record.actions) >= 2
    notation.replay(record)
    assert "Input ended" in text


def test_unwritable_save_file_is_one_message_and_status_1(tmp_path: Path) -> None:
    rc, text = play(scripted(["quit"]), save=tmp_path / "no-such-dir" / "game.json")
    assert rc == 1
    assert "Cannot write" in text


def test_unknown_opponent_is_refused_with_status_2() -> None:
    rc, text = play(scripted([]), opponent="deep-thought")
    assert rc == 2
    assert "unknown bot 'deep-thought'" in text


# --- hidden information ---------------------------------------------------------------------------


def _hand_names(pos: Position, player: int) -> set[str]:
    return {CORE[c].name for c in pos.hands[player] if c is not None}


def test_hot_seat_with_hidden_hands_never_prints_the_other_players_hand() -> None:
    seed = 7
    opening = notation.deal(DECKS, seed, Variant(), CORE)
    p2_names = _hand_names(opening, 2)
    assert p2_names and not p2_names & _hand_names(opening, 1)
    console = make_console()
    printed: list[tuple[str, str]] = []  # (prompt, what was printed since the previous prompt)
    answers = iter(["", "1", "1", "", "quit"])

    def read_line(prompt: str) -> str:
        printed.append((prompt, console.export_text(clear=True)))
        return next(answers)

    rc = run_play(
        decks=DECKS,
        seed=seed,
        variant=Variant(hands="hidden"),
        cards=CORE,
        opponent="human",
        human_player=1,
        save=None,
        names=("alice", "bob"),
        console=console,
        read_line=read_line,
    )
    assert rc == 0
    prompts = [p for p, _ in printed]
    assert prompts[0] == "" and prompts[1].startswith("Player 1") and prompts[2].startswith("Player 1")
    assert prompts[3] == "" and prompts[4].startswith("Player 2")
    assert "Pass the device to Player 1" in printed[0][1]
    assert "Pass the device to Player 2" in printed[3][1]
    for _, screen in printed[1:3]:  # player 1's screens
        for name in p2_names:
            assert name not in screen, f"player 2's {name} shown to player 1"
    # Player 1's hand after turn 1, less the deployed card (now public on the mat), stays hidden.
    after = opening.copy()
    first = sorted(str(a) for a in after.legal_actions())[0]
    after.push(first)
    after.push(sorted(str(a) for a in after.legal_actions())[0])
    p1_secret = _hand_names(after, 1) - {CORE[first.split()[1]].name}
    p2_screen = printed[4][1]
    for name in p1_secret:
        assert name not in p2_screen, f"player 1's {name} shown to player 2"
    # Control: player 2 sees their own cards (the general is always in the opening hand).
    assert "Krod Klouthammer" in p2_names and "Krod Klouthammer" in p2_screen


def test_against_a_bot_the_bots_hand_is_never_printed() -> None:
    opening = notation.deal(DECKS, 7, Variant(), CORE)
    console = make_console()
    seen: list[str] = []

    def read_line(prompt: str) -> str:
        seen.append(console.export_text(clear=True))
        if len(seen) > 6:
            raise EOFError
        return "1"

    run_play(
        decks=DECKS,
        seed=7,
        variant=Variant(),
        cards=CORE,
        opponent="random",
        human_player=1,
        save=None,
        names=("alice", "bot"),
        console=console,
        read_line=read_line,
        bot_seed=1,
    )
    for name in _hand_names(opening, 2):
        assert name not in seen[0], f"the bot's {name} shown to the human"
    assert "bot · dwarves" in seen[0] and "hand 6" in seen[0]


# --- rendering --------------------------------------------------------------------------------------


def plain(renderable: object, width: int = 140) -> str:
    console = Console(file=io.StringIO(), width=width, record=True)
    console.print(renderable)
    return console.export_text()


def test_unit_cell_shows_gonke_longtooths_arrows_in_world_orientation() -> None:
    gonke = CORE["orcs:01"]
    assert render.attacks_text(gonke) == "FL5 F5 FR5"
    top, name, middle, bottom = render.unit_cell(gonke, 1).plain.split("\n")
    assert top.split() == ["↖5", "↑5", "↗5"]
    assert "G" in name and "Longtooth" in name
    assert "D6" in middle and "inf" in middle
    assert bottom.strip() == ""
    # Player 2's general faces down the mat: the same arrows turned 180 degrees.
    top2, _, _, bottom2 = render.unit_cell(gonke, 2).plain.split("\n")
    assert top2.strip() == ""
    assert bottom2.split() == ["↙5", "↓5", "↘5"]


def test_unit_cell_shows_side_arrows_and_ranged_damage() -> None:
    catapult = CORE["orcs:24"]  # L1 R1, ranged 4
    _, _, middle, _ = render.unit_cell(catapult, 1).plain.split("\n")
    assert middle.startswith("←1") and middle.endswith("→1")
    assert "⊕4" in middle and "D4" in middle


def test_target_grid_is_drawn_in_world_orientation() -> None:
    axethrower = CORE["dwarves:07"]  # shoots the two rows behind it
    assert render.target_grid(axethrower, 1).plain.split("\n") == ["·U·", "■■■", "■■■"]
    assert render.target_grid(axethrower, 2).plain.split("\n") == ["■■■", "■■■", "·U·"]


def test_short_names_fit_the_square() -> None:
    assert render.short_name("Orc Warhog", 13) == "Orc Warhog"
    assert render.short_name("Dwarf Marauder", 13) == "D. Marauder"
    assert render.short_name("Orc Deathbringer", 13) == "Deathbringer"
    assert all(len(render.short_name(c.name, 13)) <= 13 for c in CORE.values())


def test_mat_has_row_1_at_the_bottom_and_columns_a_to_g() -> None:
    pos = notation.deal(DECKS, 7, Variant(), CORE)
    pos.push("deploy orcs:01 c3")
    text = plain(render.render_mat(pos, highlight={mat.parse("c3")}))
    lines = text.splitlines()
    header = lines[1]
    assert [c for c in header if c.isalpha()] == list("abcdefg")
    row_of = {label: i for i, line in enumerate(lines) for label in "123456" if line.startswith(f"│{label}│")}
    assert row_of["6"] < row_of["5"] < row_of["1"]
    assert "G. Longtooth" in text and "↖5" in text


def test_unbordered_mat_shows_the_units_bounding_box_with_x_and_y() -> None:
    pos = notation.deal(DECKS, 7, Variant(mat="unbordered"), CORE)
    pos.push("deploy orcs:01 c3")
    assert render.mat_bounds(pos) == (range(1, 4), range(1, 4))
    text = plain(render.render_mat(pos))
    assert "x=1" in text and "x=3" in text and "y=1" in text
    assert "b2" in text and "d4" in text


def test_counters_turn_yellow_then_red_near_a_threshold() -> None:
    assert render.threshold_style(11, 20) == ""
    assert render.threshold_style(12, 20) == "bold yellow"
    assert render.threshold_style(16, 20) == "bold red"
    assert render.threshold_style(3, 4) == "bold yellow"  # 75 %


def test_events_are_told_as_sentences() -> None:
    pos = notation.deal(DECKS, 7, Variant(), CORE)
    lines: list[str] = []
    for action in ["deploy orcs:01 c3", "draw"]:
        before = pos.copy()
        lines += [t.plain for t in render.describe_events(pos.push(action), before)]
    assert lines == ["Player 1 deploys Gonke Longtooth on c3", "Player 1 draws a card"]
    narrator = render.EventNarrator(pos)
    told = [
        narrator.describe({"type": "eliminated", "square": "c3", "card": "orcs:01", "owner": 1}).plain,
        narrator.describe({"type": "reveal", "player": 2, "hand": ["dwarves:01"]}).plain,
        narrator.describe({"type": "extra_turn", "player": 1}).plain,
        narrator.describe(
            {
                "type": "result",
                "winner": 2,
                "reason": "4 command units eliminated",
                "termination": "commands",
                "count": 4,
            }
        ).plain,
        narrator.describe({"type": "timeout", "player": 2}).plain,
        narrator.describe({"type": "abort", "player": 1}).plain,
        narrator.describe({"type": "draw_agreed"}).plain,
    ]
    assert told[0] == "Gonke Longtooth on c3 eliminated"
    assert told[1] == "Player 2's hand revealed: Krod Klouthammer"
    assert told[2].startswith("extra turn for player 1")
    assert told[3] == "Player 2 wins: 4 command units eliminated"
    assert told[4:] == ["Player 2 is out of time", "Player 1 aborts the game", "Both players agree to a draw"]


def test_berserker_advance_is_told_with_the_unit_name() -> None:
    pos = notation.deal(DECKS, 7, Variant(), CORE)
    narrator = render.EventNarrator(pos)
    narrator.describe({"type": "deploy", "card": "orcs:02", "square": "d3", "player": 1, "forced": False})
    assert narrator.describe({"type": "advance", "from": "d3", "to": "c4", "owner": 1, "card": "orcs:02"}).plain == (
        "berserker Orc Deathbringer advances d3 -> c4"
    )


def test_card_detail_lists_every_fact() -> None:
    text = plain(render.render_card(CORE["orcs:24"]))
    for fact in ["Orc Catapult", "orcs:24", "veteran", "ranged", "support unit", "L1 R1", "⊕4", "targets"]:
        assert fact in text


def test_actions_are_numbered_in_order_and_grouped_by_card() -> None:
    actions = ["deploy orcs:07 c4", "deploy orcs:07 d4", "draw", "shoot d2 d5"]
    text = plain(render.render_actions(actions, CORE))
    assert "deploy orcs:07 Orc Warhog" in text
    assert "1:c4" in text and "2:d4" in text and "3 draw" in text and "4:d5" in text


# --- a decision of the other player inside one's turn ----------------------------------------------


def berserker_choice_position() -> Position:
    """Player 1 to deploy; deploying the Orc Warhog on d3 lets player 2's Deathbringer on d4
    eliminate both d3 and e3, so player 2 must choose where it advances (clarifications 6.2)."""
    doc = {
        "format": "lordsofwar-position",
        "version": 1,
        "turn": 9,
        "to_move": 1,
        "board": [
            {"square": "d4", "card": "orcs:15", "owner": 2},
            {"square": "e3", "card": "orcs:06", "owner": 1},
        ],
        "players": {
            "1": {"army": "orcs", "hand": ["orcs:07"], "deck": ["orcs:09"]},
            "2": {"army": "orcs", "hand": ["orcs:11"], "deck": ["orcs:14"]},
        },
    }
    return notation.parse_position(doc, CORE)


def play_loop(pos: Position, answers: list[str], **kw: object) -> tuple[PlayLoop, list[str], Console]:
    console = make_console()
    prompts: list[str] = []
    it = iter(answers)

    def read_line(prompt: str) -> str:
        prompts.append(prompt)
        try:
            return next(it)
        except StopIteration:
            raise EOFError from None

    args: dict[str, object] = {"bots": {}, "hot_seat": False, "human_player": 1}
    args.update(kw)
    loop = PlayLoop(
        pos=pos,
        record=notation.GameRecord(DECKS, 0),
        names=("alice", "bob"),
        console=console,
        read_line=read_line,
        **args,  # type: ignore[arg-type]
    )
    loop.run()
    return loop, prompts, console


def test_the_bot_makes_its_berserker_choice_inside_the_humans_turn() -> None:
    pos = berserker_choice_position()
    loop, prompts, console = play_loop(pos, ["deploy orcs:07 d3", "quit"], bots={2: RandomBot(1)})
    assert loop.record.actions[0] == "deploy orcs:07 d3"
    assert loop.record.actions[1] in ("advance d4 d3", "advance d4 e3")
    assert len(prompts) == 2 and all(p.startswith("Player 1") for p in prompts), "no prompt for the bot's choice"
    assert pos.to_move == 1 and pos.phase == "post"
    assert "berserker Orc Deathbringer advances d4 -> " in console.export_text()


def test_hot_seat_passes_the_device_for_a_berserker_choice_and_back() -> None:
    pos = berserker_choice_position()
    loop, prompts, console = play_loop(pos, ["", "deploy orcs:07 d3", "", "1", "", "quit"], hot_seat=True)
    assert loop.record.actions == ["deploy orcs:07 d3", "advance d4 d3"]
    assert [p[:8] for p in prompts] == ["", "Player 1", "", "Player 2", "", "Player 1"]
    text = console.export_text()
    assert "Pass the device to Player 2" in text and "(berserker choice)" in text


# --- the screen at the sizes of real terminals (user test: numbering, cut ids, screen height) ---------

TERMINALS = ((80, 30), (100, 40), (120, 50))
"""(columns, lines) of the terminals the screen must fit."""

_ITEM = re.compile(r"^(\d+):(\S+)$")


def _expand(spec: str) -> list[int]:
    """``1-3,7`` -> [1, 2, 3, 7]."""
    out: list[int] = []
    for part in spec.split(","):
        first, _, last = part.partition("-")
        out.extend(range(int(first), int(last or first) + 1))
    return out


def listed_actions(screen: str) -> tuple[dict[int, str], int]:
    """What the action list of a screen says: {number: action text} rebuilt from the group
    labels (``deploy orcs:07 Orc Warhog``, ``shoot from d2 to``) and their ``number:square``
    items, one or more groups a line; and how many actions it says it does not show."""
    lines = screen.splitlines()
    start = next(i for i, line in enumerate(lines) if "Your actions (" in line)
    header = lines[start]
    hidden = re.search(r"(\d+) not shown", header)
    boxed = header.lstrip().startswith("╭")
    shown: dict[int, str] = {}
    label: list[str] = []
    tokens: list[str] = []
    for raw in lines[start + 1 :]:
        if boxed and raw.startswith("╰"):
            break
        tokens.extend((raw[2:-2] if boxed else raw).split())
    reading_label = False
    i = 0
    while i < len(tokens):
        token = tokens[i]
        i += 1
        item = _ITEM.match(token)
        if item is not None:
            reading_label = False
            n, square = int(item.group(1)), item.group(2)
            verb = label[0]
            if verb == "deploy":
                shown[n] = f"deploy {label[1]} {square}"
            elif verb == "recall":
                shown[n] = f"recall {square}"
            elif verb in ("advance", "shoot"):  # "advance berserker d4 to", "shoot from d2 to"
                shown[n] = f"{verb} {label[2]} {square}"
            elif verb == "move":
                shown[n] = f"move {label[1]} {square}"
            else:
                raise AssertionError(f"unreadable action group: {label!r}")
        elif token.isdigit():  # an action on its own: "3 draw"
            reading_label = False
            shown[int(token)] = tokens[i]
            i += 1
        elif token == "…":  # "… and 12 more actions"
            reading_label = False
            i += 4
        elif token.startswith("+") or token == "more":  # "+8 more"
            reading_label = False
        elif reading_label:
            label.append(token)
        else:
            label, reading_label = [token], True
    return shown, int(hidden.group(1)) if hidden else 0


def hand_numbers(screen: str) -> dict[str, list[int]]:
    """{card id: the numbers shown with it} for the hand cards on a screen: a drawn card has
    its id on its top edge and its numbers on its bottom edge; a card on a line is ``[n] id``."""
    lines = screen.splitlines()
    found: dict[str, list[int]] = {}
    for i, line in enumerate(lines):
        for top in re.finditer(r"╭─ (\S+) ─", line):
            col = top.start()
            j = i + 1
            while j < len(lines) and (len(lines[j]) <= col or lines[j][col] != "╰"):
                j += 1
            bottom = re.match(r"╰─ (?:deploy )?([\d,\-]+) ─", lines[j][col:]) if j < len(lines) else None
            found[top.group(1)] = _expand(bottom.group(1)) if bottom else []
    for entry in re.finditer(r"\[([\d,\-]+)\] (\S+:\d+)", screen):
        found[entry.group(2)] = _expand(entry.group(1))
    return found


def deploys(actions: list[str], card_id: str) -> list[int]:
    return [n for n, a in enumerate(actions, 1) if a.startswith(f"deploy {card_id} ")]


def random_game(seed: int, turns: int, variant: Variant | None = None, armies: tuple[str, str] = ("undead", "orcs")):
    """The position after ``turns`` random legal actions from a seeded deal."""
    pos = notation.deal([CORE.standard_deck(a) for a in armies], seed, variant or Variant(), CORE)
    rng = random.Random(seed)
    for _ in range(turns):
        assert pos.result is None
        pos.push(rng.choice(sorted(str(a) for a in pos.legal_actions())))
    assert pos.result is None
    return pos


def answering(text: str) -> Callable[[str], str]:
    """An answer for :func:`first_screen` that types ``text`` whatever the screen shows."""
    return lambda screen: text


def first_screen(
    pos: Position, width: int, height: int, answer: Callable[[str], str] = lambda screen: "quit"
) -> tuple[PlayLoop, str, str]:
    """Run the loop on a copy of ``pos`` in a terminal of ``width`` x ``height``: the loop after
    it was given ``answer(first screen)`` (then end of input), the first screen printed and
    what was printed after the answer."""
    console = Console(file=io.StringIO(), width=width, height=height, record=True)
    screens: list[str] = []

    def read_line(prompt: str) -> str:
        screens.append(console.export_text(clear=True))
        if len(screens) > 1:
            raise EOFError
        return answer(screens[0])

    loop = PlayLoop(
        pos=pos.copy(),
        record=notation.GameRecord(DECKS, 0),
        bots={},
        hot_seat=False,
        human_player=pos.decider,
        names=("alice", "bob"),
        console=console,
        read_line=read_line,
    )
    loop.run()
    after = screens[1] if len(screens) > 1 else console.export_text()
    return loop, screens[0], after


def test_number_ranges_are_written_short() -> None:
    assert render.number_ranges([5]) == "5"
    assert render.number_ranges([11, 12, 13, 14]) == "11-14"
    assert render.number_ranges([1, 2, 7]) == "1,2,7"
    assert render.number_ranges([3, 1, 2, 9, 10, 11]) == "1-3,9-11"
    assert _expand("1-3,9-11") == [1, 2, 3, 9, 10, 11]


def test_the_numbers_on_the_screen_are_the_numbers_typed() -> None:
    """User test: typing 1 deployed another card than the hand card shown as 1. The hand cards
    now show the numbers of the actions that deploy them, from the one numbering the prompt
    takes; typing a number shown on the screen does what the screen says it does."""
    positions = [
        notation.deal([CORE.standard_deck("undead"), CORE.standard_deck("orcs")], 3, Variant(), CORE),
        random_game(2, 122),  # 11 units on the mat, 95 actions
        random_game(4, 159, Variant(mat="unbordered")),  # 175 actions
    ]
    for width, height in TERMINALS:
        for pos in positions:
            actions = sorted(str(a) for a in pos.legal_actions())
            _, screen, _ = first_screen(pos, width, height)
            numbers = hand_numbers(screen)
            hand = [c for c in pos.hands[pos.decider] if c is not None]
            for card_id in hand:
                assert numbers.get(card_id) == deploys(actions, card_id), (width, card_id, screen)
            shown, hidden = listed_actions(screen)
            assert shown and len(shown) + hidden == len(actions)
            for n, text in shown.items():
                assert actions[n - 1] == text, (width, n, text)
            # Type numbers read off the screen: a hand card's first and last, a listed action.
            numbered = [numbers[c] for c in hand if numbers[c]]
            chosen = {numbered[0][0], numbered[-1][-1], sorted(shown)[len(shown) // 2]}
            for n in chosen:
                loop, again, _ = first_screen(pos, width, height, answering(str(n)))
                assert again == screen
                played = loop.record.actions[0]
                assert played == actions[n - 1]
                if n in shown:
                    assert played == shown[n]
                owner = [c for c in hand if n in numbers[c]]
                if owner:
                    assert played.startswith(f"deploy {owner[0]} ")


def test_card_ids_and_actions_are_never_cut_at_80_100_or_120_columns() -> None:
    """User test: at 100 columns "undead:12" was drawn "undead:1". For every army, every card id
    of the hand and every action listed is whole, and every empty square shows its name."""
    armies = CORE.armies
    assert len(armies) == 6
    for i, army in enumerate(armies):
        opponent = armies[(i + 1) % 6]
        opening = notation.deal([CORE.standard_deck(army), CORE.standard_deck(opponent)], i, Variant(), CORE)
        later = random_game(i, 40, armies=(army, opponent))
        for pos in (opening, later):
            actions = sorted(str(a) for a in pos.legal_actions())
            for width, height in TERMINALS:
                _, screen, _ = first_screen(pos, width, height)
                written = re.findall(rf"(?<![\w:])(?:{'|'.join(armies)}):[\w…]*", screen)
                assert written and set(written) <= set(CORE), (army, width, set(written) - set(CORE))
                for card_id in pos.hands[pos.decider]:
                    assert card_id is not None
                    assert re.search(rf"(?<![\w:]){re.escape(card_id)}(?![\w…])", screen), (army, width, card_id)
                shown, hidden = listed_actions(screen)
                assert len(shown) + hidden == len(actions)
                for n, text in shown.items():
                    assert actions[n - 1] == text, (army, width, n, text)
                for sq in mat.ON_MAT - set(pos.board):
                    assert re.search(rf"(?<!\w){mat.name(sq)}(?!\w)", screen), (army, width, mat.name(sq))


def _mat_labels_shown(pos: Position, screen: str) -> None:
    """Every row and column of the drawn mat is on the screen."""
    xs, ys = render.mat_bounds(pos)
    lines = screen.splitlines()
    for y in ys:
        label = f"{y + 1}│" if pos.variant.bordered else f"y={y}"
        assert any(label in line[:8] for line in lines), f"row {label} not on the screen"
    header = "\n".join(lines[:4])
    for x in xs:
        label = mat.COLUMNS[x] if pos.variant.bordered else str(x)
        assert re.search(rf"(?<![\w-]){label}(?!\w)", header), f"column {label} not on the screen"


def test_the_whole_screen_fits_the_terminal_with_the_whole_mat() -> None:
    """User test: at 100 columns the mat scrolled off the screen. In crowded games, on both
    mats, the screen and the prompt fit the height the console reports, the mat drawn whole."""
    crowded = [
        random_game(7, 90),  # 13 units
        random_game(2, 122, Variant(hands="visible")),  # both hands shown
        random_game(4, 159, Variant(mat="unbordered")),  # a 10 x 10 mat
        random_game(2, 84, Variant(mat="unbordered")),  # a 17 x 7 mat
    ]
    xs, ys = render.mat_bounds(crowded[2])
    assert len(xs) * len(ys) >= 100
    for width, height in TERMINALS:
        for pos in crowded:
            _, screen, _ = first_screen(pos, width, height)
            lines = screen.splitlines()
            assert len(lines) + 1 <= height, (width, height, len(lines), screen)
            assert max(len(line) for line in lines) <= width
            _mat_labels_shown(pos, screen)
            if pos.variant.bordered:
                for sq in mat.ON_MAT - set(pos.board):
                    assert re.search(rf"(?<!\w){mat.name(sq)}(?!\w)", screen), (width, mat.name(sq))


def test_a_condensed_action_list_says_how_to_see_it_all() -> None:
    pos = random_game(4, 159, Variant(mat="unbordered"))
    actions = sorted(str(a) for a in pos.legal_actions())
    loop, screen, everything = first_screen(pos, 80, 30, lambda screen: "actions")
    shown, hidden = listed_actions(screen)
    assert hidden > 0 and len(shown) + hidden == len(actions)
    assert f"{hidden} not shown: type 'actions' to see all" in screen
    listed, none_hidden = listed_actions(everything)
    assert none_hidden == 0
    assert listed == dict(enumerate(actions, 1))
    assert loop.record.actions == []

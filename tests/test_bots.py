"""Bots: the interface, the random bot, and what a bot is allowed to see."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from lordsofwar import bots
from lordsofwar.bots import Bot, make_bot
from lordsofwar.bots.random_bot import RandomBot
from lordsofwar.rules import notation
from lordsofwar.rules.cards import CORE
from lordsofwar.rules.state import Action, Position, Variant
from lordsofwar.tui import run_play

DECKS = [CORE.standard_deck("orcs"), CORE.standard_deck("dwarves")]


def test_random_bot_is_a_bot_and_picks_a_legal_action_of_its_view() -> None:
    pos = notation.deal(DECKS, 3, Variant(), CORE)
    view = notation.view(pos, 1)
    bot = RandomBot(1)
    assert isinstance(bot, Bot)
    action = bot.choose(view)
    assert action in view.legal_actions()
    assert str(action) in {str(a) for a in pos.legal_actions()}


def test_random_bot_with_a_seed_plays_the_same_game_twice() -> None:
    def game(seed: int) -> list[str]:
        pos = notation.deal(DECKS, 11, Variant(), CORE)
        players = {1: RandomBot(seed), 2: RandomBot(seed + 1)}
        actions: list[str] = []
        while pos.result is None and len(actions) < 60:
            action = players[pos.decider].choose(notation.view(pos, pos.decider))
            actions.append(str(action))
            pos.push(str(action))
        return actions

    assert game(5) == game(5)
    assert game(5) != game(6)


def test_random_bot_refuses_a_view_without_legal_actions() -> None:
    pos = notation.deal(DECKS, 3, Variant(), CORE)
    from lordsofwar.rules import engine

    engine.resign(pos, 1)
    with pytest.raises(ValueError, match="no legal action"):
        RandomBot(0).choose(pos)


def test_make_bot_knows_random_and_names_the_known_bots_otherwise() -> None:
    assert isinstance(make_bot("random", 3), RandomBot)
    with pytest.raises(ValueError, match="known: random"):
        make_bot("grandmaster")


class SpyBot:
    """Records every object the game loop hands it, then plays like the random bot."""

    name = "spy"

    def __init__(self, seed: int | None) -> None:
        self.inner = RandomBot(seed)
        self.seen: list[Position] = []

    def choose(self, view: Position) -> Action:
        self.seen.append(view.copy())
        return self.inner.choose(view)


def test_a_bot_in_the_game_loop_sees_only_its_own_view(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    spies: list[SpyBot] = []

    def factory(seed: int | None) -> SpyBot:
        spies.append(SpyBot(seed))
        return spies[-1]

    monkeypatch.setitem(bots.BOTS, "spy", factory)
    answers = iter(["1"] * 40)

    def read_line(prompt: str) -> str:
        try:
            return next(answers)
        except StopIteration:
            raise EOFError from None

    console = Console(file=io.StringIO(), width=140, record=True)
    rc = run_play(
        decks=DECKS,
        seed=21,
        variant=Variant(hands="hidden"),
        cards=CORE,
        opponent="spy",
        human_player=1,
        save=None,
        names=("me", "spy"),
        console=console,
        read_line=read_line,
        bot_seed=4,
    )
    assert rc == 0
    (spy,) = spies
    assert len(spy.seen) >= 10
    for view in spy.seen:
        assert view.decider == 2
        assert view.hands[1], "the human's hand is never empty early in the game"
        assert all(card is None for card in view.hands[1]), "the opponent's hand must be hidden"
        assert all(card is not None for card in view.hands[2]), "the bot sees its own hand"
        for p in (1, 2):
            assert all(card is None for card in view.decks[p]), "deck contents and order must be hidden"
        assert view.is_view


class CheatingBot:
    """Answers with an action that is not legal now."""

    name = "cheater"

    def __init__(self, seed: int | None) -> None:
        pass

    def choose(self, view: Position) -> Action:
        return Action("pass")


def test_a_bot_answering_an_illegal_action_stops_the_game_with_a_message(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(bots.BOTS, "cheater", CheatingBot)
    console = Console(file=io.StringIO(), width=140, record=True)
    save = tmp_path / "stopped.json"
    rc = run_play(
        decks=DECKS,
        seed=1,
        variant=Variant(),
        cards=CORE,
        opponent="cheater",
        human_player=2,
        save=save,
        names=("cheater", "me"),
        console=console,
        read_line=lambda prompt: "quit",
    )
    assert rc == 1
    assert "the cheater bot chose 'pass', which is not a legal action now" in console.export_text()
    assert notation.parse_record(notation.loads(save.read_text(), "game")).actions == []

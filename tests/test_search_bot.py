"""The search bots: decided from the bot's own knowledge only, legal in every variant, within
their budgets, and the top level beats random; the tools around them (match, analyse, ladder)."""

from __future__ import annotations

import json
import math
import random
from typing import Any

import pytest
from click.testing import CliRunner

from lordsofwar import core
from lordsofwar.bots import BOTS, SEARCH_LEVELS, make_bot
from lordsofwar.bots import ladder as ladder_mod
from lordsofwar.bots.analysis import analyse_record, hint
from lordsofwar.bots.play import ask, deal_for, play_game, wilson
from lordsofwar.bots.search import LEVELS, SearchBot, pool_of, rank_prior
from lordsofwar.cli import cli
from lordsofwar.rules import notation
from lordsofwar.rules.cards import CORE, DECK_SIZE, RANK_COUNTS
from lordsofwar.rules.events import Event
from lordsofwar.rules.knowledge import known_hands
from lordsofwar.rules.state import Position, Result, Termination, Variant

pytestmark = pytest.mark.skipif(core.IMPLEMENTATION != "native", reason="the search bots need the compiled core")


def midgame(
    seed: int, actions: int = 30, variant: Variant | None = None
) -> tuple[Position, list[Event], list[list[str]]]:
    """A position some actions into a greedy-against-greedy game, its events and decks."""
    decks, pos = deal_for(seed, variant)
    bots = {1: make_bot("greedy", 1), 2: make_bot("greedy", 2)}
    events: list[Event] = []
    for _ in range(actions):
        if pos.result is not None:
            break
        events.extend(pos.push(ask(bots[pos.decider], pos, events, decks[pos.decider - 1])))
    while pos.result is None and len(pos.legal_actions()) < 3:
        events.extend(pos.push(ask(bots[pos.decider], pos, events, decks[pos.decider - 1])))
    return pos, events, decks


def rehide(pos: Position, seed: int) -> Position:
    """Another real position with the same views: the decider's opponent's hand and deck cards
    exchanged at random, and both decks shuffled."""
    out = pos.copy()
    rng = random.Random(seed)
    opp = 3 - pos.decider
    pool = list(out.hands[opp]) + list(out.decks[opp])
    rng.shuffle(pool)
    n = len(out.hands[opp])
    out.hands[opp] = pool[:n]
    out.decks[opp] = pool[n:]
    own = list(out.decks[pos.decider])
    rng.shuffle(own)
    out.decks[pos.decider] = own
    return out


@pytest.mark.parametrize("seed", [3, 8])
def test_a_choice_depends_on_the_view_only(seed: int) -> None:
    pos, events, decks = midgame(seed)
    me = pos.decider
    others = [rehide(pos, s) for s in range(4)]
    assert any(o.hands[3 - me] != pos.hands[3 - me] or o.decks[me] != pos.decks[me] for o in others)
    for level in ("veteran", "general"):
        choices = set()
        for real in [pos, *others]:
            assert notation.view_json(real, me) == notation.view_json(pos, me)
            bot = SearchBot(LEVELS[level], 11)
            choices.add(
                str(
                    bot.analyse(
                        notation.view(real, me), known=known_hands(events, me), deck=decks[me - 1], iterations=800
                    ).choice
                )
            )
        assert len(choices) == 1, f"{level}: the choice changed with cards it cannot see: {choices}"
    hints = {hint(real, events, decks[me - 1], seed=5, seconds=0.2)["action"] for real in [pos, *others[:2]]}
    # a time budget may end the search at a different iteration; the iteration cap makes it exact
    assert all(h in {str(a) for a in pos.legal_actions()} for h in hints)


VARIANTS = [
    Variant(),
    Variant(rules="basic"),
    Variant(hands="visible"),
    Variant(mat="unbordered"),
    Variant(units_to_win=15, commands_to_win=3),
    Variant(rules="basic", hands="visible", mat="unbordered", units_to_win=25, commands_to_win=5, no_progress_turns=0),
]


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.to_json().__repr__()[:60])
def test_every_choice_is_legal_in_every_variant(variant: Variant) -> None:
    for level in ("recruit", "veteran"):
        outcome = play_game({1: make_bot(level, 1), 2: make_bot("greedy", 2)}, 40 + len(level), variant)
        assert outcome.winner in (1, 2, None) and outcome.actions  # ask() refused nothing illegal
        result = outcome.result
        assert result is not None and result.winner == outcome.winner and result.reason == outcome.reason
        decks = deal_for(40 + len(level), variant)[0]
        replayed = notation.replay(
            notation.GameRecord(decks, 40 + len(level), variant, ["a", "b"], outcome.actions, result)
        )
        assert replayed[-1].result == result


def test_the_time_budget_holds() -> None:
    pos, events, decks = midgame(5, 40)
    view = notation.view(pos, pos.decider)
    bot = SearchBot(LEVELS["general"], 1)
    for budget in (0.05, 0.2):
        found = bot.analyse(
            view, known=known_hands(events, pos.decider), deck=decks[pos.decider - 1], seconds=budget, iterations=10**9
        )
        assert found.seconds <= budget * 1.1 + 0.01, f"{found.seconds:.3f} s for a {budget} s budget"
        assert found.iterations > 10
    capped = bot.analyse(view, iterations=123, seconds=60)
    assert capped.iterations == 123


def test_the_top_level_beats_random_in_every_game() -> None:
    for seed in range(2):  # a game from each seat
        a_seat = 1 + seed % 2
        outcome = play_game({a_seat: make_bot("general", seed), 3 - a_seat: make_bot("random", seed)}, 100 + seed)
        assert outcome.winner == a_seat, f"game {100 + seed}: {outcome.reason}"


def test_the_levels_are_named_weakest_first() -> None:
    assert list(BOTS) == ["random", "recruit", "greedy", "scout", "veteran", "elite", "general", "marshal"]
    assert set(SEARCH_LEVELS) == set(LEVELS)
    caps = [LEVELS[n].iterations for n in ("veteran", "elite", "general")]
    assert caps == sorted(caps) and LEVELS["general"].seconds <= 1.0
    with pytest.raises(ValueError, match="known: random, recruit, greedy, scout"):
        make_bot("oracle")


# --- what a bot may know ---------------------------------------------------------------------------


def test_known_hands_follow_reveals_deployments_and_recalls() -> None:
    events: list[Event] = [
        {"type": "reveal", "player": 2, "hand": ["orcs:01", "orcs:02", "orcs:02"]},
        {"type": "deploy", "player": 2, "card": "orcs:02", "square": "c3", "forced": True},
        {"type": "draw", "player": 2},
        {"type": "recall", "player": 1, "card": "elves:04", "square": "d4"},
        {"type": "deploy", "player": 2, "card": "orcs:09", "square": "c4", "forced": False},
    ]
    assert known_hands(events, viewer=1) == {2: ["orcs:01", "orcs:02"]}
    assert known_hands(events, viewer=2) == {1: ["elves:04"]}
    assert known_hands(events) == {1: ["elves:04"], 2: ["orcs:01", "orcs:02"]}
    again: list[Event] = [*events, {"type": "reveal", "player": 2, "hand": ["orcs:05"]}]
    assert known_hands(again, 1) == {2: ["orcs:05"]}


def test_a_known_hand_card_is_used_and_an_unknown_deck_gets_the_documented_prior() -> None:
    pos, _events, decks = midgame(4)
    me, opp = pos.decider, 3 - pos.decider
    view = notation.view(pos, me)
    rng = random.Random(1)
    standard = pool_of(view, opp, None, rng)
    wanted = view.hands[opp].count(None) + view.decks[opp].count(None)
    assert len(standard) >= wanted
    assert sorted(standard) == sorted(standard_minus_seen(view, opp))
    # a custom deck: the opponent's army is unknown, so the rank prior fills it
    custom = view.copy()
    custom.armies[opp] = "mercenary"
    prior = pool_of(custom, opp, None, rng)
    assert len(prior) >= wanted
    prior36 = rank_prior(CORE, [], random.Random(2))
    assert len(prior36) == DECK_SIZE
    assert {r: sum(CORE.card(c).rank == r for c in prior36) for r in RANK_COUNTS} == RANK_COUNTS
    # the bot's own custom deck is its own list
    own = pool_of(view, me, decks[me - 1], rng)
    assert len(own) == view.decks[me].count(None) + view.hands[me].count(None)


def standard_minus_seen(view: Position, player: int) -> list[str]:
    from lordsofwar.core.encoding import standard_pool

    found = standard_pool(view, player)
    assert found is not None
    return found


# --- matches, analysis, the ladder ---------------------------------------------------------------


def test_wilson_interval() -> None:
    lo, hi = wilson(380, 400)
    assert 0.92 < lo < 0.95 < hi < 0.97
    assert wilson(0, 0) == (0.0, 1.0)


def test_match_command_prints_the_score_with_its_interval() -> None:
    r = CliRunner().invoke(cli, ["match", "greedy", "random", "--games", "2", "--workers", "1", "--json"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.output)
    assert doc["games"] == 2 and doc["wins"] + doc["draws"] + doc["losses"] == 2
    assert 0 <= doc["interval"][0] <= doc["score"] <= doc["interval"][1] <= 1
    r = CliRunner().invoke(cli, ["match", "greedy", "oracle"])
    assert r.exit_code == 2 and "oracle" in r.output


def test_analysis_judges_every_decision_from_the_players_knowledge(tmp_path: Any) -> None:
    outcome = play_game({1: make_bot("random", 1), 2: make_bot("greedy", 2)}, 9)
    decks, _ = deal_for(9)
    record = notation.GameRecord(decks, 9, Variant(), ["r", "g"], outcome.actions, outcome.result)
    found = analyse_record(record, iterations=150)
    assert len(found["decisions"]) == len(outcome.actions)
    assert len(found["graph"]) == len(outcome.actions) + 1
    assert all(0 <= p <= 1 for p in found["graph"])
    assert found["graph"][-1] == (1.0 if outcome.winner == 1 else 0.0)
    judged = [d for d in found["decisions"] if not d["forced"]]
    assert judged and all(d["best"] and 0 <= d["win_best"] <= 1 for d in judged)
    # random play makes mistakes, and a mistake is a drop past the threshold
    marked = [d for d in found["decisions"] if d["verdict"]]
    assert marked and all(d["drop"] >= 0.1 and d["best"] != d["played"] for d in marked)
    assert found["mistakes"] == [d["n"] for d in marked]
    path = tmp_path / "game.json"
    path.write_text(notation.dumps(record.to_json()))
    r = CliRunner().invoke(cli, ["analyse", str(path), "--iterations", "100", "--json"])
    assert r.exit_code == 0, r.output[-500:]
    assert len(json.loads(r.output)["graph"]) == len(outcome.actions) + 1
    r = CliRunner().invoke(cli, ["analyse", str(path), "--iterations", "100"])
    assert r.exit_code == 0 and "mistakes" in r.output
    path.write_text("{}")
    r = CliRunner().invoke(cli, ["analyse", str(path)])
    assert r.exit_code == 2 and r.output.startswith("error:")


def test_the_stored_ladder_names_known_levels() -> None:
    ratings = ladder_mod.ratings()
    assert set(ratings) <= set(BOTS)
    if ratings:
        assert ratings.get("greedy") == 1000
        order = [ratings[n] for n in BOTS if n in ratings]
        assert order == sorted(order), "the stored ladder does not rise with the levels"


def test_a_search_bot_needs_legal_actions() -> None:
    pos, _e, _d = midgame(2)
    finished = pos.copy()
    finished.result = Result(1, Termination.RESIGNATION, player=2)
    bot = SearchBot(LEVELS["recruit"], 0)
    with pytest.raises(ValueError):
        bot.choose(notation.view(finished, 1))
    assert not math.isnan(bot.analyse(notation.view(pos, pos.decider)).value)

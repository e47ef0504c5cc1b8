"""The search guided by a network, both ways: its priors in the selection and its value at the
leaves, or (``prior_visits``, the `marshal` level) its priors ordering the expansions of the nodes
visited most. Decided from the bot's view alone, led by the priors and the values it is given,
legal on both mats (the other mat's games searched without the network)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from lordsofwar import core
from lordsofwar.bots import make_bot
from lordsofwar.bots.play import deal_for, play_game
from lordsofwar.bots.policy import PolicyError, save_network, save_policy
from lordsofwar.bots.search import DATA, LEVELS, SearchBot, load_network, network_for
from lordsofwar.rl.config import Config
from lordsofwar.rules import notation
from lordsofwar.rules.knowledge import known_hands
from lordsofwar.rules.state import Position, Variant
from tests.test_core_net import random_network
from tests.test_search_bot import midgame, rehide

pytestmark = pytest.mark.skipif(core.IMPLEMENTATION != "native", reason="the search bots need the compiled core")

CONFIG = Config.of()
INFO_START = CONFIG.planes_size
LOST_MINE, LOST_THEIRS = INFO_START + 240 + 4, INFO_START + 240 + 5
"""Where the observation holds the decider's units lost and the opponent's (scaled by 1 / 36)."""


def level_with(path: Path, iterations: int = 300, hit_prior: float = 0.0) -> SearchBot:
    level = replace(
        LEVELS["general"], name="marshal", network=str(path), iterations=iterations, seconds=0, hit_prior=hit_prior
    )
    return SearchBot(level, 7)


def material_network(path: Path, favourite: int | None = None, weight: float = 40.0) -> Path:
    """A hand-made network: its value is tanh(``weight`` x (units the opponent lost - units the
    decider lost) / 36); its policy is uniform, or all on the action id ``favourite``."""
    w0 = np.zeros((CONFIG.observation_size, 2), np.float32)
    w0[LOST_THEIRS, 0] = w0[LOST_MINE, 1] = 1
    b1 = np.zeros(CONFIG.num_actions, np.float32)
    if favourite is not None:
        b1[favourite] = 30
    policy = [(w0, np.zeros(2, np.float32)), (np.zeros((2, CONFIG.num_actions), np.float32), b1)]
    value = [(np.array([[weight], [-weight]], np.float32), np.zeros(1, np.float32))]
    meta = {
        "mat": "bordered",
        "frame": [7, 6],
        "observation_size": CONFIG.observation_size,
        "num_actions": CONFIG.num_actions,
        "value_from": 0,
    }
    save_network(path, policy, value, meta)
    return path


def eliminating(pos: Position) -> tuple[set[str], set[str]]:
    """The decider's legal actions that eliminate an enemy unit at once, and the others."""
    opp = 3 - pos.decider
    hit: set[str] = set()
    rest: set[str] = set()
    for action in pos.legal_actions():
        after = pos.copy()
        after.push(action)
        (hit if len(after.lost[opp]) > len(pos.lost[opp]) else rest).add(str(action))
    return hit, rest


def test_the_choice_depends_on_the_view_only(tmp_path: Path) -> None:
    path = random_network(tmp_path / "net.npz")
    pos, events, decks = midgame(3)
    me = pos.decider
    choices = set()
    for real in [pos, *(rehide(pos, s) for s in range(3))]:
        found = level_with(path).analyse(notation.view(real, me), known=known_hands(events, me), deck=decks[me - 1])
        choices.add((str(found.choice), found.iterations, tuple(v for _a, v, _m in found.actions)))
    assert len(choices) == 1, "the search changed with cards it cannot see"


def test_the_priors_lead_the_search(tmp_path: Path) -> None:
    pos, _events, _decks = midgame(8)
    view = notation.view(pos, pos.decider)
    game = core.Game.from_position(view)
    ids = game.legal_ids()
    for favourite in (ids[0], ids[-1]):
        found = level_with(material_network(tmp_path / f"{favourite}.npz", favourite), 200).analyse(view)
        assert str(found.choice) == game.action_text(favourite)
        assert found.actions[0][1] > 150  # most of the iterations: the prior is almost all on it


@pytest.mark.parametrize(("weight", "hit_prior"), [(40.0, 0.0), (0.0, 5.0)], ids=["values", "hit-prior"])
def test_the_values_or_the_elimination_prior_find_an_elimination(
    tmp_path: Path, weight: float, hit_prior: float
) -> None:
    path = material_network(tmp_path / "material.npz", weight=weight)
    tried = 0
    for seed in range(20):
        pos, events, decks = midgame(seed, 20 + seed % 7)
        if pos.result is not None:
            continue
        hit, rest = eliminating(pos)
        if not hit or not rest:
            continue
        tried += 1
        me = pos.decider
        found = level_with(path, 1500 if hit_prior == 0 else 200, hit_prior).analyse(
            notation.view(pos, me), known=known_hands(events, me), deck=decks[me - 1]
        )
        assert str(found.choice) in hit, f"seed {seed}: {found.choice} eliminates nothing"
        if tried == 3:
            break
    assert tried == 3


def ordered_level(path: Path, iterations: int, prior_visits: int) -> SearchBot:
    """A search ordered by the network's priors (``prior_visits``), as `marshal` searches."""
    return SearchBot(replace(level_with(path, iterations).level, prior_visits=prior_visits), 7)


def test_a_node_expands_the_networks_favourite_once_it_has_the_visits(tmp_path: Path) -> None:
    """With ``prior_visits`` the network orders the expansions of a node visited that often: the
    root's second expansion is the favourite of its policy, where the search without the network
    expands an eliminating action or one drawn at random."""
    checked = 0
    for seed in range(12):
        pos, _events, _decks = midgame(seed, 14 + seed)
        if pos.result is not None:
            continue
        hit, rest = eliminating(pos)
        if hit or len(rest) < 8:
            continue  # an eliminating action would be expanded first by either search
        view = notation.view(pos, pos.decider)
        game = core.Game.from_position(view)
        for favourite in (game.legal_ids()[0], game.legal_ids()[-1]):
            path = material_network(tmp_path / f"{favourite}.npz", favourite)
            text = game.action_text(favourite)
            visits = {str(a): v for a, v, _m in ordered_level(path, 2, 1).analyse(view).actions}
            assert visits[text] == 1 and sum(visits.values()) == 2
            # the mark is never reached: the search is the one without a network, visit for visit
            late = ordered_level(path, 40, 41).analyse(view)
            plain = SearchBot(replace(LEVELS["general"], iterations=40, seconds=0), 7).analyse(view)
            assert late.actions == plain.actions
        checked += 1
        if checked == 2:
            break
    assert checked == 2


def test_the_ordered_search_depends_on_the_view_only(tmp_path: Path) -> None:
    path = material_network(tmp_path / "material.npz", weight=0.0)
    pos, events, decks = midgame(5)
    me = pos.decider
    choices = set()
    for real in [pos, *(rehide(pos, s) for s in range(3))]:
        found = ordered_level(path, 400, 4).analyse(
            notation.view(real, me), known=known_hands(events, me), deck=decks[me - 1]
        )
        choices.add((str(found.choice), found.iterations, tuple(v for _a, v, _m in found.actions)))
    assert len(choices) == 1, "the search changed with cards it cannot see"


@pytest.mark.parametrize("prior_visits", [0, 4])
def test_marshal_plays_whole_legal_games_on_both_mats(tmp_path: Path, prior_visits: int) -> None:
    path = random_network(tmp_path / "net.npz")
    for variant in (Variant(), Variant(mat="unbordered", hands="visible")):
        bot = ordered_level(path, 60, prior_visits)
        assert (network_for(bot.level, variant) is None) == (variant.mat == "unbordered")
        outcome = play_game({1: bot, 2: make_bot("greedy", 2)}, 5, variant)
        result = outcome.result
        assert result is not None and outcome.actions  # ask() refused nothing illegal
        record = notation.GameRecord(deal_for(5, variant)[0], 5, variant, ["a", "b"], outcome.actions, result)
        assert notation.replay(record)[-1].result == result


def test_a_file_without_a_value_head_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "policy.npz"
    w = np.zeros((CONFIG.observation_size, CONFIG.num_actions), np.float32)
    meta = {"mat": "bordered", "frame": [7, 6], "observation_size": CONFIG.observation_size}
    save_policy(path, [(w, np.zeros(CONFIG.num_actions, np.float32))], {**meta, "num_actions": CONFIG.num_actions})
    with pytest.raises(PolicyError, match="has no value head"):
        load_network(path)
    with pytest.raises(PolicyError, match="no such file|No such file"):
        load_network(tmp_path / "missing.npz")


def test_the_shipped_network_is_loaded_once_for_the_bordered_mat() -> None:
    level = LEVELS["marshal"]
    assert level.network is not None and (DATA / level.network).is_file()
    network = network_for(level, Variant())
    assert network is not None and network is network_for(level, Variant(hands="visible"))
    assert network.net.inputs == CONFIG.observation_size and network.net.num_actions == CONFIG.num_actions
    assert LEVELS["marshal"].seconds <= 1.0


def test_the_shipped_marshal_plays_a_legal_game_with_its_network() -> None:
    bot = SearchBot(replace(LEVELS["marshal"], iterations=400, seconds=0), 3)
    assert network_for(bot.level, Variant()) is not None and bot.level.prior_visits > 0
    outcome = play_game({1: make_bot("greedy", 1), 2: bot}, 11)
    record = notation.GameRecord(deal_for(11)[0], 11, Variant(), ["a", "b"], outcome.actions, outcome.result)
    assert outcome.result is not None and notation.replay(record)[-1].result == outcome.result

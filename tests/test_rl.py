"""The RL environments (lordsofwar.rl, docs/rl.md): PettingZoo's API and seed tests, Gymnasium's
checker, the vector environment, no hidden information in any observation, clear refusals."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
gymnasium = pytest.importorskip("gymnasium")

from pettingzoo.test import api_test, seed_test  # noqa: E402

import lordsofwar.rl as rl  # noqa: E402
from lordsofwar import core  # noqa: E402
from lordsofwar.core.observation import INFO, PLANES  # noqa: E402
from lordsofwar.rl.config import Config, raw_observation, split_observation  # noqa: E402
from lordsofwar.rules import notation  # noqa: E402
from lordsofwar.rules.errors import IllegalActionError  # noqa: E402

VARIANTS: list[dict[str, Any]] = [
    {},
    {"rules": "basic", "hands": "visible"},
    {"mat": "unbordered", "units_to_win": 15, "commands_to_win": 3},
    {"rules": "basic", "hands": "visible", "mat": "unbordered", "frame": (15, 15), "armies": ["orcs", "elves"]},
]

native = pytest.mark.skipif(core.IMPLEMENTATION != "native", reason="the vector environment's speed needs the core")


@pytest.mark.parametrize("options", VARIANTS)
def test_pettingzoo_api_and_seed_tests(options: dict[str, Any]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the Dict observation's advice to prefer a Box
        api_test(rl.env(**options), num_cycles=400)
    seed_test(lambda: rl.env(**options), num_cycles=200)


def play_random(e: Any, seed: int, limit: int = 5000) -> dict[str, float]:
    """A whole game of uniformly random legal actions; each agent's total reward."""
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    totals = dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter(limit):
        obs, reward, terminated, truncated, _info = e.last()
        totals[agent] += reward
        if terminated or truncated:
            e.step(None)
            continue
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert not e.agents, "the game did not end"
    return totals


def test_a_game_ends_with_a_win_and_a_loss_or_a_draw() -> None:
    for seed in range(3):
        totals = play_random(rl.env(), seed)
        assert sorted(totals.values()) in ([-1.0, 1.0], [0.0, 0.0])


def test_shaped_reward_counts_units_lost() -> None:
    totals = play_random(rl.env(shaped_reward=0.01), 5)
    plain = play_random(rl.env(), 5)
    # the same game (same seed, same actions); shaping adds 0.01 per unit of difference
    assert totals != plain
    assert abs(sum(totals.values())) < 1e-9  # zero-sum, as the outcome


def test_the_observation_is_the_deciders_own_and_splits_back() -> None:
    e = rl.raw_env()
    e.reset(seed=3)
    agent = e.agent_selection
    obs = e.observe(agent)
    planes, info = split_observation(obs["observation"])
    want_planes, want_info = split_observation(rl.flat_observation(*e.game.observation()))
    assert planes.shape == (PLANES, 6, 7) and info.shape == (INFO,)
    assert np.array_equal(planes, want_planes) and np.array_equal(info, want_info)
    assert np.array_equal(obs["action_mask"], e.game.legal_mask())
    other = "player_2" if agent == "player_1" else "player_1"
    assert not e.observe(other)["action_mask"].any()


@pytest.mark.parametrize("hands", ["hidden", "visible"])
def test_no_hidden_card_reaches_an_observation(hands: str) -> None:
    """Each player's observation and mask are a function of that player's view: in another
    world with that view (the opponent's hidden hand and both decks drawn again), equal."""
    rng = np.random.default_rng(11)
    for seed in range(4):
        e = rl.raw_env(hands=hands)
        e.reset(seed=seed)
        for _ in range(int(rng.integers(0, 60))):
            if e.game.result is not None:
                break
            mask = e.observe(e.agent_selection)["action_mask"]
            e.step(int(rng.choice(np.flatnonzero(mask))))
        for player, agent in ((1, "player_1"), (2, "player_2")):
            view = e.game.view(player)
            for k in range(3):
                world = view.determinize(seed * 10 + k)
                other = rl.raw_env(hands=hands)
                other.reset(seed=seed)
                other.game = world
                other._next_decision()
                assert world.to_json() != e.game.to_json() or not any(sum(v.values()) for v in view.hidden().values())
                a, b = e.observe(agent), other.observe(agent)
                assert np.array_equal(a["observation"], b["observation"]), (seed, player, k)
                assert np.array_equal(a["action_mask"], b["action_mask"]), (seed, player, k)


def test_an_illegal_action_is_refused_and_changes_nothing() -> None:
    e = rl.raw_env()
    e.reset(seed=1)
    before = e.game.to_json()
    mask = e.observe(e.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(IllegalActionError, match="not legal"):
        e.step(illegal)
    with pytest.raises(IllegalActionError, match="integer id"):
        e.step("draw")
    assert e.game.to_json() == before


def test_options_are_checked() -> None:
    with pytest.raises(ValueError, match="unknown option"):
        rl.env(colour="red")
    with pytest.raises(ValueError, match="not a core army"):
        rl.env(armies=["pirates"])
    with pytest.raises(ValueError, match="frame"):
        rl.env(mat="unbordered", frame=(5, 5))
    with pytest.raises(ValueError):
        rl.env(rules="advanced")
    with pytest.raises(ValueError, match="shaped_reward"):
        rl.env(shaped_reward=-1)
    assert Config.of().num_actions == 1724 and Config.of().observation_size == PLANES * 42 + INFO


# --- Gymnasium ---------------------------------------------------------------------------------


@pytest.mark.parametrize("opponent", ["random", "greedy", "recruit"])
def test_gymnasium_make_and_check_env(opponent: str) -> None:
    from gymnasium.utils.env_checker import check_env

    e = gymnasium.make(rl.ENV_ID, opponent=opponent, render_mode="ansi")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(e.unwrapped)
    obs, info = e.reset(seed=2)
    assert info["seat"] in (1, 2)
    assert "Turn" in e.render()


def test_a_game_against_a_bot_from_the_agents_seat() -> None:
    for seat in (1, 2):
        e = gymnasium.make(rl.ENV_ID, opponent="greedy", seat=seat)
        obs, info = e.reset(seed=seat)
        rng = np.random.default_rng(seat)
        total, done, steps = 0.0, False, 0
        while not done:
            assert e.unwrapped.game.decider == seat
            obs, reward, terminated, truncated, info = e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            total += reward
            done = terminated or truncated
            steps += 1
        assert total in (-1.0, 0.0, 1.0) and info["winner"] in (0, 1, 2)
        assert not obs["action_mask"].any()
        with pytest.raises(RuntimeError, match="reset"):
            e.step(0)


def test_an_illegal_action_loses_or_raises() -> None:
    e = gymnasium.make(rl.ENV_ID, opponent="random", seat=1)
    obs, _ = e.reset(seed=0)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    obs, reward, terminated, truncated, info = e.step(illegal)
    assert reward == -1.0 and terminated and info["illegal_action"]
    strict = gymnasium.make(rl.ENV_ID, opponent="random", seat=1, illegal_action="raise")
    strict.reset(seed=0)
    before = strict.unwrapped.game.to_json()
    with pytest.raises(IllegalActionError):
        strict.step(illegal)
    assert strict.unwrapped.game.to_json() == before
    with pytest.raises(ValueError, match="opponent"):
        gymnasium.make(rl.ENV_ID, opponent="grandmaster")


def test_the_bot_sees_only_its_view() -> None:
    """The opponent bot is asked through lordsofwar.bots.decide with a view that hides the
    agent's hand (hidden-hands variant): it never holds the agent's cards. (``random`` and
    ``greedy`` play in the core: tests/test_core_greedy.py checks that they read no hidden card.)"""
    from lordsofwar import bots

    seen: list[Any] = []
    real = bots.decide

    def spy(bot: Any, view: Any, known: Any = None, deck: Any = None) -> Any:
        seen.append(view)
        return real(bot, view, known, deck)

    e = gymnasium.make(rl.ENV_ID, opponent="recruit", seat=1)
    bots.decide = spy
    try:
        obs, _ = e.reset(seed=4)
        for _ in range(30):
            obs, *_rest = e.step(int(np.flatnonzero(obs["action_mask"])[0]))
            if _rest[1] or _rest[2]:
                break
    finally:
        bots.decide = real
    assert seen
    for view in seen:
        assert all(c is None for c in view.hands[1]) and all(c is None for c in view.decks[1])
        assert all(c is None for c in view.decks[2])


# --- the vector environment ---------------------------------------------------------------------


@native
def test_vector_environment_self_play() -> None:
    from lordsofwar.rl.vector import LordsOfWarVectorEnv

    e = LordsOfWarVectorEnv(16, opponent="self")
    obs, infos = e.reset(seed=1)
    assert obs["observation"].shape == (16, Config.of().observation_size)
    assert obs["action_mask"].shape == (16, 1724) and obs["action_mask"].any(axis=1).all()
    assert e.observation_space.contains(obs)
    ended = 0
    for _ in range(400):
        movers = infos["to_play"]
        actions = e.batch.sample().copy()
        obs, reward, terminated, truncated, infos = e.step(actions)
        both = infos["rewards"]
        assert np.array_equal(reward, np.where(movers == 1, both[:, 0], both[:, 1]))
        assert np.all(both.sum(axis=1) == 0) and set(np.unique(reward)) <= {-1.0, 0.0, 1.0}
        ended += int(terminated.sum())
        assert obs["action_mask"].any(axis=1).all()
    assert ended > 0
    # the first game's observation equals the core's own for its decider
    planes, info = split_observation(obs["observation"][0])
    want_planes, want_info = split_observation(rl.flat_observation(*e.batch.game(0).observation()))
    assert np.array_equal(planes, want_planes) and np.array_equal(info, want_info)


@native
def test_vector_environment_against_random() -> None:
    from lordsofwar.rl.vector import LordsOfWarVectorEnv

    e = LordsOfWarVectorEnv(8, opponent="random")
    obs, infos = e.reset(seed=2)
    assert np.array_equal(infos["to_play"], e.seats)
    results = []
    for _ in range(600):
        actions = e.batch.sample().copy()
        obs, reward, terminated, truncated, infos = e.step(actions)
        assert np.array_equal(infos["to_play"], e.seats)  # always the caller's decision
        results += list(reward[terminated])
    assert results and set(results) <= {-1.0, 0.0, 1.0}


@native
def test_vector_environment_refuses_an_illegal_action_and_changes_nothing() -> None:
    from lordsofwar.rl.vector import LordsOfWarVectorEnv

    e = LordsOfWarVectorEnv(4, opponent="self")
    obs, _ = e.reset(seed=3)
    actions = e.batch.sample().copy()
    actions[2] = int(np.flatnonzero(obs["action_mask"][2] == 0)[0])
    before = [e.batch.game(i).to_json() for i in range(4)]
    with pytest.raises(IllegalActionError, match="game 2"):
        e.step(actions)
    assert [e.batch.game(i).to_json() for i in range(4)] == before
    with pytest.raises(IllegalActionError, match="integer ids"):
        e.step(np.zeros(3, np.int64))


def test_a_skipped_game_waits() -> None:
    batch = core.Batch(3, seed=4)
    before = [batch.game(i).to_json() for i in range(3)]
    planes = batch.planes.copy()
    acts = batch.sample().copy()
    acts[1] = core.SKIP
    batch.step(acts)
    assert batch.game(1).to_json() == before[1]
    assert np.array_equal(batch.planes[1], planes[1])
    assert batch.game(0).to_json() != before[0] and batch.game(2).to_json() != before[2]
    assert not batch.done[1] and not batch.rewards[1].any()


def test_the_view_of_the_player_not_deciding_is_its_own() -> None:
    e = rl.raw_env()
    e.reset(seed=6)
    decider = e.game.decider
    other = 3 - decider
    obs = e.observe(rl.AGENTS[other - 1])
    planes, info = split_observation(obs["observation"])
    # its own hand is in its slots 0-5, the decider's hand (hidden) only counted
    own = notation.view(e.game.to_position(), other).hands[other]
    assert int(info[: 6 * 20 : 20].sum()) == len(own)
    assert planes[0].sum() + planes[1].sum() == len(e.game.to_position().board)


# --- OpenSpiel -----------------------------------------------------------------------------------


def spiel_game(**params: Any) -> Any:
    pyspiel = pytest.importorskip("pyspiel")
    import lordsofwar.rl.spiel  # noqa: F401 - registers the game

    return pyspiel.load_game("lords_of_war", params)


def dealt(game: Any, rng: np.random.Generator) -> Any:
    """A new state past the deal's chance nodes (outcomes drawn by ``rng``)."""
    state = game.new_initial_state()
    while state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes(), strict=True)
        assert abs(sum(probs) - 1) < 1e-9
        state.apply_action(int(rng.choice(outcomes)))
    return state


def test_openspiel_random_games() -> None:
    game = spiel_game(units_to_win=8, commands_to_win=2)
    assert game.num_distinct_actions() == 1724
    assert game.information_state_tensor_shape() == [Config.of().observation_size]
    rng = np.random.default_rng(0)
    for _ in range(3):
        state = game.new_initial_state()
        assert state.is_chance_node() and len(state.chance_outcomes()) == 6  # the armies
        state = dealt(game, rng)
        assert len(state.history()) == 2 * 36
        while not state.is_terminal():
            player = state.current_player()
            legal = state.legal_actions()
            assert legal and legal == sorted(legal)
            assert state.legal_actions(1 - player) == []
            tensor = np.asarray(state.information_state_tensor(player))
            assert tensor.shape == (Config.of().observation_size,)
            assert str(player + 1) in state.information_state_string(player)
            state.apply_action(int(rng.choice(legal)))
        assert sum(state.returns()) == 0 and state.returns()[0] in (-1.0, 0.0, 1.0)


def test_openspiel_resampling_keeps_the_players_information_state() -> None:
    pyspiel = pytest.importorskip("pyspiel")
    game = spiel_game()
    rng = np.random.default_rng(1)
    state = dealt(game, rng)
    for _ in range(25):
        state.apply_action(int(rng.choice(state.legal_actions())))
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    for player in (0, 1):
        changed = 0
        for _ in range(5):
            world = state.resample_from_infostate(player, sampler)
            assert world.information_state_string(player) == state.information_state_string(player)
            assert world.information_state_tensor(player) == state.information_state_tensor(player)
            assert world.legal_actions() == state.legal_actions() or world.current_player() != player
            changed += world.information_state_string(1 - player) != state.information_state_string(1 - player)
        assert changed > 0  # the other player's hidden cards were drawn again
    clone = state.clone()
    clone.apply_action(clone.legal_actions()[0])
    assert clone.history() != state.history()


def test_openspiel_serializes_pickles_and_replays_a_game() -> None:
    pyspiel = pytest.importorskip("pyspiel")
    import copy
    import pickle

    game = spiel_game(units_to_win=8, commands_to_win=2)
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)
    for again in (pickle.loads(pickle.dumps(game)), copy.deepcopy(game)):
        assert str(again) == str(game) and again.get_parameters() == game.get_parameters()
    rng = np.random.default_rng(4)
    state = dealt(game, rng)
    for _ in range(40):
        state.apply_action(int(rng.choice(state.legal_actions())))
    again_game, again = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))
    assert str(again_game) == str(game)
    assert str(again) == str(state) and again.history() == state.history()
    replayed = game.new_initial_state()
    for action in state.history():  # the deal's chance outcomes rebuild the same deal
        replayed.apply_action(action)
    assert str(replayed) == str(state)
    for p in (0, 1):
        assert replayed.information_state_string(p) == state.information_state_string(p)
        assert pickle.loads(pickle.dumps(state)).information_state_tensor(p) == state.information_state_tensor(p)
    assert again.legal_actions() == state.legal_actions()


def test_openspiels_ismcts_plays_a_game() -> None:
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python.algorithms import ismcts, mcts

    game = spiel_game(units_to_win=6, commands_to_win=2)
    rng = np.random.RandomState(0)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    bot = ismcts.ISMCTSBot(game=game, evaluator=evaluator, uct_c=2.0, max_simulations=8, random_state=rng)
    other = pyspiel.make_uniform_random_bot(1, 7)
    state = dealt(game, np.random.default_rng(9))
    moves = 0
    while not state.is_terminal():
        action = bot.step(state) if state.current_player() == 0 else other.step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
        moves += 1
    assert moves > 10 and sum(state.returns()) == 0


@native
def test_gymnasium_make_vec() -> None:
    from lordsofwar.rl.vector import LordsOfWarVectorEnv

    v = gymnasium.make_vec(rl.ENV_ID, num_envs=4, vectorization_mode="vector_entry_point")
    assert isinstance(v, LordsOfWarVectorEnv) and v.opponent == "random"
    obs, infos = v.reset(seed=1)
    assert obs["observation"].shape == (4, Config.of().observation_size)
    assert np.array_equal(infos["to_play"], v.seats)
    greedy = gymnasium.make_vec(rl.ENV_ID, num_envs=2, vectorization_mode="vector_entry_point", opponent="greedy")
    assert isinstance(greedy, LordsOfWarVectorEnv) and greedy.opponent == "greedy"
    veteran = gymnasium.make_vec(rl.ENV_ID, num_envs=2, vectorization_mode="vector_entry_point", opponent="veteran")
    assert isinstance(veteran, LordsOfWarVectorEnv) and veteran.opponent == "veteran"
    with pytest.raises(ValueError, match="vectorization_mode='async'"):
        gymnasium.make_vec(
            rl.ENV_ID, num_envs=2, vectorization_mode="vector_entry_point", opponent="python:mybots:make"
        )
    sync = gymnasium.make_vec(rl.ENV_ID, num_envs=2, vectorization_mode="sync", opponent="greedy")
    obs, _ = sync.reset(seed=2)
    assert obs["action_mask"].shape == (2, 1724)
    sync.close()


@native
def test_vector_observations_hold_no_hidden_card() -> None:
    """Each row of the batch is the decider's observation: equal in any world with its view."""
    from lordsofwar.rl.vector import LordsOfWarVectorEnv

    e = LordsOfWarVectorEnv(6, opponent="self")
    obs, infos = e.reset(seed=9)
    for _ in range(40):
        obs, *_ = e.step(e.batch.sample().copy())
    for i in range(6):
        game = e.batch.game(i)
        view = game.view(game.decider)
        for k in range(3):
            planes, info = view.determinize(k).observation()
            flat = rl.flat_observation(planes, info)
            assert np.array_equal(flat, obs["observation"][i])


def test_observe_into_is_the_observation_and_the_mask() -> None:
    e = rl.raw_env()
    e.reset(seed=12)
    rng = np.random.default_rng(3)
    for _ in range(50):
        game = e.game
        obs = np.full(Config.of().observation_size, -1, np.float32)
        mask = np.full(1724, 7, np.int8)
        count = game.observe_into(obs, mask)
        planes, info = game.observation()
        assert np.array_equal(obs, raw_observation(planes, info))  # the core's numbers, unscaled
        assert np.array_equal(mask, game.legal_mask()) and count == int(mask.sum()) == len(game.legal_ids())
        e.step(int(rng.choice(np.flatnonzero(mask))))
    with pytest.raises(ValueError, match="wrong size"):
        e.game.observe_into(np.zeros(5, np.float32), np.zeros(1724, np.int8))


@pytest.mark.parametrize("options", [{}, {"mat": "unbordered", "frame": (15, 15)}])
def test_the_environments_pickle_after_reset_and_play_on_alike(options: dict[str, Any]) -> None:
    import pickle

    aec = rl.env(**options)
    aec.reset(seed=3)
    for _ in range(12):  # a few decisions in, mid-turn
        aec.step(int(np.flatnonzero(aec.observe(aec.agent_selection)["action_mask"])[0]))
    single = gymnasium.make(rl.ENV_ID, opponent="greedy", **options)
    single.reset(seed=3)
    for _ in range(3):
        single.step(int(np.flatnonzero(single.unwrapped._mask)[-1]))
    aec2, single2 = pickle.loads(pickle.dumps(aec)), pickle.loads(pickle.dumps(single))
    rng = np.random.default_rng(5)
    for _ in range(30):
        agent = aec.agent_selection
        assert aec2.agent_selection == agent
        first, second = aec.observe(agent), aec2.observe(agent)
        for key in first:
            assert np.array_equal(first[key], second[key])
        if aec.terminations[agent]:
            break
        action = int(rng.choice(np.flatnonzero(first["action_mask"])))
        aec.step(action)
        aec2.step(action)
    obs = obs2 = single.unwrapped._observe()[0]
    for _ in range(8):  # the bot (seeded) answers alike
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        obs, reward, done, _, info = single.step(action)
        obs2, reward2, done2, _, info2 = single2.step(action)
        assert reward == reward2 and done == done2
        assert np.array_equal(info.pop("action_mask"), info2.pop("action_mask")) and info == info2
        for key in obs:
            assert np.array_equal(obs[key], obs2[key])
        if done:
            break


@pytest.mark.parametrize("opponent", ["self", "random"])
def test_vector_environment_gives_the_final_observation_and_result(opponent: str) -> None:
    from lordsofwar.rl.aec import observe_view
    from lordsofwar.rl.config import flat_observation
    from lordsofwar.rl.vector import LOST, LordsOfWarVectorEnv
    from lordsofwar.rules.result import Termination

    codes = {t.value for t in Termination}
    e = LordsOfWarVectorEnv(8, opponent=opponent, units_to_win=10, commands_to_win=2)
    obs, infos = e.reset(seed=6)
    ended = 0
    for _ in range(500):
        movers = infos["to_play"]
        obs, reward, terminated, truncated, infos = e.step(e.batch.sample().copy())
        done = terminated | truncated
        if not done.any():
            assert "final_obs" not in infos and "final_info" not in infos
            continue
        assert np.array_equal(infos["_final_obs"], done) and np.array_equal(infos["_final_info"], done)
        final = infos["final_info"]
        side = movers if opponent == "self" else e.seats
        for i in np.flatnonzero(done):
            ended += 1
            last = infos["final_obs"][i]
            assert e.single_observation_space.contains(last) and not last["action_mask"].any()
            winner, code = int(final["winner"][i]), final["termination"][i]
            assert code in codes and isinstance(final["reason"][i], str) and final["reason"][i]
            both = infos["rewards"][i]
            assert both[0] == (0 if winner == 0 else (1 if winner == 1 else -1))
            me = int(side[i])
            assert reward[i] == (0 if winner == 0 else (1 if winner == me else -1))
            # what the learner's own view of the finished game gives, scaled
            game = e.batch.finished(int(i))
            assert np.array_equal(last["observation"], flat_observation(*observe_view(game, me, e.config)))
            lost = last["observation"][Config.of().planes_size + LOST : Config.of().planes_size + LOST + 2]
            if code == "units":  # the last observation is the finished game's: the loser lost 10
                assert lost[1 if winner == me else 0] * 36 >= 10 - 1e-4
            # the new game's first observation is in the row
            assert obs["observation"][i, Config.of().planes_size + LOST : Config.of().planes_size + LOST + 2].sum() == 0
        for i in np.flatnonzero(~done):
            assert infos["final_obs"][i] is None and not final["_winner"][i]
    assert ended >= 8


def test_both_batches_keep_each_slots_finished_game() -> None:
    from lordsofwar.core import _python
    from lordsofwar.rules.position import Variant

    kinds = [_python.Batch] + ([core.Batch] if core.IMPLEMENTATION == "native" else [])
    for batch_class in kinds:
        batch = batch_class(2, seed=3, variant=Variant(units_to_win=6, commands_to_win=2))
        assert batch.finished(0) is None and batch.finished(1) is None
        ended: list[object] = []
        while len(ended) < 2:
            before = [batch.game(i).to_json() for i in range(2)]
            batch.step(batch.sample().copy())
            for i in np.flatnonzero(batch.done):
                last = batch.finished(int(i))
                assert last is not None and last.result is not None and last.to_json() != before[i]
                winner = last.result.winner
                assert batch.rewards[i, 0] == (0 if winner is None else (1 if winner == 1 else -1))
                assert batch.game(int(i)).turn == 1  # the slot holds a new game
                ended.append(i)
        with pytest.raises(IndexError):
            batch.finished(2)


@pytest.mark.parametrize("mat", ["bordered", "unbordered"])
def test_both_batches_observe_each_finished_game_as_its_players_view_does(mat: str) -> None:
    """``observe_finished`` (Gymnasium's ``final_obs`` without a copy of the game) equals what
    each player's own view of the finished game gives (``observe_view``), for both players, on
    both batches, on the printed mat and in a frame; ``finished_result`` is the game's result;
    bad rows and players are refused."""
    from lordsofwar.core import _python
    from lordsofwar.rl.aec import observe_view

    config = Config.of(units_to_win=6, commands_to_win=2, mat=mat, frame=(11, 9))
    variant = config.variant
    kinds = [_python.Batch] + ([core.Batch] if core.IMPLEMENTATION == "native" else [])
    for batch_class in kinds:
        batch = batch_class(4, seed=11, variant=variant, frame=config.frame)
        with pytest.raises(ValueError, match="no game ended"):
            batch.observe_finished([0], [1])
        assert batch.finished_result(0) is None
        checked = 0
        while checked < (12 if batch_class is _python.Batch else 40):
            batch.step(batch.sample().copy())
            rows = np.flatnonzero(batch.done)
            if not rows.size:
                continue
            for player in (1, 2):
                planes, info = batch.observe_finished(rows, np.full(rows.size, player))
                assert planes.shape == (rows.size, *batch.planes.shape[1:]) and info.shape == (rows.size, INFO)
                for k, i in enumerate(rows.tolist()):
                    game = batch.finished(i)
                    want_planes, want_info = observe_view(game, player, config)
                    assert np.array_equal(planes[k], want_planes) and np.array_equal(info[k], want_info)
            for i in rows.tolist():
                last = batch.finished(i)
                assert last is not None and batch.finished_result(i) == last.result
                checked += 1
        ended = int(rows[0])
        with pytest.raises(IndexError):
            batch.observe_finished([4], [1])
        with pytest.raises(IndexError):
            batch.finished_result(-1)
        with pytest.raises(ValueError, match="1 or 2"):
            batch.observe_finished([ended], [3])
        with pytest.raises(ValueError, match="one player per row"):
            batch.observe_finished([ended, ended], [1])
        # nothing is wrapped or cut into range before it is checked
        with pytest.raises(IndexError):
            batch.observe_finished(np.array([2**32 + ended]), np.array([1]))
        with pytest.raises(ValueError, match="1 or 2"):
            batch.observe_finished(np.array([ended]), np.array([257]))
        with pytest.raises(ValueError, match="integers"):
            batch.observe_finished(np.array([float(ended)]), np.array([1]))
        assert [a.shape for a in batch.observe_finished([], [])] == [
            (0, *batch.planes.shape[1:]),
            (0, INFO),
        ]


def test_action_masks_for_masking_learners() -> None:
    from lordsofwar.rl.vector import LordsOfWarVectorEnv

    e = gymnasium.make(rl.ENV_ID, opponent="random")
    obs, info = e.reset(seed=8)
    rng = np.random.default_rng(8)
    done = False
    while not done:
        masks = e.unwrapped.action_masks()
        assert masks.dtype == bool and np.array_equal(masks, obs["action_mask"] == 1)
        assert np.array_equal(info["action_mask"], masks)
        obs, _, done, _, info = e.step(int(rng.choice(np.flatnonzero(masks))))
    assert not e.unwrapped.action_masks().any() and not info["action_mask"].any()
    v = LordsOfWarVectorEnv(4, opponent="self")
    obs, infos = v.reset(seed=8)
    for _ in range(5):
        masks = v.action_masks()
        assert masks.dtype == bool and masks.shape == (4, 1724)
        assert np.array_equal(masks, obs["action_mask"] == 1) and np.array_equal(
            infos["action_mask"], obs["action_mask"]
        )
        obs, _, _, _, infos = v.step(v.batch.sample().copy())


def test_observations_are_scaled_to_finite_bounds() -> None:
    from lordsofwar.rl.config import HAND_SCALE, PLANE_SCALE, SCALAR_SCALE, observation_scale
    from lordsofwar.rl.vector import LordsOfWarVectorEnv

    space = Config.of()
    e = rl.raw_env()
    box = e.observation_space("player_1")["observation"]
    assert np.all(box.low == 0) and np.all(box.high == 1) and np.all(np.isfinite(box.high))
    assert len(PLANE_SCALE) == PLANES and len(HAND_SCALE) * 12 + len(SCALAR_SCALE) == INFO
    scale = observation_scale(space.planes_size)
    rng = np.random.default_rng(4)
    high = np.zeros(space.observation_size, np.float32)
    for seed in range(4):
        e.reset(seed=seed)
        while not e.terminations[e.agent_selection]:
            game = e.game
            obs = e.observe(e.agent_selection)["observation"]
            raw = raw_observation(*game.observation())
            assert box.contains(obs)
            assert np.allclose(obs, np.minimum(raw * scale, 1))  # each number divided by its divisor
            high = np.maximum(high, obs)
            e.step(int(rng.choice(np.flatnonzero(e.observe(e.agent_selection)["action_mask"]))))
        for agent in rl.AGENTS:  # the last observations, from the views
            assert box.contains(e.observe(agent)["observation"])
    planes, info = split_observation(high)
    assert info[240 + 12] > 0.05 and planes[2:18].max() > 0.5  # the turn and arrow values are there, scaled
    v = LordsOfWarVectorEnv(16, opponent="random")
    obs, _ = v.reset(seed=1)
    for _ in range(200):
        assert v.observation_space.contains(obs)
        obs, *_ = v.step(v.batch.sample().copy())


def test_many_observations_scaled_at_once_equal_one_by_one_to_the_bit() -> None:
    from lordsofwar.rl import config
    from lordsofwar.rl.config import flat_observation, flat_observations

    space = Config.of()
    rng = np.random.default_rng(9)
    rows = 5
    planes = rng.integers(0, 256, (rows, PLANES, space.height, space.width), dtype=np.uint8)  # past every divisor too
    info = (rng.random((rows, INFO), dtype=np.float32) * 400 - 20).astype(np.float32)  # negatives are capped at 0
    one_by_one = np.stack([flat_observation(planes[k], info[k]) for k in range(rows)])
    assert one_by_one.min() == 0 and one_by_one.max() == 1
    out = np.full((rows, space.observation_size), np.nan, np.float32)
    assert flat_observations(planes, info, out) is out
    assert out.tobytes() == one_by_one.tobytes()
    assert flat_observations(planes, info).tobytes() == one_by_one.tobytes()
    assert flat_observations(planes[:0], info[:0]).shape == (0, space.observation_size)
    # Arrays the compiled pass does not take (another dtype, a strided view) take NumPy's path, alike.
    assert flat_observations(planes.astype(np.int32), info).tobytes() == one_by_one.tobytes()
    assert flat_observations(planes[::2], info[::2]).tobytes() == one_by_one[::2].tobytes()
    if core.IMPLEMENTATION == "native":
        from lordsofwar.core import _core

        scale = config.observation_scale(space.planes_size)
        with pytest.raises(ValueError, match="scale_observations"):
            _core.scale_observations(planes, info, scale, out[:, :-1].copy())
        with pytest.raises(ValueError, match="scale_observations"):
            _core.scale_observations(planes[:4], info, scale, out)


def test_a_trained_policy_as_the_gymnasium_opponent(tmp_path: Any) -> None:
    from pathlib import Path

    from lordsofwar.bots.policy import PolicyError

    shipped = Path(__file__).resolve().parents[1] / "examples" / "policy.npz"
    e = gymnasium.make(rl.ENV_ID, opponent=f"policy:{shipped}", seat=2)
    rng = np.random.default_rng(1)
    for seed in (1, 2):
        obs, info = e.reset(seed=seed)
        assert any(k.owner == 1 for k in e.unwrapped.game.to_position().board.values())  # the policy played first
        opening = e.unwrapped.game.to_json()
        done = False
        while not done:
            obs, reward, done, truncated, info = e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        assert info["winner"] in (0, 1, 2) and reward in (-1.0, 0.0, 1.0)
        again = gymnasium.make(rl.ENV_ID, opponent=f"policy:{shipped}", seat=2)
        again.reset(seed=seed)
        assert again.unwrapped.game.to_json() == opening  # the policy (seeded by reset) answered alike
    with pytest.raises(PolicyError, match="no such file|not a NumPy|No such file"):
        gymnasium.make(rl.ENV_ID, opponent=f"policy:{tmp_path / 'missing.npz'}")
    with pytest.raises(ValueError, match="trained for the bordered mat"):
        gymnasium.make(rl.ENV_ID, opponent=f"policy:{shipped}", mat="unbordered")
    with pytest.raises(ValueError, match="policy:FILE or python:MODULE:FACTORY"):
        gymnasium.make(rl.ENV_ID, opponent="grandmaster")


def test_a_python_bot_as_the_gymnasium_opponent(tmp_path: Any) -> None:
    (tmp_path / "firstbot.py").write_text(
        "class First:\n"
        "    def __init__(self, seed):\n"
        "        self.seed = seed\n"
        "    def choose(self, view, known=None, deck=None):\n"
        "        return sorted(view.legal_actions(), key=str)[0]\n"
        "def make(seed):\n"
        "    return First(seed)\n"
    )
    name = f"python:{tmp_path / 'firstbot.py'}:make"
    e = gymnasium.make(rl.ENV_ID, opponent=name, seat=2)
    obs, _ = e.reset(seed=3)
    game = e.unwrapped.game
    assert game.to_position().board  # the bot opened the game as player 1
    rng = np.random.default_rng(2)
    done = False
    while not done:
        obs, reward, done, truncated, info = e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert info["winner"] in (0, 1, 2)
    with pytest.raises(ValueError, match="no file"):
        gymnasium.make(rl.ENV_ID, opponent=f"python:{tmp_path / 'missing.py'}:make")

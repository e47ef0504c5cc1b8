"""The network file, version 3 (lordsofwar.bots.policy.save_network): read with NumPy alone, its
value head computed as written, malformed files refused with a reason; versions 1 and 2 keep
working. And the self-play targets: the search's visits land on the ids of the actions searched,
read in the decider's frame."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from lordsofwar import core
from lordsofwar.bots.play import deal_for
from lordsofwar.bots.policy import Policy, PolicyError, save_network, save_policy
from lordsofwar.bots.search import SearchBot
from lordsofwar.core.observation import INFO, PLANES
from lordsofwar.rl.config import flat_observation
from lordsofwar.rules import notation
from lordsofwar.rules.actions import parse_action
from lordsofwar.train.selfplay import search_targets, teacher

pytestmark = pytest.mark.skipif(core.IMPLEMENTATION != "native", reason="the network observes through the core")

SIZE = PLANES * 7 * 6 + INFO
ACTIONS = 1724


def layers(sizes: list[int], rng: np.random.Generator) -> list[tuple[np.ndarray, np.ndarray]]:
    return [(rng.normal(0, 0.2, (a, b)), rng.normal(0, 0.1, b)) for a, b in zip(sizes, sizes[1:], strict=False)]


def network(
    path: Path, hidden: tuple[int, ...] = (12, 8), value: tuple[int, ...] = (5, 1), seed: int = 0, **meta: Any
) -> Path:
    rng = np.random.default_rng(seed)
    policy = layers([SIZE, *hidden, ACTIONS], rng)
    head = layers([hidden[-1], *value], rng)
    header = {"mat": "bordered", "frame": [7, 6], "observation_size": SIZE, "num_actions": ACTIONS}
    header["value_from"] = len(hidden) - 1
    header.update(meta)
    save_network(path, policy, head, header)
    return path


def test_a_network_gives_logits_and_the_value_its_layers_compute(tmp_path: Path) -> None:
    path = network(tmp_path / "n.npz", training={"steps": 3})
    net = Policy(path)
    assert net.version == 3 and net.has_value and net.meta["training"] == {"steps": 3}
    x = np.random.default_rng(1).random((4, SIZE)).astype(np.float32)
    with np.load(path) as f:
        a = {k: f[k] for k in f.files}
    h1 = np.maximum(x @ a["w0"] + a["b0"], 0)
    h2 = np.maximum(h1 @ a["w1"] + a["b1"], 0)
    logits = h2 @ a["w2"] + a["b2"]
    v = np.tanh(np.maximum(h2 @ a["vw0"] + a["vb0"], 0) @ a["vw1"] + a["vb1"])[:, 0]
    np.testing.assert_allclose(net.logits(x), logits, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(net.value(x), v, rtol=1e-5, atol=1e-6)
    one = net.value(x[0])
    assert isinstance(one, float) and -1 <= one <= 1 and one == pytest.approx(float(v[0]), abs=1e-6)


def test_the_value_head_may_read_an_earlier_layer(tmp_path: Path) -> None:
    rng = np.random.default_rng(2)
    policy = layers([SIZE, 12, 8, ACTIONS], rng)
    header = {"mat": "bordered", "frame": [7, 6], "observation_size": SIZE, "num_actions": ACTIONS, "value_from": 0}
    save_network(tmp_path / "n.npz", policy, layers([12, 1], rng), header)
    net = Policy(tmp_path / "n.npz")
    x = rng.random(SIZE).astype(np.float32)
    h1 = np.maximum(x @ policy[0][0] + policy[0][1], 0)
    assert net.value(x) == pytest.approx(
        float(np.tanh(h1 @ net.value_layers[0][0] + net.value_layers[0][1])[0]), abs=1e-5
    )


def test_a_version_2_policy_still_plays_and_has_no_value(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    save_policy(
        tmp_path / "p.npz",
        layers([SIZE, 6, ACTIONS], rng),
        {"mat": "bordered", "frame": [21, 21], "observation_size": SIZE, "num_actions": ACTIONS},
    )
    p = Policy(tmp_path / "p.npz")
    assert p.version == 2 and not p.has_value
    assert p.logits(np.zeros(SIZE, np.float32)).shape == (ACTIONS,)
    with pytest.raises(PolicyError, match="no value head"):
        p.value(np.zeros(SIZE, np.float32))


def rewrite(src: Path, dst: Path, drop: tuple[str, ...] = (), **arrays: np.ndarray) -> Path:
    with np.load(src) as f:
        a = {k: f[k] for k in f.files if k not in drop}
    a.update(arrays)
    np.savez(dst, **a)
    return dst


@pytest.mark.parametrize(
    ("meta", "message"),
    [
        ({"value_from": 2}, "value_from 2 is not a hidden policy layer"),
        ({"value_from": -1}, "value_from -1 is not a hidden policy layer"),
        ({"value_from": "1"}, "value_from '1' is not a hidden policy layer"),
        ({"value_from": 0}, "does not read policy layer 0"),
    ],
)
def test_a_network_with_a_bad_value_from_is_refused(tmp_path: Path, meta: dict[str, Any], message: str) -> None:
    with pytest.raises(PolicyError, match=message):
        Policy(network(tmp_path / "n.npz", **meta))


def test_a_network_without_a_value_from_is_refused(tmp_path: Path) -> None:
    path = network(tmp_path / "n.npz")
    import json

    with np.load(path) as f:
        meta = json.loads(bytes(f["meta"]).decode())
    del meta["value_from"]
    bad = rewrite(path, tmp_path / "b.npz", meta=np.frombuffer(json.dumps(meta).encode(), np.uint8))
    with pytest.raises(PolicyError, match="value_from None"):
        Policy(bad)


def test_malformed_value_heads_are_refused(tmp_path: Path) -> None:
    good = network(tmp_path / "n.npz")
    cases = {
        "no value layers": rewrite(good, tmp_path / "a.npz", drop=("vw0", "vb0", "vw1", "vb1")),
        "layer v0 is malformed": rewrite(good, tmp_path / "b.npz", drop=("vb0",)),
        "layer v1 does not follow layer v0": rewrite(good, tmp_path / "c.npz", vw1=np.zeros((4, 1), np.float32)),
        "does not end in one number": rewrite(
            good, tmp_path / "d.npz", vw1=np.zeros((5, 2), np.float32), vb1=np.zeros(2, np.float32)
        ),
        "layer v0 is malformed ": rewrite(good, tmp_path / "e.npz", vb0=np.zeros(5, np.int32)),
    }
    for message, path in cases.items():
        with pytest.raises(PolicyError, match=message.strip()):
            Policy(path)
    assert Policy(good).has_value


def test_the_search_visits_land_on_the_ids_of_the_actions_searched() -> None:
    """From both seats' views (player 2's frame is turned by 180 degrees), over a game's first
    decisions: every id names, in the decider's view, the action the search visited that often."""
    decks, pos = deal_for(11)
    bot = SearchBot(teacher(40), 5)
    rng = random.Random(2)
    checked = {1: 0, 2: 0}
    for _ in range(60):
        if pos.result is not None:
            break
        player = pos.decider
        view = notation.view(pos, player)
        analysis = bot.analyse(view, deck=decks[player - 1])
        if len(analysis.actions) > 1:
            planes, info, legal, ids, visits, greedy = search_targets(view, analysis)
            game = core.Game.from_position(view)
            assert legal.tolist() == game.legal_ids()
            judged = {game.action_id(t): (s, p, e) for t, s, p, e in game.greedy_scores()}
            np.testing.assert_allclose(greedy, [judged[int(i)] for i in legal], rtol=1e-6)
            visited = {str(a): n for a, n, _ in analysis.actions if n > 0}
            assert {game.action_text(int(i)): int(n) for i, n in zip(ids, visits, strict=True)} == visited
            assert sum(visited.values()) == analysis.iterations or analysis.iterations == 0
            planes2, info2 = game.observation()
            np.testing.assert_array_equal(flat_observation(planes, info), flat_observation(planes2, info2))
            checked[player] += 1
        pos.push(rng.choice(pos.legal_actions()))
    assert checked[1] >= 5 and checked[2] >= 5


def test_the_shipped_networks_are_marshal_s_version_3_and_scout_s_version_4_within_10_mb() -> None:
    from lordsofwar.bots.features import NUM_FEATURES
    from lordsofwar.bots.policy import SCOUT, SHIPPED, shipped_network

    assert SHIPPED.stat().st_size + SCOUT.stat().st_size <= 10 * 1024 * 1024
    net = shipped_network()
    assert net.version == 3 and net.has_value and net.mat == "bordered"
    scout = shipped_network(SCOUT)
    assert scout.version == 4 and scout.features == NUM_FEATURES and scout.mat == "bordered"
    for n in (net, scout):
        assert (n.observation_size, n.num_actions) == (SIZE, ACTIONS)
        assert n.meta["training"]["steps"] > 0 and n.meta["training"]["decisions"] > 0


def test_scout_plays_legal_games_and_the_greedy_bot_on_a_mat_it_was_not_trained_for() -> None:
    from lordsofwar.bots import make_bot
    from lordsofwar.bots.play import play_game
    from lordsofwar.bots.policy import ScoutBot
    from lordsofwar.rules.position import Variant

    scout = make_bot("scout", 1)
    assert isinstance(scout, ScoutBot)
    out = play_game({1: scout, 2: make_bot("random", 2)}, seed=4)  # play_game refuses an illegal action
    assert out.winner == 1
    unbordered = Variant(mat="unbordered")
    out = play_game({1: make_bot("random", 3), 2: make_bot("scout", 4)}, seed=5, variant=unbordered)
    assert len(out.actions) > 10
    again = play_game({1: make_bot("random", 3), 2: make_bot("greedy", 4)}, seed=5, variant=unbordered)
    assert out.actions == again.actions  # there it plays exactly as the greedy bot seeded alike


def head_network(path: Path, hidden: tuple[int, ...] = (12, 8), n_features: int = 11, **meta: Any) -> Path:
    rng = np.random.default_rng(0)
    policy = layers([SIZE, *hidden, ACTIONS], rng)
    value = layers([hidden[-1], 5, 1], rng)
    head = layers([n_features + hidden[-1], 6, 1], rng)
    header: dict[str, Any] = {"mat": "bordered", "frame": [7, 6], "observation_size": SIZE, "num_actions": ACTIONS}
    header.update(value_from=len(hidden) - 1, action_from=len(hidden) - 1, features=n_features)
    header.update(meta)
    save_network(path, policy, value, header, head)
    return path


def test_a_version_4_network_adds_its_action_head_s_score_to_the_legal_actions_logits(tmp_path: Path) -> None:
    path = head_network(tmp_path / "n.npz")
    net = Policy(path)
    assert net.version == 4 and net.features == 11 and net.has_value
    rng = np.random.default_rng(3)
    x = rng.random(SIZE).astype(np.float32)
    ids = np.array([5, 17, 900])
    f = rng.random((3, 11)).astype(np.float32)
    with np.load(path) as a:
        h = np.maximum(np.maximum(x @ a["w0"] + a["b0"], 0) @ a["w1"] + a["b1"], 0)
        logits = h @ a["w2"] + a["b2"]
        extra = (
            np.maximum(np.concatenate([f, np.tile(h, (3, 1))], axis=1) @ a["aw0"] + a["ab0"], 0) @ a["aw1"] + a["ab1"]
        )
    np.testing.assert_allclose(net.action_logits(x, ids, f), logits[ids] + extra[:, 0], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(net.logits(x), logits, rtol=1e-5, atol=1e-5)  # the plain logits are unchanged
    with pytest.raises(PolicyError, match="reads 11 features"):
        net.action_logits(x, ids, f[:, :5])
    plain = Policy(network(tmp_path / "v3.npz"))  # no head: the plain logits of the ids
    np.testing.assert_allclose(plain.action_logits(x, ids, f), plain.logits(x)[ids], rtol=1e-6)


@pytest.mark.parametrize(
    ("meta", "drop", "message"),
    [
        ({"action_from": 2}, (), "action_from 2 is not a hidden policy layer"),
        ({"action_from": True}, (), "action_from True"),
        ({"features": 0}, (), "features 0 is not a positive count"),
        ({"features": 10}, (), "does not read 10 features and layer 1"),
        ({}, ("aw1", "ab1"), "not two layers ending in one number"),
    ],
)
def test_malformed_action_heads_are_refused(
    tmp_path: Path, meta: dict[str, Any], drop: tuple[str, ...], message: str
) -> None:
    path = head_network(tmp_path / "n.npz", **meta)
    if drop:
        path = rewrite(path, tmp_path / "m.npz", drop)
    with pytest.raises(PolicyError, match=message):
        Policy(path)


def test_the_greedy_features_rank_the_actions_of_a_decision() -> None:
    from lordsofwar.bots.features import NUM_FEATURES, VALUE_SCALE, features
    from lordsofwar.bots.greedy import WIN

    raw = np.array(
        [
            [2.0, 1.0, -1.0],  # best score, deploy: greedy's pick (highest exposure among the tied)
            [2.0, 1.0, -3.0],  # best score, worse exposure
            [2.0, 0.0, 0.0],  # best score, a shot: a lower preference
            [-5.0, 1.0, 0.0],
            [WIN + 1.0, 3.0, 0.0],  # wins the game
            [-WIN, 1.0, 0.0],  # loses it
        ],
        np.float32,
    )
    f = features(raw[:4])
    assert f.shape == (4, NUM_FEATURES)
    assert f[:, 8].tolist() == [1, 0, 0, 0] and f[:, 4].tolist() == [1, 1, 1, 0]
    np.testing.assert_allclose(f[:, 3], [0, 0, 0, -7 / VALUE_SCALE])
    np.testing.assert_allclose(f[:, 9], [0, 1 / 3, 2 / 3, 1])
    np.testing.assert_allclose(f[:, 10], 0.25)
    g = features(raw)
    assert g[:, 0].tolist() == [0, 0, 0, 0, 1, 0] and g[:, 1].tolist() == [0, 0, 0, 0, 0, 1]
    assert g[:, 8].tolist() == [0, 0, 0, 0, 1, 0]  # a win beats every score
    np.testing.assert_allclose(g[4, 2], 1 / VALUE_SCALE)
    assert np.all(g[:4, 3] == -3)  # far below a win
    assert features(np.zeros((0, 3))).shape == (0, NUM_FEATURES)


def test_the_python_engine_judges_every_legal_action_as_the_core_does() -> None:
    """The score and the preference exactly; the exposure in all but a rare tie (one action in
    these three games)."""
    from lordsofwar.core import _python

    compared = differ = 0
    for seed in (8, 9, 10):  # games between a random player and the greedy bot
        decks, pos = deal_for(seed)
        rng = random.Random(seed)
        for _ in range(120):
            if pos.result is not None:
                break
            view = notation.view(pos, pos.decider)
            native_game = core.Game.from_position(view)
            native = sorted(native_game.greedy_scores())
            python = sorted(_python.Game.from_position(view).greedy_scores())
            assert [t for t, *_ in native] == [t for t, *_ in python]
            np.testing.assert_allclose([n[1:3] for n in native], [p[1:3] for p in python], rtol=1e-9, atol=1e-9)
            # The exposure is judged where the simulated turn stops; between equally good steps the
            # two engines may take different ones (they list the legal actions in other orders).
            differ += sum(abs(n[3] - p[3]) > 1e-9 for n, p in zip(native, python, strict=True))
            compared += len(native)
            greedy_turn = pos.decider == 1 + seed % 2
            pos.push(parse_action(native_game.greedy_action(seed), pos) if greedy_turn else rng.choice(pos.legal_actions()))
    assert compared > 1000 and differ <= compared // 200, (differ, compared)

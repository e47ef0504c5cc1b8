"""The core's network evaluator (src/core/net.cpp): it reads the observation exactly as
``flat_observation(observe(...))`` makes it and gives the logits and the value that the NumPy
forward pass of :mod:`lordsofwar.bots.policy` gives, on both mats and both hand variants."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from lordsofwar import core
from lordsofwar.bots.play import deal_for
from lordsofwar.bots.policy import Policy, save_network
from lordsofwar.bots.search import core_network
from lordsofwar.rl.config import Config, flat_observation, observation_scale
from lordsofwar.rules.state import Variant

pytestmark = pytest.mark.skipif(core.IMPLEMENTATION != "native", reason="the evaluator is in the compiled core")


def random_network(
    path: Path,
    mat: str = "bordered",
    hidden: tuple[int, ...] = (48, 24),
    value_hidden: tuple[int, ...] = (8,),
    value_from: int | None = None,
    seed: int = 0,
) -> Path:
    """A randomly initialised version 3 network file for ``mat`` (the trainer's structure:
    a ReLU trunk, a logit per action id, a value head from a hidden layer)."""
    config = Config.of(mat=mat)
    rng = np.random.default_rng(seed)
    sizes = [config.observation_size, *hidden, config.num_actions]
    policy = [
        (rng.normal(0, 2 / np.sqrt(a), (a, b)).astype(np.float32), rng.normal(0, 0.1, b).astype(np.float32))
        for a, b in zip(sizes, sizes[1:], strict=False)
    ]
    source = len(hidden) - 1 if value_from is None else value_from
    vsizes = [hidden[source], *value_hidden, 1]
    value = [
        (rng.normal(0, 1 / np.sqrt(a), (a, b)).astype(np.float32), rng.normal(0, 0.1, b).astype(np.float32))
        for a, b in zip(vsizes, vsizes[1:], strict=False)
    ]
    meta = {
        "mat": mat,
        "frame": [config.width, config.height] if mat == "bordered" else list(config.frame),
        "observation_size": config.observation_size,
        "num_actions": config.num_actions,
        "value_from": source,
        "training": {"data": "random initialisation (tests)"},
    }
    save_network(path, policy, value, meta)
    return path


def core_net(policy: Policy) -> Any:
    return core_network(policy)


def positions(variant: Variant, games: int, seed: int) -> list[Any]:
    """Positions along random games (every decision of each, the deal's included)."""
    rng = np.random.default_rng(seed)
    out = []
    for g in range(games):
        _decks, pos = deal_for(seed + g, variant)
        game = core.Game.from_position(pos)
        for _ in range(150):
            if game.is_over:
                break
            out.append(game.clone())
            ids = game.legal_ids()
            if not ids:
                break
            game.apply_id(int(rng.choice(ids)))
    return out


VARIANTS = [
    Variant(),
    Variant(hands="visible", rules="basic"),
    Variant(mat="unbordered"),
]


@pytest.mark.parametrize("variant", VARIANTS, ids=["bordered-hidden", "bordered-visible-basic", "unbordered"])
def test_evaluator_reads_the_scaled_observation_and_computes_the_numpy_forward_pass(
    variant: Variant, tmp_path: Path
) -> None:
    hidden = (16, 8) if variant.mat == "unbordered" else (48, 24)
    policy = Policy(random_network(tmp_path / "net.npz", variant.mat, hidden=hidden, value_from=0, seed=3))
    net = core_net(policy)
    games = positions(variant, 2 if variant.mat == "bordered" else 1, seed=11)
    assert len(games) > 60
    values = []
    for game in games:
        planes, info = game.observation()
        expected = flat_observation(planes, info)
        mine = np.asarray(net.observation(game._s), np.float32)
        np.testing.assert_allclose(mine, expected, rtol=0, atol=1e-6)
        ids, logits, value, _seconds = net.evaluate(game._s)
        legal = game.legal_ids()
        assert ids == sorted(legal)
        ref_logits, ref_value = policy.evaluate(expected)
        assert ref_value is not None
        np.testing.assert_allclose(logits, ref_logits[ids], rtol=1e-5, atol=1e-5)
        assert value == pytest.approx(float(ref_value), abs=1e-5)
        values.append(value)
    assert -1 < min(values) < max(values) < 1  # the value varies with the position


def test_a_network_of_the_other_shape_is_refused_with_the_reason(tmp_path: Path) -> None:
    policy = Policy(random_network(tmp_path / "net.npz"))
    config = Config.of()
    scale = observation_scale(config.planes_size).tolist()
    layers, value = policy.layers, policy.value_layers
    with pytest.raises(ValueError, match="does not follow"):
        core._core.Net([layers[0], layers[2]], value, 0, 7, 6, scale)
    with pytest.raises(ValueError, match="value_from must name a hidden layer"):
        core._core.Net(layers, value, 2, 7, 6, scale)
    with pytest.raises(ValueError, match="value layer vw0 does not follow"):
        core._core.Net(layers, value, 0, 7, 6, scale)
    with pytest.raises(ValueError, match="end in one output"):
        core._core.Net(layers, value[:1], 1, 7, 6, scale)
    with pytest.raises(ValueError, match="first layer reads 1860 numbers"):
        core._core.Net(layers, value, 1, 21, 21, scale)
    with pytest.raises(ValueError, match="one scale per observation number"):
        core._core.Net(layers, value, 1, 7, 6, scale[:-1])
    wide = Policy(random_network(tmp_path / "wide.npz", "unbordered", hidden=(4, 4)))
    bordered: Any = core.Game.from_position(deal_for(1)[1])
    with pytest.raises(ValueError, match="action ids are not this game's"):
        core_net(wide).evaluate(bordered._s)


@pytest.mark.parametrize("variant", VARIANTS[:2], ids=["bordered-hidden", "bordered-visible-basic"])
def test_the_action_head_of_the_shipped_scout_network_scores_as_numpy_does(variant: Variant) -> None:
    """A version 4 file (``scout.npz``): the core's logits, the action head's scores of the
    greedy bot's features added (computed in C++: ``greedy_features``), equal
    ``Policy.action_logits`` of ``features(raw_scores(...))`` at every decision of greedy-played
    games, and the value equals the NumPy one."""
    from lordsofwar.bots.features import features, raw_scores
    from lordsofwar.bots.policy import SCOUT
    from lordsofwar.core._native import greedy_handle

    policy = Policy(SCOUT)
    assert policy.version == 4 and policy.action_layers
    net = core_net(policy)
    assert net.has_action_head
    rng = np.random.default_rng(4)
    points = 0
    for g in range(3):
        _decks, pos = deal_for(40 + g, variant)
        game: Any = core.Game.from_position(pos)
        greedy = greedy_handle(game.cards, game.variant)
        while not game.is_over and points < 240:
            legal = game.legal()
            if len(legal) > 1:
                ids, logits, value, _seconds = net.evaluate(game._s, 1, greedy)
                want_ids, raw = raw_scores(game)
                assert ids == want_ids.tolist()
                planes, info = game.observation()
                x = policy.observe(planes, info)
                np.testing.assert_allclose(logits, policy.action_logits(x, want_ids, features(raw)), atol=2e-5)
                _logits, want_value = policy.evaluate(x)
                assert want_value is not None and value == pytest.approx(float(want_value), abs=1e-5)
                points += 1
            if rng.random() < 0.5:
                game.apply(game.greedy_action(int(rng.integers(2**32))))
            else:
                game.apply(legal[int(rng.integers(len(legal)))])
    assert points >= 150
    fresh: Any = core.Game.from_position(deal_for(1)[1])
    with pytest.raises(ValueError, match="needs the greedy bot's settings"):
        net.evaluate(fresh._s)


def test_a_search_guided_by_an_action_head_plays_and_refuses_without_the_greedy_settings() -> None:
    """The search reads a version 4 network's priors (the action head's, from the greedy bot's
    judgement of each action at a new node): it plays legal actions, repeats from its seed, and
    is refused without the greedy bot's settings."""
    from lordsofwar.bots.policy import SCOUT
    from lordsofwar.bots.search import LEVELS, SearchBot, SearchLevel, core_settings

    level = SearchLevel("scout-guided", 300, 0.0, network="scout.npz", c_puct=3.0, mix=1.0, hit_prior=1.0)
    first, second = SearchBot(level, seed=5), SearchBot(level, seed=5)
    _decks, pos = deal_for(9)
    game: Any = core.Game.from_position(pos)
    for _ in range(12):
        view = game.view(game.decider).to_position()
        a, b = first.choose(view), second.choose(view)
        assert str(a) == str(b) and str(a) in {str(x) for x in game.legal()}
        game.apply(str(a))
    settings = core_settings(LEVELS["marshal"])
    net = core_net(Policy(SCOUT))
    with pytest.raises(ValueError, match="needs the greedy bot's settings"):
        game._s.search(iterations=10, seconds=0, seed=1, value=[1.0] * 300, pool1=[], pool2=[], net=net, **settings)


def test_subnormal_weights_are_read_as_zero_by_both_forward_passes(tmp_path: Path) -> None:
    """Weight decay leaves subnormal weights (below float32's smallest normal number): both the
    NumPy forward pass and the core's read them as 0 (on many processors each multiply-add that
    meets one is a hundred times slower), so the two still agree, and nothing a float32 holds
    changes."""
    source = Policy(random_network(tmp_path / "net.npz", seed=7))
    rng = np.random.default_rng(7)
    layers = [(w.copy(), b.copy()) for w, b in source.layers]
    tiny = np.float32(1e-40)  # subnormal
    for w, b in layers:
        w.flat[rng.choice(w.size, w.size // 10, replace=False)] = tiny
        b.flat[0] = -tiny
    meta = {
        "mat": "bordered",
        "frame": [7, 6],
        "observation_size": source.observation_size,
        "num_actions": source.num_actions,
        "value_from": source.value_from,
    }
    save_network(tmp_path / "subnormal.npz", layers, source.value_layers, meta)
    policy = Policy(tmp_path / "subnormal.npz")
    for (w, b), (w0, b0) in zip(policy.layers, layers, strict=True):
        assert not np.any((w != 0) & (np.abs(w) < np.finfo(np.float32).tiny)) and b[0] == 0
        assert np.array_equal(w[np.abs(w0) != tiny], w0[np.abs(w0) != tiny]) and np.array_equal(b[1:], b0[1:])
    net = core_net(policy)
    for game in positions(Variant(), 1, seed=5)[:40]:
        planes, info = game.observation()
        ids, logits, value, _seconds = net.evaluate(game._s)
        ref_logits, ref_value = policy.evaluate(flat_observation(planes, info))
        assert ref_value is not None
        np.testing.assert_allclose(logits, ref_logits[ids], rtol=1e-5, atol=1e-5)
        assert value == pytest.approx(float(ref_value), abs=1e-5)

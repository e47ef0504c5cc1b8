"""Seeds of bots, hints and analyses: derived from the server key (HMAC-SHA256), never from the
deal's secret seed, so that nothing a worker is given reveals the order of the decks; the same
for the same key, game, version and seat, so a retried job decides alike. The command line's
``match`` and ``play`` seed their bots apart from the deal too."""

from __future__ import annotations

import time
from typing import Any

from click.testing import CliRunner

from lordsofwar import cli, tui
from lordsofwar.bots import make_bot as real_make
from lordsofwar.bots import play
from lordsofwar.web.games.runtime import job_seed
from tests.web.conftest import Player, play_opening


def _recording(svc: Any, method: str, calls: list[tuple[Any, ...]]) -> None:
    original = getattr(svc.games.bots, method)

    async def record(*args: Any, **kwargs: Any) -> Any:
        calls.append(args)
        return await original(*args, **kwargs)

    setattr(svc.games.bots, method, record)


def _wait(check: Any, limit: float = 60.0) -> None:
    deadline = time.monotonic() + limit
    while not check():
        assert time.monotonic() < deadline
        time.sleep(0.02)


def test_a_bot_jobs_seed_is_not_the_deals(client: Any, alice: Player) -> None:
    svc = client.app.state.services
    key = svc.games.key
    assert key is not None
    calls: list[tuple[Any, ...]] = []
    _recording(svc, "choose", calls)
    r = alice.post("/api/invitations", {"bot": "greedy", "options": {"creator_side": "2", "length": "15/3"}})
    assert r.status_code == 201, r.text
    game = r.json()["game"]
    play_opening(game, alice)  # the bot plays its first turn (two decisions), alice hers
    _wait(lambda: len(calls) >= 3)
    deal_seed = client.portal.call(svc.games.runtime, game).game.seed
    # each decision's seed is HMAC(server key, game, version, seat): deterministic, so a retried
    # job is the same; and unrelated to the deal's seed (the old formula gave it back)
    by_version = {job_seed(key, "bot", game, v, 1): v for v in range(100)}
    assert calls[0][1] == job_seed(key, "bot", game, 0, 1)
    for name, seed, *rest in calls:
        assert name == "greedy" and deal_seed not in (seed, *rest)  # the job never receives the deal's seed
        v = by_version[seed]
        assert (seed ^ (v * 7919 + 1)) & (2**63 - 1) != deal_seed
    assert job_seed(key, "bot", game, 0, 1) == job_seed(key, "bot", game, 0, 1)
    assert len({job_seed(key, label, game, 0, 1) for label in ("bot", "hint", "analysis")}) == 3
    assert job_seed(key, "bot", game, 0, 1) != job_seed(b"another server's key", "bot", game, 0, 1)


def test_hint_and_analysis_seeds_are_not_the_deals(client: Any, alice: Player) -> None:
    svc = client.app.state.services
    key = svc.games.key
    hints: list[tuple[Any, ...]] = []
    judged: list[tuple[Any, ...]] = []
    _recording(svc, "hint", hints)
    _recording(svc, "judge", judged)
    options = {"creator_side": "1", "hints": True, "length": "15/3"}
    game = alice.post("/api/invitations", {"bot": "random", "options": options}).json()["game"]
    r = alice.post(f"/api/games/{game}/hint")
    assert r.status_code == 200, r.text
    deal_seed = client.portal.call(svc.games.runtime, game).game.seed
    (call,) = hints
    assert call[3] == job_seed(key, "hint", game, 0, 1) and call[3] != deal_seed ^ 0 and deal_seed not in call
    play_opening(game, alice)
    assert alice.post(f"/api/games/{game}/resign").status_code == 200
    assert alice.post(f"/api/games/{game}/analysis").status_code == 200
    _wait(lambda: alice.get(f"/api/games/{game}/analysis").json()["status"] != "running", 120)
    assert judged and all(c[2] == job_seed(key, "analysis", game, 0) & (2**31 - 1) for c in judged)
    assert all(c[2] != deal_seed & (2**31 - 1) for c in judged)


def test_match_and_play_seed_their_bots_apart_from_the_deal(monkeypatch: Any) -> None:
    made: list[tuple[str, int | None]] = []
    dealt: list[int] = []
    real_play = play.play_game

    def make_bot(name: str, seed: int | None = None) -> Any:
        made.append((name, seed))
        return real_make(name, seed)

    def play_game(bots: Any, seed: int, variant: Any = None, *args: Any) -> Any:
        dealt.append(seed)
        return real_play(bots, seed, variant, *args)

    monkeypatch.setattr(play, "make_bot", make_bot)
    monkeypatch.setattr(play, "play_game", play_game)
    first = play.match_game("random", "random", 7)
    assert made == [("random", play.derived_seed(7, "bot", 2)), ("random", play.derived_seed(7, "bot", 1))]
    assert dealt == [play.derived_seed(7, "deal")]
    assert dealt[0] not in (7, *(s for _n, s in made))  # old: the deal 7, the bots 15 and 16
    assert {s for _n, s in made}.isdisjoint({7 * 2 + 1, 7 * 2 + 2})
    again = play.match_game("random", "random", 7)  # reproducible from the match's seed (times aside)
    assert {k: v for k, v in again.items() if not k.endswith("_ms")} == {
        k: v for k, v in first.items() if not k.endswith("_ms")
    }
    # play: the bot's seed is a stream of its own (--bot-seed, else drawn at random)
    seen: list[dict[str, Any]] = []

    def run_play(**kw: Any) -> int:
        seen.append(kw)
        return 0

    monkeypatch.setattr(tui, "run_play", run_play)
    runner = CliRunner()
    assert runner.invoke(cli.cli, ["play", "--seed", "5", "--bot-seed", "99"]).exit_code == 0
    assert runner.invoke(cli.cli, ["play", "--seed", "5"]).exit_code == 0
    assert runner.invoke(cli.cli, ["play", "--seed", "5"]).exit_code == 0
    assert [s["seed"] for s in seen] == [5, 5, 5] and seen[0]["bot_seed"] == 99
    assert seen[1]["bot_seed"] != seen[2]["bot_seed"] and 5 not in (seen[1]["bot_seed"], seen[2]["bot_seed"])

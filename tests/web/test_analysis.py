"""A finished game's analysis over the API: started once, its progress, its stored result; refused
for a running game, another player's private game and an unknown game."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from lordsofwar import core
from lordsofwar.bots import TOP
from lordsofwar.web.app import create_app
from tests.web.conftest import Player, new_game, settings_for

pytestmark = pytest.mark.skipif(core.IMPLEMENTATION != "native", reason="the search bots need the compiled core")


@pytest.fixture
def fast(db_url: str) -> Iterator[TestClient]:
    app = create_app(settings_for(db_url, analysis_iterations=60))
    with TestClient(app, base_url="http://testserver") as c:
        yield c


def finished_bot_game(player: Player, moves: int = 40, public: bool = True) -> int:
    """A game against the greedy bot: random actions for a while, then a resignation."""
    r = player.post("/api/invitations", {"bot": "greedy", "options": {"creator_side": "1", "public": public}})
    game = int(r.json()["game"])
    rng = random.Random(2)
    played = 0
    deadline = time.monotonic() + 60
    while played < moves and time.monotonic() < deadline:
        s = player.state(game)
        if s["game"]["status"] != "running":
            break
        if s["legal"]:
            assert player.act(game, rng.choice(s["legal"]), s["game"]["version"]).status_code in (200, 409)
            played += 1
        else:
            time.sleep(0.02)
    if player.state(game)["game"]["status"] == "running":
        r = player.post(f"/api/games/{game}/resign")
        # the bot's turn may end the game between the look and the resignation: then it is over
        assert r.status_code == 200 or (r.status_code == 409 and player.state(game)["game"]["status"] == "over"), r.text
    return game


def wait_done(player: Player, game: int, limit: float = 120) -> dict[str, Any]:
    deadline = time.monotonic() + limit
    seen: list[int] = []
    while time.monotonic() < deadline:
        doc = player.get(f"/api/games/{game}/analysis").json()
        seen.append(doc["done"])
        if doc["status"] != "running":
            assert seen == sorted(seen), "the progress went backwards"
            return dict(doc)
        time.sleep(0.1)
    raise AssertionError("the analysis did not finish")


def test_a_finished_game_is_analysed_once(fast: TestClient) -> None:
    alice = Player(fast, "alice").signup()
    bob = Player(fast, "bob").signup()
    game = finished_bot_game(alice)
    assert alice.get(f"/api/games/{game}/analysis").status_code == 404
    r = alice.post(f"/api/games/{game}/analysis")
    assert r.status_code == 200, r.text
    first = r.json()
    actions = alice.state(game)["game"]["version"]
    assert first["started"] is True and first["status"] == "running" and first["level"] == TOP == "marshal"
    doc = wait_done(alice, game)
    assert doc["status"] == "done", doc["error"]
    result = doc["result"]
    record = alice.get(f"/api/games/{game}/record").json()
    n = len(record["actions"])
    assert doc["total"] == doc["done"] == n and actions >= n
    assert [d["n"] for d in result["decisions"]] == list(range(1, n + 1))
    assert [d["played"] for d in result["decisions"]] == record["actions"]
    assert len(result["graph"]) == n + 1 and all(0 <= p <= 1 for p in result["graph"])
    assert result["graph"][-1] == 0.0  # alice (player 1) resigned
    for d in result["decisions"]:
        if d["forced"]:
            assert d["verdict"] is None and d["win_best"] is None
        else:
            assert d["best"] and 0 <= d["win_best"] <= 1
    assert result["mistakes"] == [d["n"] for d in result["decisions"] if d["verdict"]]
    # asked again, by anyone who may see the game: the stored analysis, nothing started
    again = bob.post(f"/api/games/{game}/analysis").json()
    assert again["started"] is False and again["result"] == result
    assert bob.get(f"/api/games/{game}/analysis").json()["result"] == result


def test_no_analysis_of_a_running_or_hidden_game(fast: TestClient) -> None:
    alice = Player(fast, "alice").signup()
    bob = Player(fast, "bob").signup()
    carol = Player(fast, "carol").signup()
    running = new_game(alice, bob)
    r = alice.post(f"/api/games/{running}/analysis")
    assert r.status_code == 409 and "still running" in r.json()["detail"]
    assert alice.get(f"/api/games/{running}/analysis").status_code == 404
    private = finished_bot_game(alice, moves=4, public=False)
    r = carol.post(f"/api/games/{private}/analysis")
    assert r.status_code == 403
    assert carol.get(f"/api/games/{private}/analysis").status_code == 403
    assert alice.post("/api/games/999999/analysis").status_code == 404
    r = alice.post(f"/api/games/{private}/analysis", csrf="forged")
    assert r.status_code == 403
    assert alice.get(f"/api/games/{private}/analysis").status_code == 404  # the forged request changed nothing

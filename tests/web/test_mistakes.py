"""Exercises from your own mistakes over the API: only the player who made them gets them (and
only theirs), the position is that player's view with the opponent's hand hidden on the wire,
and a try is judged against a crafted stored analysis: its preferred action right, the played
action wrong, another action by the search's scores within or beyond the margin, an unscored one
unjudged, an illegal one refused; once, the real search runs in the bot pool."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from lordsofwar import core
from lordsofwar.bots.analysis import MISTAKE, decisions_of
from lordsofwar.rules import notation
from lordsofwar.web.app import create_app
from lordsofwar.web.models import GameAnalysis
from tests.web.conftest import Player, database, new_game, settings_for


@pytest.fixture
def fast(tmp_path: Any) -> Iterator[TestClient]:
    """SQLite only (the API tests above run on both databases), few search iterations."""
    with database("sqlite", tmp_path) as url, TestClient(create_app(settings_for(url, analysis_iterations=60))) as c:
        yield c


@pytest.fixture
def alice(fast: TestClient) -> Player:
    return Player(fast, "alice").signup()


@pytest.fixture
def bob(fast: TestClient) -> Player:
    return Player(fast, "bob").signup()


def play_and_resign(a: Player, b: Player, steps: int = 26, seed: int = 3) -> int:
    """A game between a and b: random legal actions, then b resigns."""
    game = new_game(a, b)
    rng = random.Random(seed)
    for _ in range(steps):
        sa = a.state(game)
        if sa["game"]["status"] != "running":
            break
        who, s = (a, sa) if sa["legal"] else (b, b.state(game))
        assert who.act(game, rng.choice(s["legal"]), s["game"]["version"]).status_code == 200
    if a.state(game)["game"]["status"] == "running":
        assert b.post(f"/api/games/{game}/resign").status_code == 200
    return game


def record_of(p: Player, game: int) -> notation.GameRecord:
    r = p.get(f"/api/games/{game}/record")
    assert r.status_code == 200, r.text
    return notation.parse_record(r.json())


def alternative(decision: dict[str, Any], *avoid: str) -> str:
    legal = sorted(str(a) for a in notation.parse_position(decision["view"]).legal_actions())
    return next(a for a in legal if a not in avoid)


def store_analysis(client: TestClient, game: int, entries: list[dict[str, Any]]) -> None:
    async def add() -> None:
        async with client.app.state.services.sessions() as db:  # type: ignore[attr-defined]
            result = {
                "level": "general",
                "decisions": entries,
                "graph": [0.5] * (len(entries) + 1),
                "mistakes": [e["n"] for e in entries if e.get("verdict")],
            }
            db.add(
                GameAnalysis(
                    game_id=game, status="done", done=len(entries), total=len(entries), level="general", result=result
                )
            )
            await db.commit()

    client.portal.call(add)  # type: ignore[union-attr]


def unflagged(d: dict[str, Any]) -> dict[str, Any]:
    """A stored analysis' entry for decision ``d`` (decisions_of) that the search agreed with."""
    return {
        "n": d["n"],
        "turn": d["turn"],
        "player": d["player"],
        "played": d["played"],
        "forced": d["forced"],
        "best": d["played"],
        "squares": [],
        "win_best": 0.5,
        "win_played": 0.5,
        "drop": 0.0,
        "verdict": None,
    }


def crafted(client: TestClient, a: Player, b: Player) -> tuple[int, list[dict[str, Any]], dict[int, dict[str, Any]]]:
    """A finished game whose stored analysis marks two of a's decisions and one of b's; the
    preferred action of each marked one is another legal action. Returns the game, every
    decision (decisions_of) and the marked entries by step."""
    game = play_and_resign(a, b)
    decisions = decisions_of(record_of(a, game))
    free = [d for d in decisions if not d["forced"]]
    marked = [d for d in free if d["player"] == 1][:2] + [d for d in free if d["player"] == 2][:1]
    assert len(marked) == 3
    entries, flagged = [], {}
    for d in decisions:
        e = unflagged(d)
        if d in marked:
            e.update(
                best=alternative(d, d["played"]),
                win_best=0.62,
                win_played=0.41,
                drop=0.21,
                verdict="blunder" if d["player"] == 2 else "mistake",
            )
            flagged[d["n"]] = e
        entries.append(e)
    store_analysis(client, game, entries)
    return game, decisions, flagged


def test_only_the_player_gets_their_own_exercises(client: TestClient) -> None:
    alice, bob = Player(client, "alice").signup(), Player(client, "bob").signup()
    game, _decisions, flagged = crafted(client, alice, bob)
    for p, seat in ((alice, 1), (bob, 2)):
        r = p.get(f"/api/learn/mistakes/{game}")
        assert r.status_code == 200, r.text
        doc = r.json()
        assert doc["player"] == seat and doc["margin"] == MISTAKE
        assert [x["n"] for x in doc["exercises"]] == sorted(n for n, e in flagged.items() if e["player"] == seat)
        for x in doc["exercises"]:
            assert x["played"] == flagged[x["n"]]["played"] and x["verdict"] == flagged[x["n"]]["verdict"]
            assert flagged[x["n"]]["best"] in x["legal"] and x["played"] in x["legal"]
            assert "best" not in x  # the preferred action only comes with a try
        page = p.get(f"/learn/mistakes/{game}")
        assert page.status_code == 200 and 'id="mx-steps"' in page.text
    carol = Player(client, "carol").signup()
    assert carol.get(f"/api/learn/mistakes/{game}").status_code == 403
    assert carol.get(f"/learn/mistakes/{game}", headers={"Accept": "text/html"}).status_code == 403
    alice_n = min(n for n, e in flagged.items() if e["player"] == 1)
    assert carol.post(f"/api/learn/mistakes/{game}/{alice_n}", {"action": flagged[alice_n]["best"]}).status_code == 403
    # bob has no exercise at alice's step
    assert bob.post(f"/api/learn/mistakes/{game}/{alice_n}", {"action": flagged[alice_n]["best"]}).status_code == 404
    client.cookies.clear()
    assert client.get(f"/api/learn/mistakes/{game}").status_code == 401
    r = client.get(f"/learn/mistakes/{game}", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == f"/signin?next=/learn/mistakes/{game}"
    assert alice.get("/api/learn/mistakes/999999").status_code == 404
    # a game without an analysis, and a running game
    other = play_and_resign(alice, bob, steps=6, seed=5)
    assert alice.get(f"/api/learn/mistakes/{other}").status_code == 409
    running = new_game(alice, bob)
    assert alice.get(f"/api/learn/mistakes/{running}").status_code == 409


def test_the_position_is_the_players_own_view(fast: TestClient, alice: Player, bob: Player) -> None:
    game, _decisions, flagged = crafted(fast, alice, bob)
    record = record_of(alice, game)
    positions = notation.replay(record)
    for p, seat in ((alice, 1), (bob, 2)):
        r = p.get(f"/api/learn/mistakes/{game}")
        text = r.text
        assert '"seed"' not in text
        for x in r.json()["exercises"]:
            real = positions[x["n"] - 1]  # the position before the marked action
            view = x["view"]
            opp = 3 - seat
            assert all(c is None for c in view["players"][str(opp)]["hand"]), "the opponent's hand is hidden"
            assert all(isinstance(view["players"][k]["deck"], int) for k in "12"), "the decks are counts, not orders"
            shown = {u["card"] for u in view["board"]} | set(real.lost[1]) | set(real.lost[2]) | set(real.hands[seat])
            hidden = (set(real.hands[opp]) | set(real.decks[opp])) - shown
            assert hidden and not any(f'"{c}"' in json.dumps(x) for c in hidden)


def test_a_try_is_judged_against_the_analysis(fast: TestClient, alice: Player, bob: Player) -> None:
    game, decisions, flagged = crafted(fast, alice, bob)
    n = min(k for k, e in flagged.items() if e["player"] == 1)
    e = flagged[n]
    url = f"/api/learn/mistakes/{game}/{n}"
    r = alice.post(url, {"action": e["best"]})
    assert r.status_code == 200, r.text
    j = r.json()
    assert j["verdict"] == "best" and j["correct"] is True and j["best"] == e["best"]
    j = alice.post(url, {"action": e["played"]}).json()
    assert j["verdict"] == "played" and j["correct"] is False and j["best"] == e["best"] and j["drop"] == e["drop"]
    # other actions: by the search's scores of this decision (here put in its cache)
    legal = sorted(str(a) for a in notation.parse_position(decisions[n - 1]["view"]).legal_actions())
    others = [a for a in legal if a not in (e["best"], e["played"])]
    if len(others) < 3:
        pytest.skip("the crafted decision has too few legal actions")
    near, far, unseen = others[:3]
    fast.app.state.mistakes._scores[(game, n)] = {  # type: ignore[attr-defined]
        "best": e["best"],
        "win_best": 0.6,
        "scores": {e["best"]: 0.6, near: round(0.6 - MISTAKE + 0.01, 4), far: 0.6 - MISTAKE},
    }
    j = alice.post(url, {"action": near}).json()
    assert j["verdict"] == "good" and j["correct"] is True and j["drop"] < MISTAKE and j["best"] == e["best"]
    j = alice.post(url, {"action": far}).json()
    assert j["verdict"] == "worse" and j["correct"] is False and j["drop"] >= MISTAKE
    j = alice.post(url, {"action": unseen}).json()
    assert j["verdict"] == "unjudged" and j["correct"] is None and j["best"] is None
    # refused: not legal there, malformed, no CSRF token; nothing is judged
    r = alice.post(url, {"action": "deploy orcs:01 a1"})
    assert r.status_code == 422 and "not a legal action" in r.json()["detail"]
    assert alice.post(url, {"action": 7}).status_code == 422
    assert alice.post(url, {"action": "draw", "extra": 1}).status_code == 422
    assert alice.post(url, {"action": e["best"]}, csrf="forged").status_code == 403
    assert alice.post(f"/api/learn/mistakes/{game}/{n + 1000}", {"action": e["best"]}).status_code == 404


@pytest.mark.skipif(core.IMPLEMENTATION != "native", reason="the search bots need the compiled core")
def test_an_unscored_try_is_judged_by_the_same_search_in_the_bot_pool(
    fast: TestClient, alice: Player, bob: Player
) -> None:
    game, decisions, flagged = crafted(fast, alice, bob)
    n = min(k for k, e in flagged.items() if e["player"] == 1)
    e = flagged[n]
    legal = sorted(str(a) for a in notation.parse_position(decisions[n - 1]["view"]).legal_actions())
    tries = [a for a in legal if a not in (e["best"], e["played"])]
    if not tries:
        pytest.skip("the crafted decision has no third action")
    j = alice.post(f"/api/learn/mistakes/{game}/{n}", {"action": tries[0]}).json()
    scores = fast.app.state.mistakes._scores[(game, n)]  # type: ignore[attr-defined]
    assert set(scores) == {"best", "win_best", "scores"} and scores["scores"]
    if j["verdict"] == "unjudged":
        assert tries[0] not in scores["scores"]
    else:
        assert j["win"] == scores["scores"][tries[0]]
        assert j["correct"] is (scores["win_best"] - j["win"] < MISTAKE)
        assert j["verdict"] == ("good" if j["correct"] else "worse")

"""Hints in games against a bot, and search bots playing on the server through the worker pool."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from lordsofwar import core
from lordsofwar.rules import notation
from lordsofwar.web.app import create_app
from tests.web.conftest import Player, new_game, settings_for

pytestmark = pytest.mark.skipif(core.IMPLEMENTATION != "native", reason="the search bots need the compiled core")


def bot_game(player: Player, bot: str, **options: Any) -> int:
    r = player.post("/api/invitations", {"bot": bot, "options": {"creator_side": "1", **options}})
    assert r.status_code == 201, r.text
    return int(r.json()["game"])


def my_turn(player: Player, game: int, limit: float = 30) -> dict[str, Any]:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        s = player.state(game)
        if s["legal"] or s["game"]["status"] != "running":
            return s
        time.sleep(0.05)
    raise AssertionError("the bot did not answer")


def test_a_hint_is_a_legal_action_of_the_players_own_view(alice: Player, bob: Player) -> None:
    game = bot_game(alice, "veteran", hints=True)
    s = my_turn(alice, game)
    assert s["game"]["hints"] is True
    r = alice.post(f"/api/games/{game}/hint")
    assert r.status_code == 200, r.text
    hint = r.json()
    assert hint["action"] in s["legal"]
    assert hint["version"] == s["game"]["version"] and hint["player"] == 1
    action = notation.parse_action(hint["action"], notation.parse_position(s["view"]))
    from lordsofwar.rules import mat

    assert hint["squares"] == [mat.name(q) for q in (action.frm, action.to) if q is not None]
    assert 0 <= hint["win"] <= 1 and hint["iterations"] > 0
    # asked again on the same decision: the same answer, not a second search
    assert alice.post(f"/api/games/{game}/hint").json() == hint
    # nothing hidden in it: the bot's hand and both decks are not named
    body = json.dumps(hint)
    g = alice.state(game)
    seen = set(g["view"]["players"]["1"]["hand"]) | {u["card"] for u in g["view"]["board"]}
    named = {w for w in body.replace('"', " ").split() if ":" in w and w[:1].isalpha()}
    assert named <= seen, f"a hint names cards the player cannot see: {named - seen}"
    # the hint is played like any action, and the bot answers from the pool
    r = alice.act(game, hint["action"], s["game"]["version"])
    assert r.status_code == 200, r.text
    s2 = my_turn(alice, game)
    assert s2["game"]["version"] > s["game"]["version"]
    # others cannot ask
    assert bob.post(f"/api/games/{game}/hint").status_code == 403


def test_hints_only_where_allowed(alice: Player, bob: Player) -> None:
    plain = bot_game(alice, "random")
    my_turn(alice, plain)
    r = alice.post(f"/api/games/{plain}/hint")
    assert r.status_code == 403 and "hints are off" in r.json()["detail"]
    r = alice.post("/api/invitations", {"opponent": bob.name, "options": {"hints": True}})
    assert r.status_code == 400 and "only for games against a bot" in r.json()["detail"]
    human = new_game(alice, bob)
    r = alice.post(f"/api/games/{human}/hint")
    assert r.status_code == 403
    assert alice.state(human)["game"]["hints"] is False


@pytest.fixture
def slow_bots(db_url: str) -> Iterator[TestClient]:
    """A server whose bots wait 3 s before acting: the player is sure to be waiting for them."""
    app = create_app(settings_for(db_url, bot_delay=3.0))
    with TestClient(app, base_url="http://testserver") as c:
        yield c


def test_no_hint_when_it_is_not_your_turn_or_the_game_is_over(slow_bots: TestClient) -> None:
    alice = Player(slow_bots, "alice").signup()
    game = bot_game(alice, "random", hints=True, creator_side="2")
    assert not alice.state(game)["legal"]
    r = alice.post(f"/api/games/{game}/hint")
    assert r.status_code == 409 and "not your turn" in r.json()["detail"]
    my_turn(alice, game)
    assert alice.post(f"/api/games/{game}/resign").status_code == 200
    r = alice.post(f"/api/games/{game}/hint")
    assert r.status_code == 409 and "over" in r.json()["detail"]


def test_a_search_bot_plays_a_whole_game_on_the_server(alice: Player) -> None:
    game = bot_game(alice, "recruit", length="15/3")
    deadline = time.monotonic() + 120
    import random

    rng = random.Random(3)
    while time.monotonic() < deadline:
        s = my_turn(alice, game)
        if s["game"]["status"] != "running":
            break
        r = alice.act(game, rng.choice(s["legal"]), s["game"]["version"])
        assert r.status_code in (200, 409), r.text
    s = alice.state(game)
    assert s["game"]["status"] == "over"
    assert {e["player"] for e in s["log"] if e["action"]} == {1, 2}


def test_a_dead_worker_never_makes_the_bot_play_a_move_it_did_not_choose(db_url: str) -> None:
    """The pool fails (a worker killed, or the server stopping): the bot's turn is tried again
    and the bot's own choice is played, not a random action in its place."""
    from lordsofwar.web.games.botpool import BotPoolError

    app = create_app(settings_for(db_url, bot_delay=0.0))
    with TestClient(app, base_url="http://testserver") as c:
        service = app.state.service
        real = service.bots.choose
        calls: list[str] = []

        async def flaky(name: str, *args: Any) -> Any:
            calls.append(name)
            if len(calls) == 1:
                raise BotPoolError("the bot worker died")
            return await real(name, *args)

        service.bots.choose = flaky
        alice = Player(c, "alice").signup()
        game = bot_game(alice, "greedy", creator_side="2")
        s = my_turn(alice, game, limit=60)
        assert s["game"]["status"] == "running" and s["legal"]
        played = [e for e in s["log"] if e["player"] == 1]
        # every move of the bot's is one the bot chose: one per successful call to the pool,
        # none for the failed one (a random move in its place would make one more)
        assert calls[0] == "greedy" and len(calls) >= 2
        assert len(played) == len(calls) - 1

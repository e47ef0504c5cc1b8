"""Invitations and games over HTTP: every refusal says why and changes nothing (SQLite and PostgreSQL)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from fastapi.testclient import TestClient

from lordsofwar.rules import notation
from lordsofwar.rules.state import Result, Termination
from tests.web.conftest import Player, new_game, play_opening


def snapshot(p: Player, game_id: int) -> tuple[int, Any, Any]:
    s = p.state(game_id)
    return s["game"]["version"], s["view"], s["log"]


def test_open_challenge_accepted_by_anyone_starts_a_game(alice: Player, bob: Player) -> None:
    r = alice.post("/api/invitations", {"options": {"mode": "turn", "days": 2, "hands": "visible"}})
    assert r.status_code == 201
    inv = r.json()["invitation"]
    lobby = bob.get("/api/lobby").json()
    assert [i["id"] for i in lobby["open"]] == [inv]
    assert lobby["open"][0]["creator"] == "alice"
    assert "2 days/turn" in lobby["open"][0]["summary"]
    assert alice.get("/api/lobby").json()["outgoing"][0]["id"] == inv
    r = bob.post(f"/api/invitations/{inv}/accept")
    assert r.status_code == 200
    game = r.json()["game"]
    s = bob.state(game)
    assert s["game"]["time_control"] == {"mode": "turn", "days": 2}
    assert s["view"]["variant"]["hands"] == "visible"
    assert {s["game"]["players"]["1"]["name"], s["game"]["players"]["2"]["name"]} == {"alice", "bob"}
    assert bob.post(f"/api/invitations/{inv}/accept").status_code == 409
    assert bob.get("/api/lobby").json()["open"] == []


def test_direct_challenge_only_for_the_named_player(client: TestClient, alice: Player, bob: Player) -> None:
    carol = Player(client, "carol").signup()
    inv = alice.post("/api/invitations", {"opponent": "BOB"}).json()["invitation"]
    assert bob.get("/api/lobby").json()["incoming"][0]["creator"] == "alice"
    assert carol.get("/api/lobby").json()["incoming"] == []
    assert carol.get("/api/lobby").json()["open"] == []
    r = carol.post(f"/api/invitations/{inv}/accept")
    assert r.status_code == 403 and "another player" in r.json()["detail"]
    assert carol.post(f"/api/invitations/{inv}/decline").status_code == 403
    assert alice.post(f"/api/invitations/{inv}/accept").status_code == 403
    assert bob.post(f"/api/invitations/{inv}/cancel").status_code == 403
    assert bob.post(f"/api/invitations/{inv}/decline").status_code == 200
    r = bob.post(f"/api/invitations/{inv}/accept")
    assert r.status_code == 409 and "declined" in r.json()["detail"]


def test_cancel_by_the_creator(alice: Player, bob: Player) -> None:
    inv = alice.post("/api/invitations", {}).json()["invitation"]
    assert alice.post(f"/api/invitations/{inv}/cancel").status_code == 200
    assert bob.post(f"/api/invitations/{inv}/accept").status_code == 409
    assert alice.get("/api/lobby").json()["outgoing"] == []


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        ({"opponent": "nobody"}, 404, "no player called"),
        ({"opponent": "alice"}, 403, "yourself"),
        ({"bot": "oracle"}, 400, "unknown bot"),
        ({"options": {"length": "30/6"}}, 422, "length"),
        ({"options": {"minutes": 0}}, 422, "minutes"),
        ({"options": {"days": 9}}, 422, "days"),
        ({"options": {"rules": "expert"}}, 422, "rules"),
        ({"options": {"creator_army": "goblins"}}, 422, "creator_army"),
        ({"options": {"colour": "red"}}, 422, "colour"),
        ({"opponent": "x" * 101}, 422, "opponent"),
    ],
)
def test_bad_invitations_are_refused(alice: Player, body: dict[str, Any], status: int, message: str) -> None:
    r = alice.post("/api/invitations", body)
    assert r.status_code == status
    assert message in r.json()["detail"]
    assert alice.get("/api/lobby").json()["outgoing"] == []


def test_signed_out_cannot_invite(client: TestClient) -> None:
    p = Player(client, "anon")
    p.refresh()
    r = p.post("/api/invitations", {})
    assert r.status_code == 401
    assert r.json()["detail"] == "sign in first"


def test_options_reach_the_game(alice: Player, bob: Player) -> None:
    game = new_game(
        alice, bob, rules="basic", hands="visible", mat="unbordered", length="15/3", minutes=5, increment=3
    )
    s = alice.state(game)
    assert s["view"]["variant"] == {
        "rules": "basic",
        "hands": "visible",
        "mat": "unbordered",
        "units_to_win": 15,
        "commands_to_win": 3,
        "no_progress_turns": 40,
    }
    assert s["view"]["players"]["1"]["army"] == "orcs" and s["view"]["players"]["2"]["army"] == "dwarves"
    assert s["game"]["time_control"] == {"mode": "live", "initial_s": 300, "increment_s": 3}
    assert s["game"]["you"] == 1 and bob.state(game)["game"]["you"] == 2
    assert s["view"]["players"]["2"]["hand"][0] is not None  # visible hands


def test_a_whole_turn_over_http_and_refusals_change_nothing(client: TestClient, alice: Player, bob: Player) -> None:
    game = new_game(alice, bob)
    s = alice.state(game)
    assert s["legal"] and all(a.startswith("deploy ") and a.endswith(" c3") for a in s["legal"])
    assert bob.state(game)["legal"] == []
    before = snapshot(alice, game)

    # not your turn, not your game, stale, malformed, illegal, over-long, forged CSRF
    r = bob.act(game, s["legal"][0])
    assert r.status_code == 409 and "not your turn" in r.json()["detail"]
    carol = Player(client, "carol").signup()
    r = carol.act(game, s["legal"][0], 0)
    assert r.status_code == 403 and "not playing" in r.json()["detail"]
    r = alice.act(game, s["legal"][0], 5)
    assert r.status_code == 409 and "stale" in r.json()["detail"]
    r = alice.act(game, "deploy orcs:07")
    assert r.status_code == 409 and "missing token" in r.json()["detail"]
    r = alice.act(game, "deploy orcs:01 d4")
    assert r.status_code == 409 and "deploy orcs:01 d4" in r.json()["detail"]
    r = alice.act(game, "deploy " + "x" * 200)
    assert r.status_code == 422 and "action" in r.json()["detail"]
    r = alice.post(f"/api/games/{game}/actions", {"action": s["legal"][0], "version": 0}, csrf="forged")
    assert r.status_code == 403
    r = alice.post(f"/api/games/{game}/actions", {"action": s["legal"][0], "version": "0"})
    assert r.status_code == 422
    r = alice.post(f"/api/games/{game}/actions", {"action": 7, "version": 0})
    assert r.status_code == 422
    assert snapshot(alice, game) == before

    r = alice.act(game, s["legal"][0], 0)
    assert r.status_code == 200
    after = r.json()
    assert after["game"]["version"] == 1
    assert after["log"][-1]["action"] == s["legal"][0]
    assert after["log"][-1]["events"][0]["type"] == "deploy"
    assert "draw" in after["legal"]
    # the same request again (a replay, or a second tab) is stale
    r = alice.act(game, s["legal"][0], 0)
    assert r.status_code == 409
    assert alice.act(game, "draw", 1).status_code == 200
    s2 = bob.state(game)
    assert s2["game"]["version"] == 2 and s2["legal"] and s2["view"]["to_move"] == 2


def test_private_game_is_hidden_from_others(client: TestClient, alice: Player, bob: Player) -> None:
    game = new_game(alice, bob, public=False)
    carol = Player(client, "carol").signup()
    r = carol.get(f"/api/games/{game}")
    assert r.status_code == 403 and "private" in r.json()["detail"]
    assert carol.get(f"/games/{game}", headers={"accept": "text/html"}).status_code == 403
    with pytest.raises(Exception), carol.socket(game) as ws:  # noqa: B017 - the server closes at once
        ws.receive_json()
    public = new_game(alice, bob)
    spectator = carol.state(public)
    assert spectator["game"]["you"] is None and spectator["legal"] == []


def test_resign_ends_the_game_and_the_record_replays(alice: Player, bob: Player) -> None:
    game = new_game(alice, bob)
    assert alice.get(f"/api/games/{game}/record").status_code == 409
    rng = random.Random(3)
    for _ in range(12):
        for p in (alice, bob):
            s = p.state(game)
            if s["legal"]:
                assert p.act(game, rng.choice(s["legal"]), s["game"]["version"]).status_code == 200
    r = bob.post(f"/api/games/{game}/resign")
    assert r.status_code == 200
    result = r.json()["game"]["result"]
    assert result == {"winner": 1, "reason": "player 2 resigned", "termination": "resignation", "player": 2}
    assert alice.state(game)["game"]["status"] == "over"
    assert alice.post(f"/api/games/{game}/resign").status_code == 409
    r = alice.get(f"/api/games/{game}/record")
    assert r.status_code == 200
    assert "attachment" in r.headers["content-disposition"]
    record = notation.parse_record(json.loads(r.text))
    assert record.names == ["alice", "bob"]
    positions = notation.replay(record)
    assert positions[-1].result is not None and positions[-1].result.winner == 1
    replay = bob.get(f"/api/games/{game}/replay").json()
    assert len(replay["positions"]) == len(record.actions) + 2
    assert replay["positions"][-1]["result"] == result


def test_draw_offer_decline_and_accept(alice: Player, bob: Player) -> None:
    game = new_game(alice, bob)
    r = bob.post(f"/api/games/{game}/draw", {"op": "accept"})
    assert r.status_code == 409 and "no draw offer" in r.json()["detail"]
    assert alice.post(f"/api/games/{game}/draw", {"op": "offer"}).json()["game"]["draw_offer"] == 1
    assert alice.post(f"/api/games/{game}/draw", {"op": "offer"}).status_code == 409
    assert bob.post(f"/api/games/{game}/draw", {"op": "decline"}).json()["game"]["draw_offer"] is None
    play_opening(game, alice, bob)  # a draw before both first turns would abort the game
    alice.post(f"/api/games/{game}/draw", {"op": "offer"})
    r = bob.post(f"/api/games/{game}/draw", {"op": "accept"})
    assert r.json()["game"]["result"] == {"winner": None, "reason": "draw agreed", "termination": "draw_agreed"}
    assert bob.post(f"/api/games/{game}/draw", {"op": "bogus"}).status_code == 409
    record = notation.parse_record(alice.get(f"/api/games/{game}/record").json())
    assert notation.replay(record)[-1].result == Result(None, Termination.DRAW_AGREED)


def test_your_turn_list(alice: Player, bob: Player) -> None:
    game = new_game(alice, bob)
    assert [g["id"] for g in alice.get("/api/lobby").json()["your_turn"]] == [game]
    assert bob.get("/api/lobby").json()["your_turn"] == []
    assert [g["id"] for g in bob.get("/api/lobby").json()["running"]] == [game]
    s = alice.state(game)
    alice.act(game, s["legal"][0], 0)
    alice.act(game, "draw", 1)
    assert alice.get("/api/lobby").json()["your_turn"] == []
    assert [g["id"] for g in bob.get("/api/lobby").json()["your_turn"]] == [game]
    assert "your turn" in bob.get("/").text


def test_game_against_a_bot_to_the_end(alice: Player) -> None:
    r = alice.post("/api/invitations", {"bot": "random", "options": {"creator_side": "2", "length": "15/3"}})
    assert r.status_code == 201
    game = r.json()["game"]
    rng = random.Random(5)
    import time

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        s = alice.state(game)
        if s["game"]["status"] == "over":
            break
        if s["legal"]:
            r = alice.act(game, rng.choice(s["legal"]), s["game"]["version"])
            assert r.status_code in (200, 409), r.text
        else:
            time.sleep(0.01)
    s = alice.state(game)
    assert s["game"]["status"] == "over", "the game against the bot did not finish"
    assert s["game"]["players"]["1"]["bot"] == "random"
    players = {e["player"] for e in s["log"] if e["action"]}
    assert players == {1, 2}
    record = notation.parse_record(alice.get(f"/api/games/{game}/record").json())
    final = notation.replay(record)[-1].result
    assert final is not None and final.to_json() == s["game"]["result"]
    assert s["game"]["result"]["termination"] not in ("resignation", "timeout", "deadline", "draw_agreed", "aborted")


def test_bots_do_not_accept_draws(alice: Player) -> None:
    game = alice.post("/api/invitations", {"bot": "random", "options": {"creator_side": "1"}}).json()["game"]
    r = alice.post(f"/api/games/{game}/draw", {"op": "offer"})
    assert r.status_code == 409 and "bots do not accept draws" in r.json()["detail"]


def test_unknown_game(alice: Player) -> None:
    r = alice.get("/api/games/999")
    assert r.status_code == 404 and "no game 999" in r.json()["detail"]
    assert alice.get("/api/games/abc").status_code == 422


def test_rematch_swaps_sides_and_keeps_the_options(client: TestClient, alice: Player, bob: Player) -> None:
    game = new_game(alice, bob, hands="visible", length="15/3", mode="turn", days=2, public=False)
    assert alice.post(f"/api/games/{game}/rematch").status_code == 409  # still running
    bob.post(f"/api/games/{game}/resign")
    carol = Player(client, "carol").signup()
    assert carol.post(f"/api/games/{game}/rematch").status_code == 403
    r = bob.post(f"/api/games/{game}/rematch")
    assert r.status_code == 201 and r.json()["opponent"] == "alice"
    incoming = alice.get("/api/lobby").json()["incoming"]
    assert [i["id"] for i in incoming] == [r.json()["invitation"]]
    options = incoming[0]["options"]
    assert options["creator_side"] == "1"  # bob played 2: now he plays first
    assert (options["creator_army"], options["opponent_army"]) == ("dwarves", "orcs")
    assert (options["hands"], options["length"], options["mode"], options["days"], options["public"]) == (
        "visible", "15/3", "turn", 2, False
    )
    new = alice.post(f"/api/invitations/{r.json()['invitation']}/accept").json()["game"]
    s = alice.state(new)
    assert s["game"]["players"]["1"]["name"] == "bob" and s["game"]["you"] == 2
    assert s["view"]["players"]["1"]["army"] == "dwarves"


def test_rematch_against_a_bot_starts_at_once(alice: Player) -> None:
    game = alice.post("/api/invitations", {"bot": "random", "options": {"creator_side": "1"}}).json()["game"]
    alice.post(f"/api/games/{game}/resign")
    r = alice.post(f"/api/games/{game}/rematch")
    assert r.status_code == 201
    s = alice.state(r.json()["game"])
    assert s["game"]["you"] == 2 and s["game"]["players"]["1"]["bot"] == "random"

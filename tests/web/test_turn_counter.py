"""GET /api/your-turn, the turn counter of every page: it counts the running games waiting for
the signed-in player, follows each move, leaves out the game asked to, never shows another
player's games, and answers a visitor 401 (SQLite and PostgreSQL)."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.web.conftest import Player, new_game


def waiting(p: Player, exclude: int | None = None) -> dict[str, Any]:
    r = p.get("/api/your-turn", params={} if exclude is None else {"exclude": exclude})
    assert r.status_code == 200, r.text
    assert r.headers["cache-control"] == "no-store"
    return dict(r.json())


def end_turn(p: Player, game: int) -> None:
    """Deploy the first card offered, then draw: the opening turn, after which the game waits
    for the opponent."""
    for _ in range(2):
        s = p.state(game)
        assert s["legal"], "not this player's turn"
        assert p.act(game, s["legal"][0]).status_code == 200


def test_the_count_follows_the_moves(alice: Player, bob: Player) -> None:
    assert waiting(alice) == {"count": 0, "games": []}
    first = new_game(alice, bob)  # alice plays first in both
    second = new_game(alice, bob)
    mine = waiting(alice)
    assert mine["count"] == 2
    assert [g["id"] for g in mine["games"]] == [first, second]  # longest waiting first
    assert {g["opponent"] for g in mine["games"]} == {"bob"}
    assert all(g["mode"] == "live" and g["since"] and g["deadline"] for g in mine["games"])
    assert waiting(bob)["count"] == 0

    end_turn(alice, first)
    assert [g["id"] for g in waiting(alice)["games"]] == [second]
    theirs = waiting(bob)
    assert theirs["count"] == 1 and theirs["games"][0]["id"] == first and theirs["games"][0]["opponent"] == "alice"

    end_turn(bob, first)  # back to alice: the newest turn now, listed last
    assert [g["id"] for g in waiting(alice)["games"]] == [second, first]
    assert waiting(bob)["count"] == 0

    assert alice.post(f"/api/games/{second}/resign").status_code == 200  # over: waits for nobody
    assert [g["id"] for g in waiting(alice)["games"]] == [first]


def test_the_game_on_the_screen_can_be_left_out(alice: Player, bob: Player) -> None:
    first = new_game(alice, bob)
    second = new_game(alice, bob)
    assert [g["id"] for g in waiting(alice, exclude=first)["games"]] == [second]
    assert waiting(alice, exclude=first)["count"] == 1
    assert waiting(alice, exclude=0)["count"] == 2  # 0: none left out
    assert waiting(alice, exclude=999)["count"] == 2
    assert alice.get("/api/your-turn", params={"exclude": -1}).status_code == 422


def test_a_bot_game_names_the_bot(alice: Player) -> None:
    r = alice.post("/api/invitations", {"bot": "random", "options": {"creator_side": "1"}})
    game = r.json()["game"]
    assert [(g["id"], g["opponent"]) for g in waiting(alice)["games"]] == [(game, "Random bot")]


def test_another_players_games_never_show(client: TestClient, alice: Player, bob: Player) -> None:
    carol = Player(client, "carol").signup()
    dave = Player(client, "dave").signup()
    theirs = new_game(carol, dave)
    new_game(dave, carol)
    assert waiting(alice) == {"count": 0, "games": []}
    assert waiting(alice, exclude=theirs) == {"count": 0, "games": []}
    assert [g["opponent"] for g in waiting(carol)["games"]] == ["dave"]
    assert [g["opponent"] for g in waiting(dave)["games"]] == ["carol"]
    mine = new_game(alice, bob)
    assert [g["id"] for g in waiting(alice)["games"]] == [mine]


def test_a_visitor_gets_401(client: TestClient, alice: Player, bob: Player) -> None:
    new_game(alice, bob)
    client.cookies.clear()
    r = client.get("/api/your-turn")
    assert r.status_code == 401 and r.json() == {"detail": "sign in first"}


def test_the_counter_is_on_every_page_of_a_signed_in_player_only(client: TestClient, alice: Player) -> None:
    for path in ("/", "/leaderboard", "/decks", "/players/alice"):
        page = alice.get(path, headers={"Accept": "text/html"}).text
        assert 'id="turn-counter"' in page and '<script type="module" src="/static/js/notify.js"></script>' in page, path
    client.cookies.clear()
    page = client.get("/", headers={"Accept": "text/html"}).text
    assert "turn-counter" not in page and "notify.js" not in page

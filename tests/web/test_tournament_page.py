"""A tournament's page (SQLite and PostgreSQL): a finished tournament announces its winner, or
the players who share first place; its round tables keep the same columns; bots are named in
the page's language in the standings and on the boards."""

from __future__ import annotations

import re
from typing import Any

from tests.web.conftest import Player
from tests.web.test_tournaments import boards, wait_round


def both_play_a_turn(white: Player, black: Player, game: int) -> None:
    """Each player makes their first turn (a game ended before that is aborted, not decided)."""
    for p in (white, black):
        state = p.state(game)
        deploy = next(a for a in state["legal"] if a.startswith("deploy "))
        assert p.act(game, deploy).status_code == 200
        assert p.act(game, "draw").status_code == 200


def one_round(client: Any, names: list[str], ending: str) -> tuple[int, dict[str, Player], dict[str, Any]]:
    """A one-round Swiss of ``names`` (the first creates it); each game is played a turn each,
    then ``ending``: "resign" (player 2 resigns) or "draw" (agreed). The finished tournament."""
    players = {n: Player(client, n).signup() for n in names}
    host = players[names[0]]
    tid = host.post("/api/tournaments", {"name": "One round", "rounds": 1}).json()["tournament"]
    for p in players.values():
        assert p.post(f"/api/tournaments/{tid}/join", {"army": "orcs"}).status_code == 200
    assert host.post(f"/api/tournaments/{tid}/start").status_code == 200
    t = wait_round(host, tid, 1)
    for b in boards(t, 1):
        if b["game"] is None:
            continue
        white, black = players[b["white"]], players[b["black"]]
        both_play_a_turn(white, black, b["game"])
        if ending == "resign":
            assert black.post(f"/api/games/{b['game']}/resign").status_code == 200
        else:
            assert white.post(f"/api/games/{b['game']}/draw", {"op": "offer"}).status_code == 200
            assert black.post(f"/api/games/{b['game']}/draw", {"op": "accept"}).status_code == 200
    t = wait_round(host, tid, 2)
    assert t["status"] == "finished", t
    return tid, players, t


def visitor(client: Any) -> Player:
    """Someone signed out: the page speaks the language their browser asks for."""
    p = Player(client, "visitor")
    p.refresh()
    return p


def winner_line(page: str) -> str:
    found = re.search(r'<p class="winner" id="winner">(.*?)</p>', page, re.S)
    assert found, "no winner announced"
    return " ".join(found.group(1).split())


def test_a_finished_tournament_announces_its_winner(client: Any) -> None:
    tid, players, t = one_round(client, ["alice", "bob"], "resign")
    (board,) = boards(t, 1)
    page = players["alice"].get(f"/tournaments/{tid}").text
    assert winner_line(page) == f"🏆 Winner: <b>{board['white']}</b>, with a score of 1.0."
    # a tournament still running announces none
    other = players["alice"].post("/api/tournaments", {"name": "Later", "rounds": 1}).json()["tournament"]
    assert 'id="winner"' not in players["alice"].get(f"/tournaments/{other}").text


def test_players_level_on_points_and_every_tie_break_share_first_place(client: Any) -> None:
    tid, players, t = one_round(client, ["alice", "bob"], "draw")
    names = [s["name"] for s in t["standings"]]
    page = players["bob"].get(f"/tournaments/{tid}").text
    assert winner_line(page) == f"🏆 Shared first place: <b>{names[0]}, {names[1]}</b>, each with a score of 0.5, level on every tie-break."
    german = visitor(client).get(f"/tournaments/{tid}", headers={"Accept-Language": "de"})
    assert "Geteilter erster Platz" in winner_line(german.text)


def test_a_winner_ahead_on_tie_break(client: Any) -> None:
    # three players: one wins, one has the bye; both have a point, the winner has a win played
    tid, players, t = one_round(client, ["alice", "bob", "carol"], "resign")
    top = t["standings"][0]
    assert [s["score"] for s in t["standings"][:2]] == [1, 1] and top["wins"] == 1
    page = players["carol"].get(f"/tournaments/{tid}").text
    assert winner_line(page) == f"🏆 Winner: <b>{top['name']}</b>, with a score of 1.0, ahead on tie-break."


def test_bots_are_named_in_the_pages_language_on_the_boards_and_in_the_standings(client: Any) -> None:
    alice, bob = Player(client, "alice").signup(), Player(client, "bob").signup()
    tid = alice.post("/api/tournaments", {"name": "With a bot", "rounds": 1}).json()["tournament"]
    assert alice.post(f"/api/tournaments/{tid}/bots", {"level": "greedy", "army": "orcs"}).status_code == 200
    assert bob.post(f"/api/tournaments/{tid}/join", {"army": "elves"}).status_code == 200
    assert alice.post(f"/api/tournaments/{tid}/start").status_code == 200
    wait_round(alice, tid, 1)
    for lang, name in (("de", "Gier-Bot"), ("pl", "Bot zachłanny")):
        page = visitor(client).get(f"/tournaments/{tid}", headers={"Accept-Language": lang}).text
        rounds = page[page.index('class="card round"') :]
        standings = page[page.index('id="standings"') : page.index('class="card round"')]
        assert name in rounds and name in standings, lang
        assert "Greedy bot" not in rounds.replace("/players/Greedy%20bot", "") and ">Greedy bot<" not in standings
    assert "Greedy bot" in bob.get(f"/tournaments/{tid}").text


def test_the_round_tables_have_fixed_columns(client: Any) -> None:
    tid, players, _t = one_round(client, ["alice", "bob"], "resign")
    page = players["alice"].get(f"/tournaments/{tid}").text
    assert '<table class="list boards">' in page
    assert '<th class="board">' in page and '<th class="result">' in page and '<th class="open">' in page

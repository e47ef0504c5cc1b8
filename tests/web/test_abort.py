"""Aborted games (SQLite and PostgreSQL): a game that ends before both players have made their
first turn (a resignation, a timeout, an agreed draw, a missed deadline or the *Abort*) has no
result: no rating changes in either pool, it counts in no one's results, it is shown as
aborted in the API, the lists, the profile, the record and the replay, and a tournament scores
it by its own rule (tournaments/results.py)."""

from __future__ import annotations

import time
from datetime import timedelta
from typing import Any

import pytest
from fastapi import FastAPI
from sqlalchemy import create_engine, select, update
from sqlalchemy.orm import Session

from lordsofwar import i18n
from lordsofwar.rules import engine, notation
from lordsofwar.rules.events import LogEntry
from lordsofwar.rules.state import Result, Termination
from lordsofwar.web.models import Game, Rating, RatingChange, TournamentPairing, utcnow
from lordsofwar.web.ratings import service as ratings
from lordsofwar.web.tournaments import results
from lordsofwar.web.tournaments.pairing import DOUBLE_FORFEIT, Entrant, Pairing, arena_standings, standings
from tests.web.conftest import Player, new_game, play_opening
from tests.web.test_tournaments import boards, wait_round


def table_rows(client: Any, model: Any) -> list[Any]:
    db = create_engine(client.app.state.settings.sync_url())
    try:
        with db.connect() as conn:
            return list(conn.execute(select(model.__table__)).mappings())
    finally:
        db.dispose()


def miss_deadline(client: Any, game: int) -> None:
    """The player to act lets the deadline pass; the server's sweep ends the game."""
    past = utcnow() - timedelta(seconds=1)
    db = create_engine(client.app.state.settings.sync_url())
    with db.begin() as conn:
        conn.execute(update(Game).where(Game.id == game).values(deadline_at=past))
    db.dispose()
    service = client.app.state.service

    async def cached() -> None:  # the server's copy of the game says so too
        (await service.runtime(game)).game.deadline_at = past

    client.portal.call(cached)
    assert client.portal.call(service.sweep) == 1


def first_turn(p: Player, game: int) -> None:
    """``p`` deploys a card and draws: their first turn."""
    for _ in range(2):
        state = p.state(game)
        assert p.act(game, state["legal"][0], state["game"]["version"]).status_code == 200


def aborted_by(player: int | None, ending: Termination | None = None) -> Result:
    """An aborted game's result: ``player`` aborted it, or ``ending`` (of ``player``) did."""
    return Result(None, Termination.ABORTED, player=player, ending=ending)


def assert_aborted(state: dict[str, Any], result: Result, reason: str) -> None:
    g = state["game"]
    assert g["status"] == "over" and g["aborted"] is True and g["abortable"] is False
    assert g["result"] == result.to_json() and g["result"]["reason"] == reason
    assert g["ratings"] is None and state["legal"] == []


def test_ten_games_resigned_unplayed_farm_no_rating(alice: Player, bob: Player) -> None:
    """The farming of the report: B resigns ten rated games at version 0; A stays at 1500."""
    for i in range(10):
        game = new_game(alice, bob, rated=True, mode="live" if i % 2 else "turn")
        assert alice.state(game)["game"]["abortable"] is True
        r = bob.post(f"/api/games/{game}/resign")
        assert r.status_code == 200, r.text
        assert_aborted(r.json(), aborted_by(2, Termination.RESIGNATION), "aborted: player 2 resigned")
    assert table_rows(alice.client, RatingChange) == [] and table_rows(alice.client, Rating) == []
    for name in ("alice", "bob"):
        mine = alice.get(f"/api/players/{name}/ratings").json()
        for pool in ("live", "turn"):
            assert (mine["ratings"][pool]["rating"], mine["ratings"][pool]["games"]) == (1500, 0)
            assert mine["history"][pool] == []
    # Shown as aborted in the lists and on the profile, counted in no result
    page = alice.get("/players/alice").text
    assert "10 aborted" in page and "0 won" in page and "0 drawn" in page
    assert page.count('class="aborted"') == 10


def test_a_game_ended_after_both_first_turns_is_rated(alice: Player, bob: Player) -> None:
    game = new_game(alice, bob, rated=True)
    play_opening(game, alice, bob)
    state = alice.state(game)
    assert state["game"]["abortable"] is False and state["view"]["turn"] == 3
    r = bob.post(f"/api/games/{game}/resign")
    assert r.status_code == 200
    g = r.json()["game"]
    assert g["aborted"] is False and g["result"] == Result(1, Termination.RESIGNATION, player=2).to_json()
    assert g["ratings"]["1"]["after"] > 1500 > g["ratings"]["2"]["after"]


@pytest.mark.parametrize("mode", ["live", "turn"])
def test_draws_timeouts_and_deadlines_before_the_first_turns_abort(alice: Player, bob: Player, mode: str) -> None:
    # an agreed draw at version 0
    game = new_game(alice, bob, rated=True, mode=mode)
    assert alice.post(f"/api/games/{game}/draw", {"op": "offer"}).status_code == 200
    assert_aborted(
        bob.post(f"/api/games/{game}/draw", {"op": "accept"}).json(),
        aborted_by(None, Termination.DRAW_AGREED),
        "aborted: draw agreed",
    )
    # player 1 never plays turn 1
    game = new_game(alice, bob, rated=True, mode=mode)
    miss_deadline(alice.client, game)
    assert_aborted(alice.state(game), aborted_by(1, Termination.DEADLINE), "aborted: player 1 missed the turn deadline")
    # player 1 plays turn 1; player 2 lets turn 2 run out (after a deployment)
    game = new_game(alice, bob, rated=True, mode=mode)
    first_turn(alice, game)
    state = bob.state(game)
    assert state["view"]["turn"] == 2 and state["game"]["abortable"] is True
    assert bob.act(game, next(a for a in state["legal"] if a.startswith("deploy"))).status_code == 200
    miss_deadline(alice.client, game)
    assert_aborted(alice.state(game), aborted_by(2, Termination.DEADLINE), "aborted: player 2 missed the turn deadline")
    # player 1 resigns in turn 2, having seen player 2's first deployment
    game = new_game(alice, bob, rated=True, mode=mode)
    first_turn(alice, game)
    assert_aborted(
        alice.post(f"/api/games/{game}/resign").json(),
        aborted_by(1, Termination.RESIGNATION),
        "aborted: player 1 resigned",
    )
    assert table_rows(alice.client, RatingChange) == []


def test_the_abort_action_and_its_refusals(alice: Player, bob: Player, client: Any) -> None:
    carol = Player(client, "carol").signup()
    game = new_game(alice, bob, rated=True)
    assert alice.state(game)["game"]["abortable"] is True
    assert carol.state(game)["game"]["abortable"] is False  # a spectator has no Abort
    assert carol.post(f"/api/games/{game}/abort").status_code == 403
    assert bob.post(f"/api/games/{game}/abort", csrf="forged").status_code == 403
    assert alice.state(game)["game"]["status"] == "running"
    r = bob.post(f"/api/games/{game}/abort")
    assert r.status_code == 200, r.text
    assert_aborted(r.json(), aborted_by(2), "aborted by player 2")
    assert r.json()["log"][-1]["events"][0] == {"type": "abort", "player": 2}
    again = alice.post(f"/api/games/{game}/abort")
    assert again.status_code == 409 and "over" in again.json()["detail"]
    # the record and the replay say so, and the record replays
    record = alice.get(f"/api/games/{game}/record").json()
    assert record["result"] == aborted_by(2).to_json() and record["actions"] == []
    assert record["result"]["reason"] == "aborted by player 2" and record["result"]["termination"] == "aborted"
    assert notation.replay(notation.parse_record(record))[-1].result == aborted_by(2)
    replay = alice.get(f"/api/games/{game}/replay").json()
    assert replay["positions"][-1]["result"] == aborted_by(2).to_json()
    assert "Aborted (bob aborted the game)" in alice.get(f"/games/{game}/replay").text
    assert "Aborted (bob aborted the game)" in carol.get(f"/games/{game}").text
    assert table_rows(alice.client, RatingChange) == []

    # once both players have made their first turn: refused, with the reason, and nothing changes
    game = new_game(alice, bob, rated=True)
    play_opening(game, alice, bob)
    before = alice.state(game)
    r = alice.post(f"/api/games/{game}/abort")
    assert r.status_code == 409
    assert r.json()["detail"].startswith("the game can no longer be aborted: both players have made their first turn")
    after = alice.state(game)["game"]
    assert (after["version"], after["status"], after["result"]) == (before["game"]["version"], "running", None)
    for lang, word in (("de", "abgebrochen"), ("pl", "przerwać")):
        with i18n.use(lang):
            assert word in i18n.gettext(r.json()["detail"])
            assert word[:6] in i18n.result_reason(aborted_by(2, Termination.RESIGNATION), {2: "bob"})


def test_abort_over_the_socket(alice: Player, bob: Player) -> None:
    game = new_game(alice, bob, rated=True)
    with alice.socket(game) as ws:
        first = ws.receive_json()
        assert first["type"] == "state" and first["game"]["abortable"] is True
        ws.send_json({"type": "abort"})
        for _ in range(10):
            msg = ws.receive_json()
            if msg["type"] == "update":
                break
        assert msg["game"]["aborted"] is True and msg["game"]["result"]["reason"] == "aborted by player 1"
    game = new_game(alice, bob)
    play_opening(game, alice, bob)
    with bob.socket(game) as ws:
        ws.receive_json()
        ws.send_json({"type": "abort"})
        msg = ws.receive_json()
        assert msg["type"] == "error" and "no longer be aborted" in msg["message"]
    assert bob.state(game)["game"]["status"] == "running"


def test_games_against_bots_are_aborted_too(alice: Player) -> None:
    r = alice.post("/api/invitations", {"bot": "random", "options": {"creator_side": "1", "creator_army": "orcs"}})
    assert r.status_code == 201, r.text
    game = r.json()["game"]
    assert alice.state(game)["game"]["abortable"] is True
    assert_aborted(alice.post(f"/api/games/{game}/abort").json(), aborted_by(1), "aborted by player 1")
    # the bot plays first: the human may still abort in turn 2 (by resigning too)
    r = alice.post("/api/invitations", {"bot": "random", "options": {"creator_side": "2", "creator_army": "orcs"}})
    game = r.json()["game"]
    state = alice.state(game)
    deadline = time.monotonic() + 60  # the bot's workers may take a while to start
    while not state["legal"] and time.monotonic() < deadline:
        time.sleep(0.05)
        state = alice.state(game)
    assert state["view"]["turn"] == 2 and state["game"]["abortable"] is True
    assert_aborted(
        alice.post(f"/api/games/{game}/resign").json(),
        aborted_by(2, Termination.RESIGNATION),
        "aborted: player 2 resigned",
    )
    # a game past the opening has a result and counts in the player's results by army
    r = alice.post("/api/invitations", {"bot": "random", "options": {"creator_side": "1", "creator_army": "orcs"}})
    game = r.json()["game"]
    play_opening(game, alice)
    assert alice.post(f"/api/games/{game}/resign").json()["game"]["result"]["winner"] == 2
    app = alice.client.app
    assert isinstance(app, FastAPI)
    db = create_engine(app.state.settings.sync_url())
    with Session(db) as session:
        games = list(session.scalars(select(Game)))
        user_id = games[0].player1_id if games[0].bot2 else games[0].player2_id
        assert user_id is not None
        table = ratings.results_by(games, user_id)
    db.dispose()
    assert [(r["label"], r["won"], r["drawn"], r["lost"], r["games"]) for r in table["army"]] == [("Orcs", 0, 0, 1, 1)]


def entry(player: int, action: str | None) -> LogEntry:
    """The first log entry of a game: ``player``'s ``action`` (None: an ending off the board)."""
    return {"n": 1, "turn": 1, "player": player, "action": action, "events": []}


def test_result_codes_of_aborted_tournament_boards() -> None:
    resigned_1 = aborted_by(1, Termination.RESIGNATION)
    timeout_2 = aborted_by(2, Termination.TIMEOUT)
    by_2 = aborted_by(2)
    agreed = aborted_by(None, Termination.DRAW_AGREED)
    assert all(engine.is_aborted(r) for r in (resigned_1, timeout_2, by_2, agreed))
    for kind in ("swiss", "round_robin"):
        assert results.result_code(resigned_1, [], kind) == "-+"
        assert results.result_code(timeout_2, [], kind) == "+-"
        assert results.result_code(by_2, [], kind) == "+-"
        assert results.result_code(agreed, [], kind) == DOUBLE_FORFEIT
    for result in (resigned_1, timeout_2, by_2, agreed):
        assert results.result_code(result, [], "arena") == DOUBLE_FORFEIT
    resigned_2 = Result(1, Termination.RESIGNATION, player=2)
    assert not engine.is_aborted(resigned_2)
    assert results.result_code(resigned_2, [entry(2, "draw")], "swiss") == "1-0"
    timeout_2 = Result(1, Termination.TIMEOUT, player=2)
    assert results.result_code(timeout_2, [entry(2, None)], "swiss") == "+-"  # never played: a forfeit
    assert results.result_code(timeout_2, [entry(2, "draw")], "swiss") == "1-0"
    # the arithmetic: a double forfeit gives nobody a point; an arena leaves it out
    people = [Entrant(1, "a", 1500), Entrant(2, "b", 1500)]
    table = {s.id: s for s in standings(people, [Pairing(1, 1, 2, DOUBLE_FORFEIT)])}
    assert (table[1].score, table[2].score, table[1].played) == (0.0, 0.0, 0)
    arena = {s.id: s for s in arena_standings(people, [Pairing(1, 1, 2, "1-0"), Pairing(2, 1, 2, DOUBLE_FORFEIT)])}
    assert (arena[1].points, arena[1].games, arena[2].games, arena[1].sheet) == (2, 1, 1, ["2"])


@pytest.mark.parametrize("kind", ["swiss", "arena"])
def test_an_aborted_tournament_board(client: Any, alice: Player, bob: Player, kind: str) -> None:
    body: dict[str, Any] = {"name": "Aborts", "kind": kind, "rounds": 1}
    if kind == "arena":
        body = {"name": "Aborts", "kind": kind, "minutes": 30}
    tid = alice.post("/api/tournaments", body).json()["tournament"]
    carol = Player(client, "carol").signup()
    for p in (bob, carol):
        assert p.post(f"/api/tournaments/{tid}/join", {}).status_code == 200
    assert alice.post(f"/api/tournaments/{tid}/start").status_code == 200
    t = alice.get(f"/api/tournaments/{tid}").json()
    (board,) = boards(t, 1)
    people = {"bob": bob, "carol": carol}
    white, black = people[board["white"]], people[board["black"]]
    r = black.post(f"/api/games/{board['game']}/resign")
    assert r.status_code == 200 and r.json()["game"]["aborted"] is True
    pairing = next(p for p in table_rows(client, TournamentPairing) if p["game_id"] == board["game"])
    if kind == "swiss":
        assert pairing["result"] == "+-"  # the player who resigned unplayed loses by forfeit
        t = alice.get(f"/api/tournaments/{tid}").json()
        score = {s["name"]: s["score"] for s in t["standings"]}
        assert score == {white.name: 1.0, black.name: 0.0}
    else:
        assert pairing["result"] == DOUBLE_FORFEIT  # an arena counts it for nobody
        t = wait_round(alice, tid, 2)
        points = {s["name"]: (s["points"], s["games"]) for s in t["standings"]}
        assert points == {white.name: (0, 0), black.name: (0, 0)}
        again = [b for x in t["rounds_played"] for b in x["boards"] if b["result"] is None]
        assert len(again) == 1  # both are paired again
    assert table_rows(client, RatingChange) == []
    del white

"""Tournaments through the API (SQLite and PostgreSQL): a 9-player Swiss played to its end with
byes, a forfeit and a withdrawal; a round robin; each round paired exactly once; refusals."""

from __future__ import annotations

import asyncio
import random
import time
from collections import Counter
from datetime import timedelta
from typing import Any

from sqlalchemy import create_engine, update

from lordsofwar.web.models import Game, utcnow
from lordsofwar.web.tournaments import service as tournaments
from tests.web.conftest import Player, play_opening


def wait_round(p: Player, tid: int, r: int) -> dict[str, Any]:
    """The tournament once round ``r`` is paired (or it is over), paired in the background."""
    deadline = time.monotonic() + 20
    while True:
        t = p.get(f"/api/tournaments/{tid}").json()
        if t["current_round"] >= r or t["status"] == "finished":
            return dict(t)
        assert time.monotonic() < deadline, f"round {r} was not paired: {t}"
        time.sleep(0.05)


def players(client: Any, n: int) -> dict[str, Player]:
    return {f"tp{i}": Player(client, f"tp{i}").signup() for i in range(n)}


def boards(t: dict[str, Any], r: int) -> list[dict[str, Any]]:
    return next(x["boards"] for x in t["rounds_played"] if x["round"] == r)


def forfeit_by_deadline(client: Any, game: int) -> None:
    """Let the player to act miss the deadline before acting, and the server's sweep see it."""
    engine = create_engine(client.app.state.settings.sync_url())
    with engine.begin() as conn:
        conn.execute(update(Game).where(Game.id == game).values(deadline_at=utcnow() - timedelta(seconds=1)))
    engine.dispose()
    service = client.app.state.service
    service.runtimes.pop(game, None)
    assert client.portal.call(service.sweep) == 1


def test_a_nine_player_swiss_to_its_end(client: Any, alice: Player) -> None:
    people = players(client, 9)
    r = alice.post(
        "/api/tournaments", {"name": "Friday  Swiss ", "kind": "swiss", "rounds": 4, "options": {"rated": True}}
    )
    assert r.status_code == 201, r.text
    tid = r.json()["tournament"]
    for i, p in enumerate(people.values()):
        r = p.post(f"/api/tournaments/{tid}/join", {"army": ["orcs", "elves", "random"][i % 3]})
        assert r.status_code == 200, r.text
    assert people["tp0"].post(f"/api/tournaments/{tid}/join", {}).status_code == 409  # twice
    assert people["tp0"].post(f"/api/tournaments/{tid}/start").status_code == 403  # not the creator
    listed = alice.get("/api/tournaments").json()
    assert [t["name"] for t in listed["upcoming"]] == ["Friday Swiss"] and listed["upcoming"][0]["entrants"] == 9
    r = alice.post(f"/api/tournaments/{tid}/start")
    assert r.status_code == 200, r.text
    assert alice.post(f"/api/tournaments/{tid}/start").status_code == 409
    assert Player(client, "late").signup().post(f"/api/tournaments/{tid}/join", {}).status_code == 409

    rng = random.Random(4)
    by_name = dict(people)
    for rnd in range(1, 5):
        t = wait_round(alice, tid, rnd)
        assert t["status"] == "running" and t["current_round"] == rnd
        if rnd == 3:  # tp8 withdraws during round 3: not paired after it
            assert people["tp8"].post(f"/api/tournaments/{tid}/withdraw").status_code == 200
        for b in boards(t, rnd):
            if b["black"] is None:
                assert b["result"] == "bye"
                continue
            white, black = by_name[b["white"]], by_name[b["black"]]
            game = b["game"]
            state = white.state(game)["game"]
            assert state["rated"] and state["players"]["1"]["name"] == white.name
            if rnd == 2 and b["board"] == 1:
                forfeit_by_deadline(client, game)  # player 1 never acted
            elif rng.random() < 0.2:
                play_opening(game, white, black)  # an ending before both first turns would abort it
                assert white.post(f"/api/games/{game}/draw", {"op": "offer"}).status_code == 200
                assert black.post(f"/api/games/{game}/draw", {"op": "accept"}).status_code == 200
            else:
                play_opening(game, white, black)
                loser = rng.choice([white, black])
                assert loser.post(f"/api/games/{game}/resign").status_code == 200, loser.name
    t = wait_round(alice, tid, 5)
    assert t["status"] == "finished"
    rounds = {x["round"]: x["boards"] for x in t["rounds_played"]}
    assert sorted(rounds) == [1, 2, 3, 4]
    byes = Counter(b["white"] for bs in rounds.values() for b in bs if b["black"] is None)
    assert sum(byes.values()) == 3 and max(byes.values()) == 1  # rounds 1-3: nine players; round 4: eight
    assert all("tp8" not in (b["white"], b["black"]) for b in rounds[4])
    met = Counter(frozenset((b["white"], b["black"])) for bs in rounds.values() for b in bs if b["black"])
    assert set(met.values()) == {1}
    assert rounds[2][0]["result"] == "-+"  # the forfeit: player 1 missed the deadline unplayed
    table = t["standings"]
    games_played = sum(1 for bs in rounds.values() for b in bs if b["black"])
    assert sum(s["score"] for s in table) == games_played + 3
    keys = [(-s["score"], -s["buchholz"], -s["sonneborn_berger"], -s["wins"]) for s in table]
    assert keys == sorted(keys) and [s["rank"] for s in table] == list(range(1, 10))
    assert next(s for s in table if s["name"] == "tp8")["withdrawn"]
    assert [x["name"] for x in alice.get("/api/tournaments").json()["finished"]] == ["Friday Swiss"]
    page = alice.get(f"/tournaments/{tid}")
    assert page.status_code == 200 and "Standings" in page.text and "0–1 (forfeit)" in page.text
    # The rated games changed ratings: the standings' leader won at least one of them.
    leader = by_name[table[0]["name"]]
    assert leader.get(f"/api/players/{leader.name}/ratings").json()["ratings"]["live"]["games"] >= 2


def test_a_round_robin_plays_everyone_once(client: Any, alice: Player) -> None:
    people = players(client, 4)
    tid = alice.post("/api/tournaments", {"name": "League", "kind": "round_robin", "options": {"mode": "turn"}}).json()[
        "tournament"
    ]
    for p in people.values():
        assert p.post(f"/api/tournaments/{tid}/join", {}).status_code == 200
    assert alice.post(f"/api/tournaments/{tid}/start").status_code == 200
    for rnd in range(1, 4):
        t = wait_round(alice, tid, rnd)
        assert t["rounds"] == 3
        for b in boards(t, rnd):
            assert people[b["black"]].post(f"/api/games/{b['game']}/resign").status_code == 200
    t = wait_round(alice, tid, 4)
    assert t["status"] == "finished"
    met = Counter(frozenset((b["white"], b["black"])) for x in t["rounds_played"] for b in x["boards"])
    assert len(met) == 6 and set(met.values()) == {1}
    assert sum(s["score"] for s in t["standings"]) == 6


def test_each_round_is_paired_exactly_once(client: Any, alice: Player) -> None:
    people = players(client, 4)
    tid = alice.post("/api/tournaments", {"name": "Race", "kind": "swiss", "rounds": 2}).json()["tournament"]
    for p in people.values():
        assert p.post(f"/api/tournaments/{tid}/join", {}).status_code == 200
    # Starting (round 1) and advancing at once, several times over: round 1 is paired once.
    app = client.app
    sessions, games = app.state.services.sessions, app.state.services.games

    async def race() -> list[bool]:
        return list(await asyncio.gather(*(tournaments.advance(sessions, games, tid) for _ in range(4))))

    assert alice.post(f"/api/tournaments/{tid}/start").status_code == 200
    assert client.portal.call(race) == [False] * 4  # round 1 is under way
    t = wait_round(alice, tid, 1)
    for b in boards(t, 1):
        assert people[b["white"]].post(f"/api/games/{b['game']}/resign").status_code == 200
    results = client.portal.call(race)
    t = wait_round(alice, tid, 2)
    assert results.count(True) <= 1  # the background pairing may have come first
    assert len(boards(t, 2)) == 2 and t["current_round"] == 2


def test_withdrawing_and_refusals(client: Any, alice: Player, bob: Player) -> None:
    assert alice.post("/api/tournaments", {"name": " ", "kind": "swiss"}).status_code == 422
    assert alice.post("/api/tournaments", {"name": "x", "kind": "blitz"}).status_code == 422
    assert alice.post("/api/tournaments", {"name": "x", "kind": "arena", "minutes": 2}).status_code == 422
    assert alice.post("/api/tournaments", {"name": "x", "rounds": 0}).status_code == 422
    tid = alice.post("/api/tournaments", {"name": "Small"}).json()["tournament"]
    assert alice.get("/api/tournaments/999").status_code == 404
    assert bob.post(f"/api/tournaments/{tid}/withdraw").status_code == 409  # not registered
    assert bob.post(f"/api/tournaments/{tid}/join", {"army": "orcs"}).status_code == 200
    assert alice.post(f"/api/tournaments/{tid}/start").status_code == 409  # one player
    assert bob.post(f"/api/tournaments/{tid}/withdraw").status_code == 200
    assert alice.get(f"/api/tournaments/{tid}").json()["entrants"] == 0
    assert bob.post(f"/api/tournaments/{tid}/join", {"army": "nobody"}).status_code == 422
    assert bob.post(f"/api/tournaments/{tid}/join", {"deck": 5}).status_code in (404, 409)  # no such deck / not allowed
    page = alice.get("/tournaments")
    assert page.status_code == 200 and "Small" in page.text and "Create a tournament" in page.text


def test_an_arena_pairs_players_as_they_finish_and_ends_with_its_window(client: Any, alice: Player) -> None:
    people = players(client, 5)
    tid = alice.post("/api/tournaments", {"name": "Arena", "kind": "arena", "minutes": 30}).json()["tournament"]
    for name in ("tp0", "tp1", "tp2", "tp3"):
        assert people[name].post(f"/api/tournaments/{tid}/join", {}).status_code == 200
    assert alice.post(f"/api/tournaments/{tid}/start").status_code == 200
    t = alice.get(f"/api/tournaments/{tid}").json()
    assert t["status"] == "running" and t["ends_at"] and len(boards(t, 1)) == 2
    # A late player joins a running arena; alone, they wait for someone to finish.
    t = people["tp4"].post(f"/api/tournaments/{tid}/join", {}).json()
    assert t["entrants"] == 5 and t["current_round"] == 1
    rng = random.Random(2)
    for wave in range(1, 6):
        t = alice.get(f"/api/tournaments/{tid}").json()
        running = [b for x in t["rounds_played"] for b in x["boards"] if b["result"] is None]
        assert running, f"wave {wave}: nobody plays"
        b = running[0]
        loser = people[b["black"] if rng.random() < 0.7 else b["white"]]
        play_opening(b["game"], people[b["white"]], people[b["black"]])  # not an aborted game: it counts
        assert loser.post(f"/api/games/{b['game']}/resign").status_code == 200
        t = wait_round(alice, tid, wave + 1)
        busy = [
            u for x in t["rounds_played"] for b in x["boards"] if b["result"] is None for u in (b["white"], b["black"])
        ]
        assert len(busy) == len(set(busy)) == 4  # five players: four play, one waits
    table = t["standings"]
    assert sum(s["games"] for s in table) == 2 * 5 and all(s["points"] % 1 == 0 for s in table)
    assert [s["points"] for s in table] == sorted((s["points"] for s in table), reverse=True)
    # The window closes: no new pairing; the games under way are played out, then it is over.
    engine = create_engine(client.app.state.settings.sync_url())
    with engine.begin() as conn:
        conn.execute(
            update(tournaments.TOURNAMENTS)
            .where(tournaments.TOURNAMENTS.c.id == tid)
            .values(ends_at=utcnow() - timedelta(seconds=1))
        )
    engine.dispose()
    for b in [b for x in t["rounds_played"] for b in x["boards"] if b["result"] is None]:
        play_opening(b["game"], people[b["white"]], people[b["black"]])
        assert people[b["white"]].post(f"/api/games/{b['game']}/resign").status_code == 200
    app = client.app
    client.portal.call(tournaments.advance_all, app.state.services.sessions, app.state.services.games)
    t = alice.get(f"/api/tournaments/{tid}").json()
    assert t["status"] == "finished" and all(b["result"] for x in t["rounds_played"] for b in x["boards"])
    assert people["tp0"].post(f"/api/tournaments/{tid}/join", {}).status_code == 409


def test_joining_with_a_custom_deck_from_the_page(client: Any, alice: Player, bob: Player) -> None:
    """The join form lists the player's decks when the games allow custom decks, those that do
    not fit disabled with the reason; choosing one registers with it."""
    import re

    options = {"custom_decks": True, "custom_armies": ["orcs", "elves"]}
    tid = alice.post("/api/tournaments", {"name": "Decks", "options": options}).json()["tournament"]
    plain = alice.post("/api/tournaments", {"name": "Armies"}).json()["tournament"]
    fits = bob.post("/api/decks", {"name": "Green horde", "army": "orcs"}).json()
    other = bob.post("/api/decks", {"name": "Stout", "army": "dwarves"}).json()
    page = bob.get(f"/tournaments/{tid}").text
    assert 'id="join-deck"' in page
    assert re.search(rf'<option value="{fits["id"]}">Green horde</option>', page)
    assert re.search(rf'<option value="{other["id"]}" disabled title="[^"]*dwarves[^"]*">Stout \(does not fit', page)
    assert 'id="join-deck"' not in bob.get(f"/tournaments/{plain}").text  # no custom decks there
    client.cookies.clear()
    assert 'id="join-deck"' not in client.get(f"/tournaments/{tid}").text  # a visitor signed out
    # a deck that does not fit is refused even when posted by hand; the one that fits is taken
    form = {"csrf": bob.csrf, "army": "random", "deck": str(other["id"])}
    r = bob.use().post(f"/tournaments/{tid}/join", data=form, follow_redirects=False)
    bob._keep()
    assert r.status_code == 409 and "does not fit" in r.text
    form["deck"] = "x1"
    r = bob.use().post(f"/tournaments/{tid}/join", data=form, follow_redirects=False)
    bob._keep()
    assert r.status_code == 422
    form["deck"] = str(fits["id"])
    r = bob.use().post(f"/tournaments/{tid}/join", data=form, follow_redirects=False)
    bob._keep()
    assert r.status_code == 303
    entries = alice.get(f"/api/tournaments/{tid}").json()["entries"]
    assert [(e["name"], e["deck"]) for e in entries] == [("bob", True)]
    # without a deck the form registers with the army alone
    form = {"csrf": alice.csrf, "army": "elves", "deck": ""}
    r = alice.use().post(f"/tournaments/{tid}/join", data=form, follow_redirects=False)
    alice._keep()
    assert r.status_code == 303
    entries = {e["name"]: e for e in alice.get(f"/api/tournaments/{tid}").json()["entries"]}
    assert entries["alice"]["army"] == "elves" and not entries["alice"]["deck"]


def test_the_page_follows_every_change_of_the_entries(client: Any, alice: Player) -> None:
    """The entrants, standings and boards are kept worked out between changes: a withdrawal and
    a registration that leave the count as it was still show (the kept copy is not reused)."""
    people = players(client, 3)
    tid = alice.post("/api/tournaments", {"name": "Churn"}).json()["tournament"]
    for name in ("tp0", "tp1"):
        assert people[name].post(f"/api/tournaments/{tid}/join", {}).status_code == 200
    assert {e["name"] for e in alice.get(f"/api/tournaments/{tid}").json()["entries"]} == {"tp0", "tp1"}
    assert people["tp0"].post(f"/api/tournaments/{tid}/withdraw").status_code == 200
    assert people["tp2"].post(f"/api/tournaments/{tid}/join", {"army": "undead"}).status_code == 200
    t = alice.get(f"/api/tournaments/{tid}").json()
    assert {e["name"]: e["army"] for e in t["entries"]} == {"tp1": "random", "tp2": "undead"}
    assert people["tp0"].get(f"/api/tournaments/{tid}").json()["you"] is None
    assert people["tp2"].get(f"/api/tournaments/{tid}").json()["you"] == {"withdrawn": False}

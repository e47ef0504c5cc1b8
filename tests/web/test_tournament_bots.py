"""Bot levels entered in tournaments (SQLite and PostgreSQL): the creator enters them, they play
their games from the worker pool (two bots against each other too), their games are never rated,
an arena never pairs two bots, and every refusal changes nothing."""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import quote

from lordsofwar.bots import ladder
from lordsofwar.web.tournaments.pairing import ArenaStanding, pair_arena
from tests.web.conftest import Player
from tests.web.test_tournaments import boards, wait_round


def finished_game(p: Player, game: int, limit: float = 60) -> dict[str, Any]:
    """The game's state once it is over (bots play it in the background)."""
    deadline = time.monotonic() + limit
    while True:
        state = p.state(game)
        if state["game"]["status"] == "over":
            return state
        assert time.monotonic() < deadline, f"game {game} did not end: {state['game']}"
        time.sleep(0.05)


def test_bots_entered_in_a_round_robin_play_every_game(client: Any, alice: Player, bob: Player) -> None:
    options = {"rated": True, "mode": "live", "minutes": 30}
    tid = alice.post("/api/tournaments", {"name": "Bots welcome", "kind": "round_robin", "options": options}).json()["tournament"]
    t = alice.post(f"/api/tournaments/{tid}/bots", {"level": "greedy", "army": "orcs"}).json()
    assert [(e["name"], e["bot"], e["army"]) for e in t["entries"]] == [("Greedy bot", "greedy", "orcs")]
    assert t["entries"][0]["rating"] == ladder.ratings()["greedy"]  # seeded by its measured strength
    assert "greedy" not in [b["level"] for b in t["bot_levels"]]
    assert alice.post(f"/api/tournaments/{tid}/bots", {"level": "random"}).status_code == 200
    assert bob.post(f"/api/tournaments/{tid}/join", {"army": "elves"}).status_code == 200
    assert alice.post(f"/api/tournaments/{tid}/start").status_code == 200
    seen_bots: set[tuple[str | None, str | None]] = set()
    for rnd in range(1, 4):
        t = wait_round(alice, tid, rnd)
        assert t["rounds"] == 3
        for b in boards(t, rnd):
            if b["game"] is None:
                assert b["result"] == "bye"
                continue
            seats = bob.state(b["game"])["game"]["players"]
            names = [seats["1"]["name"], seats["2"]["name"]]
            assert names == [b["white"], b["black"]]
            assert [seats[s]["bot"] is not None for s in "12"] == [n != "bob" for n in names]  # played by the bot
            if "bob" in names:
                assert bob.post(f"/api/games/{b['game']}/resign").status_code == 200
                seen_bots.add(("bob", names[1 - names.index("bob")]))
            else:  # the two bots play it out by themselves
                state = finished_game(bob, b["game"])
                assert state["game"]["result"] is not None and not state["game"]["rated"]
                seen_bots.add((names[0], names[1]))
    t = wait_round(alice, tid, 4)
    assert t["status"] == "finished"
    assert {frozenset(x) for x in seen_bots} == {
        frozenset({"bob", "Greedy bot"}),
        frozenset({"bob", "Random bot"}),
        frozenset({"Greedy bot", "Random bot"}),
    }
    table = {s["name"]: s for s in t["standings"]}
    assert table["bob"]["score"] == 0 + 1  # two losses and a bye
    assert table["Greedy bot"]["bot"] == "greedy" and table["bob"]["bot"] is None
    # games against bots are never rated, in a rated tournament too
    assert bob.get("/api/players/bob/ratings").json()["ratings"]["live"]["games"] == 0
    page = bob.get("/players/" + quote("Greedy bot"))
    assert page.status_code == 200 and "A built-in bot" in page.text and str(ladder.ratings()["greedy"]) in page.text
    assert "Bots welcome" in page.text or "won" in page.text


def test_entering_bots_is_the_creators_and_refusals_change_nothing(client: Any, alice: Player, bob: Player) -> None:
    tid = alice.post("/api/tournaments", {"name": "Swiss with bots", "rounds": 2}).json()["tournament"]
    before = alice.get(f"/api/tournaments/{tid}").json()
    assert bob.post(f"/api/tournaments/{tid}/bots", {"level": "general"}).status_code == 403  # not the creator
    assert alice.post(f"/api/tournaments/{tid}/bots", {"level": "grandmaster"}).status_code == 422
    assert alice.post(f"/api/tournaments/{tid}/bots", {"level": "general", "army": "gnomes"}).status_code == 422
    assert alice.post(f"/api/tournaments/{tid}/bots", {"level": "x" * 500}).status_code == 422
    assert alice.post("/api/tournaments/999/bots", {"level": "general"}).status_code == 404
    assert alice.send("DELETE", f"/api/tournaments/{tid}/bots/general").status_code == 409  # not entered
    assert alice.get(f"/api/tournaments/{tid}").json()["entries"] == before["entries"] == []
    assert alice.post(f"/api/tournaments/{tid}/bots", {"level": "general"}).status_code == 200
    assert alice.post(f"/api/tournaments/{tid}/bots", {"level": "general"}).status_code == 409  # twice
    assert bob.send("DELETE", f"/api/tournaments/{tid}/bots/general").status_code == 403
    assert alice.send("DELETE", f"/api/tournaments/{tid}/bots/general").status_code == 200
    assert alice.get(f"/api/tournaments/{tid}").json()["entries"] == []
    assert alice.post(f"/api/tournaments/{tid}/bots", {"level": "general"}).status_code == 200
    assert alice.post(f"/api/tournaments/{tid}/bots", {"level": "elite"}).status_code == 200
    assert alice.post(f"/api/tournaments/{tid}/start").status_code == 200  # two bots are two players
    t = wait_round(alice, tid, 1)
    assert alice.post(f"/api/tournaments/{tid}/bots", {"level": "veteran"}).status_code == 409  # started
    # after the start a bot is taken out as a player withdraws: it stays in the table, marked
    assert alice.send("DELETE", f"/api/tournaments/{tid}/bots/elite").status_code == 200
    t = alice.get(f"/api/tournaments/{tid}").json()
    assert {e["name"]: e["withdrawn"] for e in t["entries"]} == {"General bot": False, "Elite bot": True}
    assert alice.send("DELETE", f"/api/tournaments/{tid}/bots/elite").status_code == 409  # out already
    # no one signs in as a bot, challenges one by name, or signs up with its name
    client.cookies.clear()
    outsider = Player(client, "General bot")
    outsider.refresh()
    assert outsider.post("/api/signin", {"name": "General bot", "password": "!"}).status_code == 401
    assert outsider.post("/api/signup", {"name": "General bot", "password": "correct horse"}).status_code in (400, 422)
    r = bob.post("/api/invitations", {"opponent": "General bot"})
    assert r.status_code == 400 and "bot" in r.json()["detail"]
    # hints belong to casual games against a bot, not to tournaments
    assert alice.post("/api/tournaments", {"name": "Hinted", "options": {"hints": True}}).status_code == 422


def test_an_arena_never_pairs_two_bots(client: Any, alice: Player, bob: Player) -> None:
    tid = alice.post("/api/tournaments", {"name": "Bot arena", "kind": "arena", "minutes": 30}).json()["tournament"]
    for level in ("greedy", "random"):
        assert alice.post(f"/api/tournaments/{tid}/bots", {"level": level}).status_code == 200
    assert bob.post(f"/api/tournaments/{tid}/join", {}).status_code == 200
    assert alice.post(f"/api/tournaments/{tid}/start").status_code == 200
    for wave in range(1, 4):
        t = wait_round(alice, tid, wave)
        running = [b for x in t["rounds_played"] for b in x["boards"] if b["result"] is None]
        assert len(running) == 1 and "bob" in (running[0]["white"], running[0]["black"])  # one bot waits
        assert bob.post(f"/api/games/{running[0]['game']}/resign").status_code == 200
    t = wait_round(alice, tid, 4)
    met = [{b["white"], b["black"]} for x in t["rounds_played"] for b in x["boards"]]
    assert all("bob" in pair for pair in met)
    # a bot entered while the arena runs meets the waiting human at once, never the waiting bot
    assert alice.post(f"/api/tournaments/{tid}/bots", {"level": "veteran"}).status_code == 200
    t = alice.get(f"/api/tournaments/{tid}").json()
    assert all("bob" in {b["white"], b["black"]} for x in t["rounds_played"] for b in x["boards"])


def test_pair_arena_keeps_bots_apart() -> None:
    def s(i: int, points: int) -> ArenaStanding:
        return ArenaStanding(id=i, name=str(i), rating=1500, points=points)

    waiting = [s(1, 9), s(2, 8), s(3, 7), s(4, 6), s(5, 5)]
    assert pair_arena(waiting, {}) == [(1, 2), (3, 4)]
    assert pair_arena(waiting, {}, apart={1, 2}) == [(1, 3), (2, 4)]
    assert pair_arena(waiting, {}, apart={1, 2, 3}) == [(1, 4), (2, 5)]  # bot 3 waits
    assert pair_arena(waiting, {1: 3}, apart={1, 2}) == [(1, 4), (2, 3)]  # not the last opponent again
    assert pair_arena([s(1, 0), s(2, 0)], {}, apart={1, 2}) == []


def test_the_page_enters_and_removes_a_bot(client: Any, alice: Player, bob: Player) -> None:
    tid = alice.post("/api/tournaments", {"name": "Page bots"}).json()["tournament"]
    page = alice.get(f"/tournaments/{tid}").text
    assert 'id="enter-bot"' in page
    for level, rating in ladder.ratings().items():
        assert f'<option value="{level}"' in page and f"({rating})" in page
    assert 'id="enter-bot"' not in bob.get(f"/tournaments/{tid}").text  # only the creator
    r = alice.use().post(f"/tournaments/{tid}/bot", data={"csrf": alice.csrf, "level": "elite", "army": "undead"}, follow_redirects=False)
    alice._keep()
    assert r.status_code == 303
    page = alice.get(f"/tournaments/{tid}").text
    assert 'href="/players/Elite%20bot"' in page and 'class="inline remove-bot"' in page
    assert '<option value="elite"' not in page  # entered: no longer offered
    assert "remove-bot" not in bob.get(f"/tournaments/{tid}").text
    r = alice.use().post(f"/tournaments/{tid}/bot", data={"csrf": alice.csrf, "level": "nobody"}, follow_redirects=False)
    alice._keep()
    assert r.status_code == 422
    r = alice.use().post(f"/tournaments/{tid}/remove-bot", data={"csrf": alice.csrf, "level": "elite"}, follow_redirects=False)
    alice._keep()
    assert r.status_code == 303
    assert alice.get(f"/api/tournaments/{tid}").json()["entries"] == []

"""Two real server processes on one database (SQLite and PostgreSQL): ratings change exactly
once (games of the same player ending at the same moment in both processes are rated one after
the other, with no lost update; one game ended twice at once is rated once), and a tournament's
round is paired once when both processes see the previous round end."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, select

from lordsofwar.web.models import RatingChange, TournamentPairing
from lordsofwar.web.ratings import service as ratings
from lordsofwar.web.settings import Settings
from tests.web.conftest import database
from tests.web.server import running_servers


class Client:
    """One signed-in player talking to one server process (``options`` go to httpx.Client: a
    transport with a certificate to trust or an address to connect from)."""

    def __init__(self, base: str, cookies: httpx.Cookies | None = None, name: str = "", **options: Any):
        self.name = name
        # Idle connections are dropped well before the server's keep-alive (uvicorn: 5 s) closes
        # them: a request sent on a connection the server is closing at that moment is lost
        # ("Server disconnected without sending a response"), as happened on a loaded machine.
        options.setdefault("limits", httpx.Limits(keepalive_expiry=1.0))
        self.http = httpx.Client(base_url=base, timeout=30, cookies=cookies, **options)
        self.csrf = self.http.get("/api/session").json()["csrf"]

    def post(self, path: str, body: Any = None) -> httpx.Response:
        return self.http.post(path, json=body or {}, headers={"X-CSRF-Token": self.csrf})

    def signup(self, name: str) -> Client:
        self.name = name
        r = self.post("/api/signup", {"name": name, "password": "correct horse"})
        assert r.status_code == 201, r.text
        self.csrf = self.http.get("/api/session").json()["csrf"]
        return self

    def elsewhere(self, base: str) -> Client:
        """The same signed-in player on another process."""
        return Client(base, self.http.cookies, self.name)


def rated_game(a: Client, b: Client) -> int:
    options = {"creator_side": "1", "creator_army": "orcs", "opponent_army": "elves", "rated": True}
    r = a.post("/api/invitations", {"opponent": b.name, "options": options})
    assert r.status_code == 201, r.text
    r = b.post(f"/api/invitations/{r.json()['invitation']}/accept")
    assert r.status_code == 200, r.text
    return int(r.json()["game"])


def opened_game(a: Client, b: Client) -> int:
    """A rated game of ``a`` (player 1) and ``b`` past both first turns (a deployment, then a
    draw, each): an ending after them is rated, not aborted."""
    game = rated_game(a, b)
    for player in (a, b):
        for _ in range(2):
            state = player.http.get(f"/api/games/{game}").json()
            r = player.post(f"/api/games/{game}/actions", {"action": state["legal"][0], "version": state["game"]["version"]})
            assert r.status_code == 200, r.text
    assert not b.http.get(f"/api/games/{game}").json()["game"]["abortable"]
    return game


def at_once(*posts: tuple[Client, str]) -> list[httpx.Response]:
    """POST each (client, path) from its own thread, the threads released together; the
    answers in order."""
    start = threading.Barrier(len(posts))
    answers: list[Any] = [None] * len(posts)

    def run(i: int) -> None:
        client, path = posts[i]
        start.wait()
        answers[i] = client.post(path)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(posts))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return answers


@pytest.fixture(params=["sqlite", "postgresql"])
def two_processes(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str, str]]:
    with database(request.param, tmp_path) as url, running_servers(tmp_path, LOW_DATABASE_URL=url) as bases:
        yield url, bases[0], bases[1]


def test_ratings_change_exactly_once_across_two_processes(two_processes: tuple[str, str, str]) -> None:
    url, a, b = two_processes
    alice, bob, carol = (Client(a).signup(name) for name in ("alice", "bob", "carol"))
    for _ in range(3):
        g1, g2, g3 = opened_game(alice, bob), opened_game(alice, carol), opened_game(bob, carol)
        carol_b = carol.elsewhere(b)
        # Two games of alice end at the same moment, one in each process.
        r1, r2 = at_once((bob, f"/api/games/{g1}/resign"), (carol_b, f"/api/games/{g2}/resign"))
        assert (r1.status_code, r2.status_code) == (200, 200), (r1.text, r2.text)
        # One game ended twice at the same moment: by each player, in different processes.
        r3, r4 = at_once((bob, f"/api/games/{g3}/resign"), (carol_b, f"/api/games/{g3}/resign"))
        assert sorted((r3.status_code, r4.status_code)) == [200, 409], (r3.text, r4.text)
        ended = [r for r in (r1, r2, r3, r4) if r.status_code == 200]
        assert all(r.json()["game"]["ratings"] is not None for r in ended)

    engine = create_engine(Settings(database_url=url).sync_url())
    try:
        with engine.connect() as conn:
            changes = list(conn.execute(select(RatingChange.__table__).order_by(RatingChange.__table__.c.id)).mappings())
            stored = {r["user_id"]: r for r in conn.execute(select(ratings.RATINGS)).mappings()}
    finally:
        engine.dispose()
    assert len(changes) == 9 * 2  # nine games, two players each: none rated twice
    by_user: dict[int, list[Any]] = {}
    for c in changes:
        by_user.setdefault(c["user_id"], []).append(c)
    for user_id, chain in by_user.items():
        # Each change starts from where the previous one left the rating: no lost update.
        for before, after in zip(chain, chain[1:], strict=False):
            assert after["mu_before"] == pytest.approx(before["mu_after"])
        assert stored[user_id]["mu"] == pytest.approx(chain[-1]["mu_after"])
        assert stored[user_id]["games"] == len(chain) == 6
    ratings_api = alice.http.get("/api/players/alice/ratings").json()["ratings"]["live"]
    assert (ratings_api["games"], ratings_api["wins"]) == (6, 6)


def test_a_tournament_round_is_paired_once_across_two_processes(two_processes: tuple[str, str, str]) -> None:
    url, a, b = two_processes
    people = [Client(a).signup(name) for name in ("anna", "bert", "cleo", "dora")]
    host = people[0]
    tid = host.post("/api/tournaments", {"name": "Two servers", "kind": "swiss", "rounds": 2}).json()["tournament"]
    for p in people:
        assert p.post(f"/api/tournaments/{tid}/join", {}).status_code == 200
    r = host.post(f"/api/tournaments/{tid}/start")
    assert r.status_code == 200, r.text
    boards = next(x["boards"] for x in r.json()["rounds_played"] if x["round"] == 1)
    by_name = {p.name: p for p in people}
    # The round's two games end at the same moment, one in each process: both processes then
    # try to pair round 2.
    first, second = boards
    r1, r2 = at_once(
        (by_name[first["black"]], f"/api/games/{first['game']}/resign"),
        (by_name[second["black"]].elsewhere(b), f"/api/games/{second['game']}/resign"),
    )
    assert (r1.status_code, r2.status_code) == (200, 200), (r1.text, r2.text)
    deadline = time.monotonic() + 20
    while True:
        t = host.http.get(f"/api/tournaments/{tid}").json()
        if t["current_round"] == 2:
            break
        assert time.monotonic() < deadline, t
        time.sleep(0.1)
    time.sleep(1.0)  # the other process's attempt has had its chance
    engine = create_engine(Settings(database_url=url).sync_url())
    try:
        with engine.connect() as conn:
            pairings = TournamentPairing.__table__
            rows = list(conn.execute(select(pairings).where(pairings.c.tournament_id == tid, pairings.c.round == 2)).mappings())
    finally:
        engine.dispose()
    assert len(rows) == 2 and len({r["game_id"] for r in rows}) == 2
    t = Client(b).http.get(f"/api/tournaments/{tid}").json()
    assert t["current_round"] == 2 and len(next(x["boards"] for x in t["rounds_played"] if x["round"] == 2)) == 2

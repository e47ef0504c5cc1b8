"""The puzzle API and pages: a puzzle as its solver sees it (never a hidden card), answers judged
right and wrong, refusals of bad input, the rating of a first try (once per player and puzzle,
also with two server processes at once), the next puzzle, the daily puzzle and streak mode."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text

from lordsofwar.learn import puzzles as bank
from lordsofwar.web.app import create_app
from lordsofwar.web.puzzles import service
from tests.web import puzzle_bank
from tests.web.conftest import Player, database, settings_for
from tests.web.puzzle_bank import Made


@pytest.fixture(scope="module")
def made() -> Iterator[list[Made]]:
    """The tests' puzzles in place of the shipped ones, for the module."""
    found = puzzle_bank.collection()
    with pytest.MonkeyPatch.context() as mp:
        puzzle_bank.use(mp, found)
        yield found
    service._solver.cache_clear()
    service._bands_of.cache_clear()


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory, made: list[Made]) -> Iterator[TestClient]:
    """One app on SQLite for the module (each test signs up players of its own)."""
    with (
        database("sqlite", tmp_path_factory.mktemp("puzzles")) as url,
        TestClient(create_app(settings_for(url)), base_url="http://testserver") as c,
    ):
        yield c


def count(client: TestClient, table: str) -> int:
    engine = create_engine(str(client.app.state.settings.database_url))  # type: ignore[attr-defined]
    with engine.connect() as conn:
        n = int(conn.execute(text(f"select count(*) from {table}")).scalar_one())
    engine.dispose()
    return n


def guest(client: TestClient) -> Player:
    p = Player(client, "guest")
    p.refresh()
    return p


def wrong_action(m: Made) -> str:
    return next(a for a in sorted(str(x) for x in m.position.legal_actions()) if a != m.puzzle.solution)


def assert_nothing_hidden(wire: str, m: Made) -> None:
    """No hidden card of the puzzle's position, and not its solution, in what was sent."""
    for card in m.hidden():
        assert card not in wire, f"hidden card {card} on the wire"
    assert '"solution"' not in wire and "seed" not in wire


def test_a_puzzle_as_its_solver_sees_it(web: TestClient, made: list[Made]) -> None:
    for m in made:
        r = web.get(f"/api/learn/puzzles/{m.puzzle.id}")
        assert r.status_code == 200, r.text
        doc = r.json()
        assert_nothing_hidden(r.text, m)
        assert "themes" not in doc and "margin" not in doc
        opp = str(3 - m.puzzle.player)
        assert doc["view"]["players"][opp]["hand"] == [None] * len(m.position.hands[int(opp)])
        assert all(isinstance(doc["view"]["players"][s]["deck"], int) for s in ("1", "2"))
        assert doc["legal"] == sorted(str(a) for a in m.position.legal_actions())  # the engine's list
        assert doc["deck"] == sorted(m.puzzle.deck) and doc["player"] == m.puzzle.player


def test_right_and_wrong_answers_as_a_guest(web: TestClient, made: list[Made]) -> None:
    g, m = guest(web), made[0]
    before = (count(web, "puzzle_attempts"), count(web, "puzzle_ratings"))
    right = g.post(f"/api/learn/puzzles/{m.puzzle.id}/answer", {"action": m.puzzle.solution})
    assert right.status_code == 200, right.text
    assert right.json() | {"theme_names": None} == {
        "puzzle": m.puzzle.id,
        "action": m.puzzle.solution,
        "correct": True,
        "solution": m.puzzle.solution,
        "themes": m.puzzle.themes,
        "theme_names": None,
        "margin": m.puzzle.margin,
        "rated": False,
        "change": None,
        "you": None,
        "puzzle_rating": m.puzzle.rating,
        "streak": None,
    }
    wrong = g.post(f"/api/learn/puzzles/{m.puzzle.id}/answer", {"action": wrong_action(m)}).json()
    assert wrong["correct"] is False and wrong["solution"] == m.puzzle.solution and wrong["rated"] is False
    assert (count(web, "puzzle_attempts"), count(web, "puzzle_ratings")) == before  # a guest's answers leave nothing


def test_bad_input_is_refused_and_changes_nothing(web: TestClient, made: list[Made]) -> None:
    alice = Player(web, "alice0").signup()
    m = made[1]
    url = f"/api/learn/puzzles/{m.puzzle.id}/answer"
    assert alice.get("/api/learn/puzzles/zzzzzz").status_code == 404
    assert alice.post("/api/learn/puzzles/zzzzzz/answer", {"action": "draw"}).status_code == 404
    assert alice.get("/api/learn/puzzles/bad%20id!").status_code == 422
    malformed = alice.post(url, {"action": "fly a1 b2"})
    assert malformed.status_code == 422 and malformed.json()["code"] == "action"
    assert "fly" in malformed.json()["detail"]
    legal = set(m.position.legal_actions())
    illegal = next(f"move {a}1 {a}2" for a in "abcdef" if all(str(x) != f"move {a}1 {a}2" for x in legal))
    refused = alice.post(url, {"action": illegal})
    assert refused.status_code == 422 and refused.json()["code"] == "illegal"
    assert alice.post(url, {"action": "draw " * 40}).status_code == 422  # over the field's limit
    assert alice.post(url, {"action": "draw", "extra": 1}).status_code == 422
    assert alice.post(url, {"action": 7}).status_code == 422
    assert alice.post(url, {"action": m.puzzle.solution}, csrf="forged").status_code == 403
    assert alice.get("/api/learn/puzzles?theme=nothing-like-this").status_code == 404
    # nothing of that was a try: the first real answer is still the rated one
    first = alice.post(url, {"action": m.puzzle.solution}).json()
    assert first["rated"] is True and first["you"]["tries"] == 1


def test_the_first_try_is_rated_once(web: TestClient, made: list[Made]) -> None:
    alice, bob = Player(web, "alice1").signup(), Player(web, "bob2").signup()
    m = made[4]
    url = f"/api/learn/puzzles/{m.puzzle.id}/answer"
    miss = alice.post(url, {"action": wrong_action(m)}).json()
    assert miss["correct"] is False and miss["rated"] is True
    assert miss["change"] < 0 and miss["you"]["rating"] == 1500 + miss["change"]
    assert miss["puzzle_rating"] > m.puzzle.rating  # the puzzle won
    again = alice.post(url, {"action": m.puzzle.solution}).json()
    assert again["correct"] is True and again["rated"] is False and again["change"] is None
    assert again["you"] == miss["you"] and again["puzzle_rating"] == miss["puzzle_rating"]
    hit = bob.post(url, {"action": m.puzzle.solution}).json()
    assert hit["rated"] is True and hit["change"] > 0 and hit["puzzle_rating"] < miss["puzzle_rating"]
    listing = alice.get("/api/learn/puzzles").json()
    assert listing["you"] | {"rating": 0} == {"rating": 0, "provisional": True, "tries": 1, "solved": 0, "streak": 0, "best_streak": 0}
    mine = {p["id"]: p["status"] for p in listing["puzzles"]}
    assert mine[m.puzzle.id] == "solved"  # right at the second try, though rated as a miss
    assert sum(1 for s in mine.values() if s == "new") == len(made) - 1
    assert {p["id"]: p["rating"] for p in listing["puzzles"]}[m.puzzle.id] == hit["puzzle_rating"]


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_two_processes_judging_the_same_first_try_rate_it_once(
    kind: str, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = puzzle_bank.collection(2)
    puzzle_bank.use(monkeypatch, made)
    with database(kind, tmp_path) as url:
        app_a = create_app(settings_for(url))
        app_b = create_app(settings_for(url), run_migrations=False)
        with TestClient(app_a) as ca, TestClient(app_b) as cb:
            alice = Player(ca, "alice").signup()
            alice_b = Player(cb, "alice")
            alice_b.cookies = dict(alice.cookies)
            alice_b.refresh()
            for round_ in range(2):  # two puzzles, each answered by both processes at once
                m = made[round_]
                answers: list[Any] = []
                start = threading.Barrier(2)

                def answer(
                    p: Player, action: str, pid: str = m.puzzle.id, start: threading.Barrier = start, answers: list[Any] = answers
                ) -> None:
                    client = TestClient(p.client.app)  # a client of its own per thread
                    for k, v in p.cookies.items():
                        client.cookies.set(k, v)
                    start.wait()
                    r = client.post(f"/api/learn/puzzles/{pid}/answer", json={"action": action}, headers={"X-CSRF-Token": p.csrf})
                    answers.append(r)

                threads = [
                    threading.Thread(target=answer, args=(alice, m.puzzle.solution)),
                    threading.Thread(target=answer, args=(alice_b, m.puzzle.solution)),
                ]
                for t in threads:
                    t.start()
                for t in threads:
                    t.join()
                assert all(r.status_code == 200 for r in answers), [r.text for r in answers]
                assert sorted(r.json()["rated"] for r in answers) == [False, True]
            you = alice.get("/api/learn/puzzles").json()["you"]
            assert you["tries"] == 2 and you["solved"] == 2
        engine = create_engine(url.replace("postgresql://", "postgresql+psycopg://"))
        with engine.connect() as conn:
            rows = conn.execute(text("select puzzle_id, tries, solved from puzzle_attempts")).all()
            assert sorted(r[1] for r in rows) == [2, 2] and all(r[2] for r in rows)
            assert conn.execute(text("select sum(tries) from puzzle_ratings")).scalar() == 2
        engine.dispose()


def test_the_next_puzzle_is_untried_and_near_the_rating(web: TestClient, made: list[Made]) -> None:
    alice = Player(web, "alice3").signup()
    seen: list[str] = []
    for _ in made:
        r = alice.get("/api/learn/puzzles/next")
        assert r.status_code == 200, r.text
        nxt = r.json()
        assert nxt["id"] not in seen
        listing = alice.get("/api/learn/puzzles").json()
        mine, now = listing["you"]["rating"], {p["id"]: p["rating"] for p in listing["puzzles"]}
        ratings = sorted(abs(now[m.puzzle.id] - mine) for m in made if m.puzzle.id not in seen)
        assert abs(nxt["rating"] - mine) <= ratings[min(service.NEAREST, len(ratings)) - 1]
        seen.append(nxt["id"])
        alice.post(f"/api/learn/puzzles/{nxt['id']}/answer", {"action": nxt["legal"][0]})
    assert alice.get("/api/learn/puzzles/next").status_code == 404
    # a guest names what it tried; a theme narrows the choice
    g = guest(web)
    ranged = [m.puzzle.id for m in made if "ranged" in m.puzzle.themes]
    got = g.get("/api/learn/puzzles/next", params={"theme": "ranged", "skip": ",".join(ranged[:-1])}).json()
    assert got["id"] == ranged[-1]
    assert g.get("/api/learn/puzzles/next", params={"skip": ",".join(f"p{i}" for i in range(1001))}).status_code == 422


def test_the_daily_puzzle_is_the_same_all_day_and_chosen_by_the_date(web: TestClient, made: list[Made]) -> None:
    a, b = guest(web).get("/api/learn/puzzles/daily").json(), Player(web, "alice4").signup().get("/api/learn/puzzles/daily").json()
    assert a == b and a["date"] == datetime.now(UTC).date().isoformat()
    good = {m.puzzle.id for m in made if m.puzzle.margin >= service.DAILY_MARGIN}
    days = [date(2026, 1, 1) + timedelta(days=i) for i in range(60)]
    picks = [service.daily(d).id for d in days]
    assert set(picks) == good  # only puzzles with a clear solution, and each of them some day
    assert picks == [service.daily(d).id for d in days]  # from the date alone
    assert a["puzzle"]["id"] == service.daily(date.fromisoformat(a["date"])).id


def test_streak_mode_for_an_account(web: TestClient, made: list[Made]) -> None:
    alice = Player(web, "alice5").signup()
    run = alice.get("/api/learn/puzzles/streak").json()
    assert run["step"] == 0 and run["kept"] == "server" and run["steps"] == 3
    ratings = []
    for step in range(2):
        p = run["puzzle"]
        ratings.append(p["rating"])
        solution = bank.by_id(p["id"]).solution  # type: ignore[union-attr]
        v = alice.post(f"/api/learn/puzzles/{p['id']}/answer", {"action": solution, "streak": True}).json()
        assert v["correct"] and v["streak"]["streak"] == step + 1 and v["you"]["streak"] == step + 1
        run = v["streak"]
        assert run["puzzle"]["rating"] >= ratings[-1]  # rising difficulty
    assert alice.get("/api/learn/puzzles/streak").json()["puzzle"]["id"] == run["puzzle"]["id"]  # kept on the server
    other = next(m for m in made if m.puzzle.id != run["puzzle"]["id"])
    stale = alice.post(f"/api/learn/puzzles/{other.puzzle.id}/answer", {"action": other.puzzle.solution, "streak": True})
    assert stale.status_code == 409 and stale.json()["code"] == "stale"
    p = run["puzzle"]
    miss_action = next(a for a in p["legal"] if a != bank.by_id(p["id"]).solution)  # type: ignore[union-attr]
    v = alice.post(f"/api/learn/puzzles/{p['id']}/answer", {"action": miss_action, "streak": True}).json()
    assert v["correct"] is False and v["streak"]["streak"] == 0 and v["streak"]["best"] == 2 and v["streak"]["ended"]
    assert v["you"]["best_streak"] == 2
    fresh = alice.post("/api/learn/puzzles/streak/restart").json()
    assert fresh["step"] == 0 and fresh["best"] == 2


def test_streak_mode_for_a_guest(web: TestClient, made: list[Made]) -> None:
    g = guest(web)
    new = g.get("/api/learn/puzzles/streak").json()  # no seed: a new run, from the easiest band
    assert new["step"] == 0 and new["kept"] == "browser" and new["puzzle"]["id"] in {p.id for p in service.bands()[0]}
    steps = [g.get("/api/learn/puzzles/streak", params={"seed": 7, "step": s, "best": 1}).json() for s in range(4)]
    assert [s["kept"] for s in steps] == ["browser"] * 4
    assert [s["puzzle"]["rating"] for s in steps[:3]] == sorted(s["puzzle"]["rating"] for s in steps[:3])
    assert steps[3]["puzzle"] is None  # every band solved: the run is complete
    again = g.get("/api/learn/puzzles/streak", params={"seed": 7, "step": 1}).json()
    assert again["puzzle"]["id"] == steps[1]["puzzle"]["id"]  # the browser's seed and step decide
    p = steps[0]["puzzle"]
    assert g.post(f"/api/learn/puzzles/{p['id']}/answer", {"action": p["legal"][0], "streak": True}).status_code == 401
    assert g.post("/api/learn/puzzles/streak/restart").status_code == 401


def test_the_pages_signed_out_and_in(web: TestClient, made: list[Made]) -> None:
    g = guest(web)
    home = g.get("/learn/puzzles")
    assert home.status_code == 200 and all(m.puzzle.id in home.text for m in made)
    assert 'id="guest-progress"' in home.text and 'href="/learn/puzzles/daily"' in home.text
    themed = g.get("/learn/puzzles?theme=ranged").text
    assert sum(1 for m in made if f'data-puzzle="{m.puzzle.id}"' in themed) == sum(1 for m in made if "ranged" in m.puzzle.themes)
    for m in made[:3]:
        page = g.get(f"/learn/puzzles/{m.puzzle.id}")
        assert page.status_code == 200
        assert_nothing_hidden(page.text, m)
        data = json.loads(re.search(r'<script type="application/json" id="puzzle-data">(.*?)</script>', page.text, re.S).group(1))  # type: ignore[union-attr]
        assert data["puzzle"]["legal"] == sorted(str(a) for a in m.position.legal_actions())
    day = g.get("/learn/puzzles/daily")
    assert day.status_code == 200 and 'id="puzzle-day"' in day.text
    daily = next(m for m in made if m.puzzle.id == service.daily(datetime.now(UTC).date()).id)
    assert_nothing_hidden(day.text, daily)
    assert g.get("/learn/puzzles/streak").status_code == 200
    assert g.get("/learn/puzzles/zzzzzz").status_code == 404
    alice = Player(web, "alice6").signup()
    signed = alice.get("/learn/puzzles", headers={"Accept-Language": "de"})
    assert signed.status_code == 200 and 'id="puzzle-standing"' in signed.text and "1500" in signed.text
    streak = alice.get("/learn/puzzles/streak")
    assert streak.status_code == 200 and '"kept": "server"' in streak.text


def test_every_shipped_puzzle_is_served_without_a_hidden_card(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bank, "load", puzzle_bank.SHIPPED[0])
    monkeypatch.setattr(bank, "by_id", puzzle_bank.SHIPPED[1])
    shipped = bank.load()
    assert shipped, "no puzzles are shipped"
    for p in shipped:
        doc = service.public(p)
        opp = doc["view"]["players"][str(3 - p.player)]
        if doc["view"]["variant"].get("hands") != "visible":
            assert all(c is None for c in opp["hand"])
        assert all(isinstance(doc["view"]["players"][s]["deck"], int) for s in ("1", "2"))
        assert p.solution in doc["legal"] and len(doc["legal"]) == p.legal

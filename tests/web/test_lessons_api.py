"""The lesson API and pages: the stateless play (the engine replays the actions sent), what the
learner may see on the wire (their own view only), refusals of bad input (nothing recorded), and
progress per account (written by a solved play, merged from a guest's browser, never forged by an
unknown id)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from lordsofwar.learn import lessons as L
from lordsofwar.web.app import create_app
from tests.web.conftest import Player, database, settings_for

PLAY = "/api/learn/lessons/{}/exercises/{}/play"


@pytest.fixture(scope="module")
def sqlite(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """One database for the module where the database plays no part (each test its own players)."""
    path = tmp_path_factory.mktemp("lessons")
    with database("sqlite", path) as url, TestClient(create_app(settings_for(url)), base_url="http://testserver") as c:
        yield c


def guest(client: TestClient) -> Player:
    client.cookies.clear()
    p = Player(client, "guest")
    p.refresh()
    return p


def play(p: Player, slug: str, eid: str, body: dict[str, Any], **kw: Any) -> Any:
    return p.post(PLAY.format(slug, eid), body, **kw)


def test_every_exercise_starts_and_is_solved_through_the_api(sqlite: TestClient) -> None:
    g = guest(sqlite)
    lessons = g.get("/api/learn/lessons").json()["lessons"]
    assert [x["slug"] for x in lessons] == [les.slug for les in L.lessons()]
    for les in L.lessons():
        doc = g.get(f"/api/learn/lessons/{les.slug}").json()
        assert doc["title"] and doc["intro"] and [e["id"] for e in doc["exercises"]] == [e.id for e in les.exercises]
        for ex in les.exercises:
            start = play(g, les.slug, ex.id, {}).json()
            assert start["status"] == "playing" and start["legal"] and start["message"] is None
            answer = g.get(f"/api/learn/lessons/{les.slug}/exercises/{ex.id}/answer").json()["actions"]
            done = play(g, les.slug, ex.id, {"actions": answer}).json()
            assert done["status"] == "done" and done["legal"] == [] and done["message"]
            assert done["saved"] is False  # a guest's progress stays in the browser


def test_hidden_cards_never_reach_the_wire(sqlite: TestClient) -> None:
    g = guest(sqlite)
    for les in L.lessons():
        for ex in les.exercises:
            opp = str(3 - ex.you)
            shown = {u["card"] for u in ex.position["board"]} | {
                c for p in ("1", "2") for c in ex.position["players"][p].get("lost", [])
            }
            hidden = set(ex.position["players"][opp].get("hand", [])) - shown  # in the opponent's hand only
            for actions in ([], list(ex.answer)):
                r = play(g, les.slug, ex.id, {"actions": actions})
                view = r.json()["view"]
                assert all(c is None for c in view["players"][opp]["hand"])
                assert all(isinstance(view["players"][p]["deck"], int) for p in ("1", "2"))  # no order, no contents
                for card in hidden:
                    assert card not in r.text, (les.slug, ex.id, card)
                mine = (
                    set(ex.position["players"][str(ex.you)].get("deck", []))
                    - shown
                    - set(ex.position["players"][str(ex.you)]["hand"])
                )
                drawn = set(view["players"][str(ex.you)]["hand"])
                for card in mine - drawn:  # the learner's own deck: only a card drawn shows up
                    assert card not in r.text, (les.slug, ex.id, card)


def test_a_wrong_try_is_explained_in_the_pages_language(sqlite: TestClient) -> None:
    g = guest(sqlite)
    r = play(g, "combat", "together", {"actions": ["deploy orcs:30 d3"]})
    body = r.json()
    assert body["status"] == "failed" and body["legal"] == []
    assert body["message"] == L.text("en", "combat", "together", "wrong.trade")
    assert [e["type"] for e in body["events"]] == ["deploy", "eliminated", "eliminated"]
    r = g.use().post(
        PLAY.format("engagement", "engage"),
        json={"attempt": "deploy orcs:06 e3"},
        headers={"X-CSRF-Token": g.csrf, "Accept-Language": "de"},
    )
    assert r.json()["message"] == L.text("de", "engagement", "engage", "wrong.must-engage")
    assert r.json()["status"] == "playing" and r.json()["legal"]  # explained, not played
    r = play(g, "combat", "together", {"attempt": "deploy orcs:06 a1"})  # no text of the lesson: the engine's reason
    assert "3.3" in r.json()["message"]
    page = g.get("/learn/lessons/combat", headers={"Accept-Language": "pl"}).text
    assert L.text("pl", "combat", None, "title") in page and '<html lang="pl">' in page


BAD_PLAYS: list[tuple[dict[str, Any], int]] = [
    ({"actions": ["deploy orcs:06 a1"]}, 409),  # illegal
    ({"actions": ["deploy orcs:06 d5", "draw", "draw"]}, 409),  # after the end
    ({"actions": ["fly away"]}, 422),  # malformed
    ({"actions": ["x" * 41]}, 422),  # over-long
    ({"actions": ["draw"] * 41}, 422),  # too many
    ({"actions": "deploy orcs:06 d5"}, 422),  # not a list
    ({"actions": [], "extra": 1}, 422),  # an unknown field
    ({"attempt": "deploy orcs:06 d5"}, 409),  # a legal action is played, not explained
    ({"actions": [], "attempt": "fly"}, 422),
]


def test_bad_plays_are_refused_and_record_nothing(sqlite: TestClient) -> None:
    ada = Player(sqlite, "bad-player").signup()
    for body, status in BAD_PLAYS:
        r = play(ada, "combat", "together", body)
        assert r.status_code == status, (body, r.text)
        assert r.json()["detail"]
    assert ada.get("/api/learn/progress").json() == {"lessons": []}


def test_unknown_ids_and_forged_requests(sqlite: TestClient) -> None:
    g = guest(sqlite)
    assert g.get("/api/learn/lessons/nope").status_code == 404
    assert play(g, "nope", "x", {}).status_code == 404
    assert play(g, "combat", "nope", {}).status_code == 404
    assert g.get("/api/learn/lessons/combat/exercises/nope/answer").status_code == 404
    assert g.get("/api/learn/lessons/BAD%20ID").status_code == 422
    assert g.get("/learn/lessons/nope", headers={"Accept": "text/html"}).status_code == 404
    assert play(g, "combat", "together", {}, csrf="forged").status_code == 403
    assert g.get("/api/learn/progress").status_code == 401
    assert g.post("/api/learn/progress", {"lessons": {"combat": ["together"]}}).status_code == 401


def test_progress_is_recorded_by_a_solved_play_and_merged_from_a_guest(client: TestClient) -> None:
    ada = Player(client, "ada").signup()
    assert play(ada, "combat", "together", {"actions": ["deploy orcs:06 d5"], "shown": True}).json()["saved"] is False
    assert ada.get("/api/learn/progress").json() == {"lessons": []}
    r = play(ada, "combat", "together", {"actions": ["deploy orcs:06 d5"]})
    assert r.json()["saved"] is True
    assert play(ada, "combat", "together", {"actions": ["deploy orcs:06 d5"]}).json()["saved"] is True  # again: one row
    assert ada.get("/api/learn/progress").json() == {"lessons": [{"lesson": "combat", "exercises": ["together"]}]}
    # a guest's browser progress joins the account (known ids only; nothing added on a refusal)
    r = ada.post("/api/learn/progress", {"lessons": {"ranged": ["fire", "fire"], "combat": ["two-at-once"]}})
    assert r.status_code == 200
    both = [{"lesson": "combat", "exercises": ["together", "two-at-once"]}, {"lesson": "ranged", "exercises": ["fire"]}]
    assert r.json() == {"lessons": both}
    bad: dict[str, Any]
    for bad, status in (
        ({"lessons": {"combat": ["nope"]}}, 404),  # well formed, but no such exercise
        ({"lessons": {"nope": ["together"]}}, 404),
        ({"lessons": {"Bad Slug": []}}, 422),
        ({"lessons": []}, 422),
    ):
        assert ada.post("/api/learn/progress", bad).status_code == status, bad
    assert ada.post("/api/learn/progress", {"lessons": {"spears": ["pin"]}}, csrf="forged").status_code == 403
    assert ada.get("/api/learn/progress").json()["lessons"] == both
    # the pages show it: the hub's count and the list's
    hub = ada.get("/learn").text
    assert 'data-done="3"' in hub
    assert 'class="lesson-item complete" data-slug="combat"' in ada.get("/learn/lessons").text
    # another player's progress is their own
    bob = Player(client, "bob").signup()
    assert bob.get("/api/learn/progress").json() == {"lessons": []}


def test_the_hub_links_every_part_and_the_front_page_welcomes_newcomers(sqlite: TestClient) -> None:
    client = sqlite
    client.cookies.clear()
    hub = client.get("/learn").text
    for href in ("/learn/rules", "/learn/lessons", "/learn/cards", "/learn/puzzles"):
        assert f'href="{href}"' in hub
    front = client.get("/").text
    assert 'id="newcomer"' in front and 'href="/learn"' in front
    assert 'id="nav-learn"' in client.get("/leaderboard").text

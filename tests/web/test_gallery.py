"""The card gallery: its figures (counted from crafted finished rated games on SQLite and
PostgreSQL, each game once, the thresholds honoured) and its page (every card, the server's
filters the same as the card data, bad filters refused)."""

from __future__ import annotations

import math
import random
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient

from lordsofwar.rules import notation
from lordsofwar.rules.cards import CORE
from lordsofwar.web.app import create_app
from lordsofwar.web.gallery.service import MIN_SAMPLE, CardStats, Finished, Tally, count, deployers, figures
from lordsofwar.web.models import Game
from tests.web.conftest import database, settings_for

ORCS = CORE.standard_deck("orcs")
DWARVES = CORE.standard_deck("dwarves")


def test_each_side_counts_the_cards_it_held_and_deployed() -> None:
    games = [
        Finished(
            1, [ORCS, DWARVES], ["deploy orcs:05 c3", "draw", "deploy dwarves:06 e4", "draw", "deploy orcs:05 d4"], 1
        ),
        Finished(2, [ORCS, DWARVES], ["deploy orcs:07 c3", "draw", "deploy dwarves:06 e4"], None),
        Finished(3, [DWARVES, ORCS], ["deploy dwarves:06 c3", "draw"], 2),
    ]
    tallies, n = count(games)
    assert n == 3
    assert tallies["orcs:05"] == Tally(held=3, deployed=1, score=1.0)  # deployed twice in game 1: one side
    assert tallies["orcs:07"] == Tally(held=3, deployed=1, score=0.5)  # a draw
    assert tallies["dwarves:06"] == Tally(held=3, deployed=3, score=0.5)  # lost, drew, lost
    assert tallies["orcs:01"] == Tally(held=3, deployed=0, score=0.0)


def _random_game(decks: list[list[str]], seed: int, steps: int) -> list[str]:
    pos = notation.deal(decks, seed)
    rng = random.Random(seed)
    actions: list[str] = []
    while len(actions) < steps and pos.result is None:
        action = rng.choice(pos.legal_actions())
        actions.append(str(action))
        pos.push(action)
    return actions


def test_a_mirror_match_is_replayed_to_tell_who_deployed() -> None:
    actions = _random_game([ORCS, ORCS], 7, 60)
    pos = notation.deal([ORCS, ORCS], 7)
    expected: dict[int, set[str]] = {1: set(), 2: set()}
    for entry in notation.play_through(pos, actions, None):
        player = entry["player"]
        if entry["action"] and entry["action"].startswith("deploy ") and player is not None:
            expected[player].add(entry["action"].split()[1])
    assert expected[1] and expected[2]
    assert deployers(Finished(1, [ORCS, ORCS], actions, 1, seed=7)) == expected


def test_a_record_that_does_not_replay_is_left_out() -> None:
    bad = Finished(9, [ORCS, ORCS], ["deploy orcs:05 a1"], 1, seed=3)  # a1 is not the opening square
    assert count([bad]) == ({}, 0)


def test_rates_only_from_the_threshold_on() -> None:
    assert figures("orcs:01", Tally(MIN_SAMPLE - 1, MIN_SAMPLE - 1, 3)) == {
        "card": "orcs:01",
        "held": MIN_SAMPLE - 1,
        "deployed": MIN_SAMPLE - 1,
        "deploy_share": None,
        "win_rate": None,
    }
    f = figures("orcs:01", Tally(2 * MIN_SAMPLE, MIN_SAMPLE, MIN_SAMPLE / 4))
    assert f["deploy_share"] == 0.5 and f["win_rate"] == 0.25


# --- on a database --------------------------------------------------------------------------------

START = datetime(2026, 1, 1, tzinfo=UTC)


def _game(i: int, **kw: Any) -> Game:
    values: dict[str, Any] = {
        "variant": {},
        "decks": [ORCS, DWARVES],
        "armies": ["orcs", "dwarves"],
        "seed": i,
        "mode": "live",
        "status": "over",
        "rated": True,
        "winner": 1,
        "termination": "resignation",
        "reason": "player 2 resigned",
        "actions": ["deploy orcs:05 c3", "draw", "deploy dwarves:06 e4", "draw"],
        "ended_at": START + timedelta(minutes=i),
    }
    values.update(kw)
    return Game(**values)


def _add(client: TestClient, games: list[Game]) -> None:
    async def add() -> None:
        async with client.app.state.services.sessions() as db:  # type: ignore[attr-defined]
            db.add_all(games)
            await db.commit()

    client.portal.call(add)  # type: ignore[union-attr]


def _refresh(client: TestClient) -> dict[str, Any]:
    stats: CardStats = client.app.state.card_stats  # type: ignore[attr-defined]
    stats.refreshed = -math.inf  # as if the refresh interval had passed
    r = client.get("/api/learn/cards")
    assert r.status_code == 200, r.text
    return {c["card"]: c for c in r.json()["cards"]} | {"games": r.json()["games"]}


def test_figures_from_finished_rated_games(client: TestClient) -> None:
    r = client.get("/api/learn/cards")
    assert r.status_code == 200
    doc = r.json()
    assert doc["games"] == 0 and doc["min_sample"] == MIN_SAMPLE
    assert sorted(c["card"] for c in doc["cards"]) == sorted(CORE)
    # counted: MIN_SAMPLE - 1 rated games that player 1 (orcs) won; not counted: unrated, running, aborted
    counted = [_game(i) for i in range(MIN_SAMPLE - 1)]
    ignored = [
        _game(100, rated=False),
        _game(101, status="running", winner=None, termination=None, reason=None, ended_at=None),
        _game(102, termination="aborted", winner=None, reason="aborted"),
    ]
    _add(client, counted + ignored)
    figs = _refresh(client)
    assert figs["games"] == MIN_SAMPLE - 1
    assert figs["orcs:05"]["held"] == figs["orcs:05"]["deployed"] == MIN_SAMPLE - 1
    assert figs["orcs:05"]["deploy_share"] is None and figs["orcs:05"]["win_rate"] is None  # one short
    # one more game reaches the threshold: dwarves win this one; it ended before the last counted
    # one (a late commit inside the overlap), and the games already counted are not counted again
    _add(client, [_game(MIN_SAMPLE + 5, winner=2, ended_at=START + timedelta(minutes=MIN_SAMPLE - 4, seconds=30))])
    figs = _refresh(client)
    assert figs["games"] == MIN_SAMPLE
    assert figs["orcs:05"]["held"] == MIN_SAMPLE and figs["orcs:05"]["deploy_share"] == 1.0
    assert figs["orcs:05"]["win_rate"] == round((MIN_SAMPLE - 1) / MIN_SAMPLE, 4)
    assert figs["dwarves:06"]["win_rate"] == round(1 / MIN_SAMPLE, 4)
    assert figs["orcs:01"]["deploy_share"] == 0.0 and figs["orcs:01"]["win_rate"] is None
    assert figs["elves:01"]["held"] == 0 and figs["elves:01"]["deploy_share"] is None
    # within the refresh interval the cache answers (a new game waits for the next refresh)
    _add(client, [_game(200)])
    assert client.get("/api/learn/cards").json()["games"] == MIN_SAMPLE
    assert _refresh(client)["games"] == MIN_SAMPLE + 1
    # the page shows the rates with their sample
    page = client.get("/learn/cards?army=orcs&rank=recruit").text
    orc5 = re.search(r'data-card="orcs:05".*?</li>', page, re.S)
    assert orc5 is not None and "100 %" in orc5.group(0) and str(MIN_SAMPLE + 1) in orc5.group(0)


# --- the page ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """One SQLite site for the page's tests (they write nothing)."""
    with database("sqlite", tmp_path_factory.mktemp("gallery")) as url, TestClient(create_app(settings_for(url))) as c:
        yield c


def _shown(html: str) -> list[str]:
    return re.findall(r'<li class="gc[^"]*" id="[^"]+" data-card="([^"]+)"[^>]*?(?<!hidden)>', html)


def test_the_page_lists_every_card_and_filters_as_the_data_says(site: TestClient) -> None:
    client = site
    html = client.get("/learn/cards").text
    assert re.findall(r'<li class="gc[^"]*" id="[^"]+" data-card="([^"]+)"', html) == list(CORE)
    assert _shown(html) == list(CORE)
    for query, keep in [
        ("army=elves", lambda c: c.army == "elves"),
        ("rank=elite&class=ranged", lambda c: c.rank == "elite" and c.cls == "ranged"),
        ("army=undead&rank=command", lambda c: c.army == "undead" and c.rank == "command"),
        ("q=ARCHER", lambda c: "archer" in c.name.lower()),
        ("q=orcs:1", lambda c: c.id.startswith("orcs:1")),
    ]:
        expected = [cid for cid in CORE if keep(CORE.card(cid))]
        assert expected, query
        html = client.get(f"/learn/cards?{query}").text
        assert _shown(html) == expected, query
        assert f"{len(expected)} card" in html
    html = client.get("/learn/cards?army=orcs&q=no-such-card").text
    assert _shown(html) == [] and 'id="gallery-empty" class="gallery-empty">' in html


def test_the_page_explains_each_class_in_every_language(site: TestClient) -> None:
    client = site
    for lang, word in [("en", "Infantry fights"), ("de", "Infanterie"), ("pl", "Piechota")]:
        html = client.get("/learn/cards?class=infantry", headers={"Accept-Language": lang}).text
        assert word in html, lang


def test_bad_filters_are_refused(site: TestClient) -> None:
    client = site
    for query, status, said in [
        ("army=dragons", 422, "no such choice of army"),
        ("rank=captain", 422, "no such choice of rank"),
        ("class=wizard", 422, "no such choice of class"),
        ("q=" + "x" * 41, 413, "at most 40 characters"),
    ]:
        r = client.get(f"/learn/cards?{query}", headers={"Accept": "text/html"})
        assert r.status_code == status and said in r.text and "text/html" in r.headers["content-type"], query
        assert client.get(f"/learn/cards?{query}").json()["detail"], query

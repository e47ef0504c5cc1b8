"""A finished tournament's page in a real browser, wide and on a phone: its round tables keep the
same columns from round to round whatever the players' names, and the winner is announced."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.web.test_browser import server, visit  # noqa: F401 - fixtures
from tests.web.test_browser_phone import Api

COLUMNS = """() => [...document.querySelectorAll('.card.round table')].map(
  (t) => [...t.querySelectorAll('thead th')].map((th) => Math.round(th.getBoundingClientRect().left)))"""


def finished_swiss(base: str, names: list[str], rounds: int) -> int:
    """A Swiss of ``names`` played to its end: on each board player 2 resigns at once."""
    players = {n: Api(base, n) for n in names}
    host = players[names[0]]
    tid = int(host.post("/api/tournaments", {"name": "Columns", "rounds": rounds}).json()["tournament"])
    for p in players.values():
        assert p.post(f"/api/tournaments/{tid}/join", {"army": "orcs"}).status_code == 200
    assert host.post(f"/api/tournaments/{tid}/start").status_code == 200
    deadline = time.monotonic() + 60
    done: set[int] = set()
    while True:
        t = host.http.get(f"/api/tournaments/{tid}").json()
        if t["status"] == "finished":
            return tid
        for r in t["rounds_played"]:
            for b in r["boards"]:
                if b["game"] is not None and b["result"] is None and b["game"] not in done:
                    assert players[b["black"]].post(f"/api/games/{b['game']}/resign").status_code == 200
                    done.add(b["game"])
        assert time.monotonic() < deadline, t
        time.sleep(0.2)


@pytest.mark.parametrize("width", [1366, 390])
def test_the_round_tables_keep_their_columns(browser: Any, server: str, width: int) -> None:  # noqa: F811
    names = [f"ann{width}", f"bartholomew-the-bold{width}", f"cy{width}", f"dominique_de_la_m{width}", f"ed{width}"]
    tid = finished_swiss(server, names, 3)
    page = browser.new_context(viewport={"width": width, "height": 900}).new_page()
    visit(page, f"{server}/tournaments/{tid}")
    tables = page.evaluate(COLUMNS)
    assert len(tables) == 3 and all(cols == tables[0] for cols in tables), tables
    assert "Winner:" in page.inner_text("#winner")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width

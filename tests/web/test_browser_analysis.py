"""A finished game's analysis in a real browser: Analyse on the replay page, its progress, then
the win-probability graph with one point per step, the mistakes the server stored marked on
the graph and in the move list, and at a judged step the preferred action named and lit."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lordsofwar import core
from tests.web.hooks import low
from tests.web.server import running_server
from tests.web.test_browser import shot, sign_up, visit
from tests.web.test_browser_ratings import Api

pytestmark = pytest.mark.skipif(core.IMPLEMENTATION != "native", reason="the search bots need the compiled core")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data: Path = tmp_path_factory.mktemp("server")
    with running_server(data, LOW_ANALYSIS_ITERATIONS="300") as base:
        yield base


def finished_game(base: str) -> int:
    """frank plays random actions against the greedy bot for a while, then resigns."""
    frank = Api(base, "frank")
    r = frank.post("/api/invitations", {"bot": "greedy", "options": {"creator_side": "1"}})
    game = int(r.json()["game"])
    rng = random.Random(4)
    played = 0
    deadline = time.monotonic() + 90
    while played < 40 and time.monotonic() < deadline:
        s = frank.http.get(f"/api/games/{game}").json()
        if s["game"]["status"] != "running":
            break
        if s["legal"]:
            frank.post(f"/api/games/{game}/actions", {"action": rng.choice(s["legal"]), "version": s["game"]["version"]})
            played += 1
        else:
            time.sleep(0.05)
    if frank.http.get(f"/api/games/{game}").json()["game"]["status"] == "running":
        assert frank.post(f"/api/games/{game}/resign").status_code == 200
    return game


def test_analysis_on_the_replay_page(browser: Any, server: str) -> None:
    game = finished_game(server)
    erin = sign_up(browser, server, "erin")
    visit(erin, f"{server}/games/{game}/replay")
    erin.wait_for_selector("#btn-analyse:visible")
    erin.click("#btn-analyse")
    erin.wait_for_selector("#analysis-progress:visible, #analysis-graph:visible")
    erin.wait_for_selector("#analysis-graph svg", timeout=120_000)
    shot(erin, "replay-analysis.png")
    stored = erin.evaluate(f"async () => (await (await fetch('/api/games/{game}/analysis')).json())")
    assert stored["status"] == "done"
    result = stored["result"]
    n = len(result["decisions"])
    # one clickable point per step, the opening included
    assert erin.locator("#analysis-graph .wg-hit").count() == n + 1 == len(result["graph"])
    marked = {d["n"]: d for d in result["decisions"] if d["verdict"]}
    assert marked, "random play against the greedy bot made no mistake the analysis saw"
    dots = erin.eval_on_selector_all("#analysis-graph circle", "els => els.map(e => Number(e.dataset.ply))")
    assert sorted(dots) == sorted(marked)
    marks = erin.eval_on_selector_all(".replay-item .ri-mark", "els => els.map(e => [Number(e.parentElement.dataset.ply), e.textContent])")
    assert dict(marks) == {k: "??" if d["verdict"] == "blunder" else "?" for k, d in marked.items()}
    summary = erin.inner_text("#analysis-summary")
    blunders = sum(d["verdict"] == "blunder" and d["player"] == 1 for d in marked.values())
    assert f"{blunders} blunder" in summary and "frank" in summary
    # a click on a mistake's dot goes to its step; the decision before it names the preferred action
    first = min(marked)
    erin.click(f"#analysis-graph circle[data-ply='{first}']")
    assert low(erin).evaluate("() => window.LoW.replay.R.ply") == first
    erin.click("#replay-prev")
    d = result["decisions"][first - 1]
    text = erin.inner_text("#analysis-best")
    said = low(erin).evaluate("a => [window.LoW.actionText(a[0]), window.LoW.actionText(a[1])]", [d["best"], d["played"]])
    assert f"Bot preferred: {said[0]}" in text and said[1] in text and d["verdict"] in text
    assert erin.get_attribute("#analysis-best", "data-best") == d["best"]
    lit = set(erin.eval_on_selector_all("#mat .sq.hinted", "els => els.map(e => e.dataset.square)"))
    assert lit == set(d["squares"])
    # a later visit shows the stored analysis at once, with no button
    visit(erin, f"{server}/games/{game}/replay")
    erin.wait_for_selector("#analysis-graph svg")
    assert not erin.is_visible("#btn-analyse")
    erin.context.close()

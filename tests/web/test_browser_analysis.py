"""A finished game's analysis in a real browser: Analyse on the replay page, its progress, then
the win-probability graph with one point per step, its axes and legend in the page's language,
the mistakes the server stored marked on the graph and in the move list, and at every step the
decision of that step's own action: what was played to get there, the preferred action named
and its squares lit."""

from __future__ import annotations

import gettext
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lordsofwar import core
from lordsofwar.bots import BOT_LEVELS, TOP
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
    stored = erin.evaluate(f"async () => (await (await fetch('/api/games/{game}/analysis')).json())")
    assert stored["status"] == "done"
    result = stored["result"]
    n = len(result["decisions"])
    # one clickable point per step, the opening included
    assert erin.locator("#analysis-graph .wg-hit").count() == n + 1 == len(result["graph"])
    marked = {d["n"]: d for d in result["decisions"] if d["verdict"]}
    assert marked, "random play against the greedy bot made no mistake the analysis saw"
    dots = erin.eval_on_selector_all("#analysis-graph circle[data-ply]", "els => els.map(e => Number(e.dataset.ply))")
    assert sorted(dots) == sorted(marked)
    marks = erin.eval_on_selector_all(".replay-item .ri-mark", "els => els.map(e => [Number(e.parentElement.dataset.ply), e.textContent])")
    assert dict(marks) == {k: "??" if d["verdict"] == "blunder" else "?" for k, d in marked.items()}
    summary = erin.inner_text("#analysis-summary")
    blunders = sum(d["verdict"] == "blunder" and d["player"] == 1 for d in marked.values())
    assert f"{blunders} blunder" in summary and "frank" in summary
    # a click on a mistake's dot goes to its step, which names the mistake and the preferred action
    first = min(marked)
    erin.click(f"#analysis-graph circle[data-ply='{first}']")
    assert low(erin).evaluate("() => window.LoW.replay.R.ply") == first
    d = marked[first]
    text = erin.inner_text("#analysis-best")
    said = low(erin).evaluate("a => [window.LoW.actionText(a[0]), window.LoW.actionText(a[1])]", [d["best"], d["played"]])
    assert f"Bot preferred: {said[0]}" in text and said[1] in text and d["verdict"] in text
    assert erin.get_attribute("#analysis-best", "data-best") == d["best"]
    lit = set(erin.eval_on_selector_all("#mat .sq.hinted", "els => els.map(e => e.dataset.square)"))
    assert lit == set(d["squares"])
    # the opening: an opening sentence, not the game's end
    erin.click(".replay-item[data-ply='0']")
    opening = erin.inner_text("#analysis-best")
    assert "Step through the game" in opening and "over" not in opening
    assert erin.locator("#mat .sq.hinted").count() == 0
    every_step_names_its_own_action(erin, result)
    # a later visit shows the stored analysis at once, with no button
    visit(erin, f"{server}/games/{game}/replay")
    erin.wait_for_selector("#analysis-graph svg")
    assert not erin.is_visible("#btn-analyse")
    erin.context.close()
    ANALYSED.append((game, first))


ANALYSED: list[tuple[int, int]] = []  # the game the test above had analysed and its first flagged step


def every_step_names_its_own_action(page: Any, result: dict[str, Any]) -> None:
    """A click on each entry of the list that has a decision (the flagged ones among them) shows
    the decision of that entry's own action: the action the entry holds, played by its player,
    with the verdict the entry is marked with and the preferred action's squares lit."""
    entries = low(page).evaluate("() => window.LoW.replay.R.plies.map(p => p.entry ? [p.entry.action, p.entry.player] : null)")
    flagged = 0
    for d in result["decisions"]:
        step = d["n"]
        page.click(f".replay-item[data-ply='{step}'] .ri-n")
        assert low(page).evaluate("() => window.LoW.replay.R.ply") == step
        action, player = entries[step]
        assert action == d["played"], f"step {step}: the list's entry holds {action!r}, its decision {d['played']!r}"
        assert player == d["player"]
        text = page.inner_text("#analysis-best")
        played, best = low(page).evaluate("a => a.map(x => window.LoW.actionText(x))", [d["played"], d["best"] or d["played"]])
        assert played in text, f"step {step} ({action}) shows {text!r}"
        item = page.locator(f".replay-item[data-ply='{step}']")
        mark = item.locator(".ri-mark")
        if d["forced"]:
            assert "had one legal action" in text, f"step {step}: {text!r}"
        elif d["verdict"]:
            flagged += 1
            assert mark.count() == 1 and f"Bot preferred: {best}" in text and d["verdict"] in text, f"step {step}: {text!r}"
            assert page.get_attribute("#analysis-best", "class") == f"analysis-best {d['verdict']}"
        else:
            assert mark.count() == 0 and "mistake" not in text and "blunder" not in text, f"step {step}: {text!r}"
        lit = set(page.eval_on_selector_all("#mat .sq.hinted", "els => els.map(e => e.dataset.square)"))
        assert lit == (set() if d["forced"] else set(d["squares"])), f"step {step}"
    assert flagged == len(page.locator(".replay-item .ri-mark").all()) > 0


def boxes(page: Any, selector: str) -> list[dict[str, float]]:
    return list(page.eval_on_selector_all(selector, "els => els.map(e => { const r = e.getBoundingClientRect(); return {l: r.left, t: r.top, r: r.right, b: r.bottom}; })"))


def overlaps(a: dict[str, float], b: dict[str, float]) -> bool:
    return a["l"] < b["r"] - 0.5 and b["l"] < a["r"] - 0.5 and a["t"] < b["b"] - 0.5 and b["t"] < a["b"] - 0.5


@pytest.mark.parametrize(("lang", "width", "height"), [("en", 1366, 900), ("de", 390, 844), ("pl", 390, 844), ("en", 390, 844)])
def test_the_graph_has_axes_and_a_legend_in_the_pages_language(browser: Any, server: str, lang: str, width: int, height: int) -> None:
    if not ANALYSED:
        pytest.skip("needs the analysis of test_analysis_on_the_replay_page")
    game, flagged = ANALYSED[0]
    locale = {"en": "en-GB", "de": "de-DE", "pl": "pl-PL"}[lang]
    context = browser.new_context(locale=locale, viewport={"width": width, "height": height})
    page = context.new_page()
    page.set_default_timeout(30_000)
    visit(page, f"{server}/games/{game}/replay")
    page.wait_for_selector("#analysis-graph svg")
    words = gettext.translation("js", str(Path(__file__).parents[2] / "lordsofwar" / "locale"), languages=[lang], fallback=lang == "en")
    said = words.gettext
    titles = gettext.translation("messages", str(Path(__file__).parents[2] / "lordsofwar" / "locale"), languages=[lang], fallback=lang == "en")
    level = titles.gettext(next(b.title for b in BOT_LEVELS if b.name == TOP))  # the analysing level, as the page names it
    ytitle = said("{name}'s win probability").replace("{name}", "frank")
    if lang != "en":
        assert ytitle != "frank's win probability", f"no {lang} words for the y axis"
    assert page.inner_text(".wg-ytitle") == ytitle
    assert page.inner_text(".wg-xtitle") == said("step (actions played)")
    percent = page.evaluate("l => [0, .5, 1].map(v => v.toLocaleString(l, {style: 'percent'}))", lang)
    assert page.eval_on_selector_all(".wg-ytick", "els => els.map(e => e.textContent)") == percent
    xticks = page.eval_on_selector_all(".wg-xtick", "els => els.map(e => e.textContent)")
    assert 2 <= len(xticks) <= 6 and xticks[0] == "0"
    legend = page.eval_on_selector_all(".wg-legend li", "els => els.map(e => e.textContent)")
    assert legend == [
        said("{name}'s win probability, as estimated by the {level} bot").replace("{name}", "frank").replace("{level}", level),
        said("mistake (−{n} points or more)").replace("{n}", "10"),
        said("blunder (−{n} points or more)").replace("{n}", "25"),
        said("the step shown"),
    ]
    # each shown, none over the plot (the line's area) nor over another, all within the page's width
    labels = [".wg-ytitle", ".wg-xtitle", ".wg-ytick", ".wg-xtick", ".wg-legend li"]
    plot = boxes(page, "#analysis-graph .wg-bg")[0]
    shown: list[dict[str, float]] = []
    for sel in labels:
        for b in boxes(page, sel):
            assert b["r"] - b["l"] > 4 and b["b"] - b["t"] > 6, f"{sel} is not shown: {b}"
            assert not overlaps(b, plot), f"{sel} {b} lies over the graph {plot}"
            assert b["l"] >= 0 and b["r"] <= width, f"{sel} {b} is outside the page"
            shown.append(b)
    for i, a in enumerate(shown):
        assert not any(overlaps(a, b) for b in shown[i + 1 :]), f"{a} overlaps another label"
    assert all(page.is_visible(sel) for sel in labels)
    # readable: the tick labels at least 10 px high on the screen
    assert min(b["b"] - b["t"] for b in boxes(page, ".wg-tick")) >= 10
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width
    # high contrast: black words on white
    page.click("#btn-contrast")
    assert page.eval_on_selector(".wg-ytick", "e => getComputedStyle(e).fill") == "rgb(0, 0, 0)"
    assert page.eval_on_selector(".wg-legend", "e => getComputedStyle(e).color") == "rgb(0, 0, 0)"
    if lang == "en":
        page.click("#btn-contrast")
        page.click(f".replay-item[data-ply='{flagged}'] .ri-n")
        page.mouse.move(1, height - 1)
        if width > 1000:
            shot(page, "replay-analysis.png")
        else:
            shot(page, "replay-analysis-phone.png", full_page=True)
    context.close()

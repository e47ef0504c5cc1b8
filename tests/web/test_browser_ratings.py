"""Ratings in a real browser: a rated challenge from the lobby (the box is checked by default and
unavailable against a bot), the rating change on the result banner, the profile's ratings and
chart, and the leaderboard.

Set LOW_SCREENSHOT_DIR (e.g. docs/screenshots) to keep screenshots of the profile and the
leaderboard; then a season of rated games among eight players is played first, through the
API, so that the leaderboard has settled ratings to show.
"""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

import httpx

from tests.web.conftest import play_opening_in_pages
from tests.web.test_browser import Api, server, shot, sign_up, visit, wait_live  # noqa: F401 - fixtures

SHOTS = Path(os.environ["LOW_SCREENSHOT_DIR"]) if os.environ.get("LOW_SCREENSHOT_DIR") else None


def rated_result(a: Api, b: Api, outcome: str, mode: str = "live") -> None:
    """A rated game of a against b ended at once: ``outcome`` "a", "b" or "draw"."""
    options = {"creator_side": "1", "rated": True, "mode": mode}
    r = a.post("/api/invitations", {"opponent": b.name, "options": options})
    assert r.status_code == 201, r.text
    game = b.post(f"/api/invitations/{r.json()['invitation']}/accept").json()["game"]
    for _ in range(4):  # both players' first turns: an ending before them would abort the game
        for p in (a, b):
            s = p.http.get(f"/api/games/{game}").json()
            if s["legal"]:
                assert p.post(f"/api/games/{game}/actions", {"action": s["legal"][0], "version": s["game"]["version"]}).is_success
    if outcome == "draw":
        assert a.post(f"/api/games/{game}/draw", {"op": "offer"}).status_code == 200
        assert b.post(f"/api/games/{game}/draw", {"op": "accept"}).status_code == 200
    else:
        loser = b if outcome == "a" else a
        assert loser.post(f"/api/games/{game}/resign").status_code == 200


def season(server: str) -> None:  # noqa: F811 - the fixture's value
    """Rated games among eight players of different strength, enough to settle their ratings."""
    rng = random.Random(5)
    names = ["mira", "tomek", "jonas", "elin", "kasia", "ruben", "ada", "piotr"]
    players = [Api(server, n) for n in names]
    strength = {p.name: 8 - i for i, p in enumerate(players)}
    for _ in range(30):
        order = players[:]
        rng.shuffle(order)
        for a, b in zip(order[::2], order[1::2], strict=True):
            p = strength[a.name] / (strength[a.name] + strength[b.name])
            roll = rng.random()
            rated_result(a, b, "draw" if abs(roll - p) < 0.05 else "a" if roll < p else "b", "turn" if rng.random() < 0.2 else "live")


def test_a_rated_game_from_the_lobby_to_the_profile_and_the_leaderboard(browser: Any, server: str) -> None:  # noqa: F811
    if SHOTS is not None:
        season(server)
    alice = sign_up(browser, server, "alice")
    bob = sign_up(browser, server, "bob")

    # The box is checked by default; against a bot it is unchecked and unavailable.
    assert alice.is_checked("#rated") and alice.is_enabled("#rated")
    alice.check("input[name=against][value^='bot:'] >> nth=0")
    assert not alice.is_checked("#rated") and not alice.is_enabled("#rated")
    alice.check("input[name=against][value=player]")
    assert alice.is_checked("#rated") and alice.is_enabled("#rated")
    alice.fill("#opponent-name", "bob")
    alice.select_option("select[name=creator_side]", "1")
    alice.click("#create-game")
    assert "rated" in alice.inner_text("#invitations")

    bob.wait_for_selector("#invitations li:has-text('alice challenges you')", timeout=20_000)
    bob.click("#invitations button:has-text('Accept')")
    bob.wait_for_url("**/games/*")
    wait_live(bob)
    play_opening_in_pages(int(bob.url.rstrip("/").split("/")[-1]), alice, bob)
    bob.click("#btn-resign")
    bob.click("#btn-resign-confirm")
    bob.wait_for_selector("#result:not([hidden])")
    banner = bob.inner_text("#result")
    assert "You lost" in banner and "bob 1500 →" in banner and "alice 1500 →" in banner

    visit(alice, server + "/players/alice")
    card = alice.locator('.rating-card[data-pool="live"]')
    rating = httpx.get(server + "/api/players/alice/ratings").json()["ratings"]["live"]
    assert f"{rating['rating']}?" in card.inner_text() and "1 rated game" in card.inner_text()
    assert card.locator("svg.rating-chart circle.dot.win").count() == 1
    assert "No rated game yet" in alice.locator('.rating-card[data-pool="turn"]').inner_text()
    assert "Won · drawn · lost" in alice.inner_text("#results")

    alice.click("nav a:has-text('Leaderboard')")
    alice.wait_for_url("**/leaderboard")
    text = alice.inner_text("#leaderboard")
    board = httpx.get(server + "/api/leaderboard?pool=live").json()
    assert "alice" not in [p["name"] for p in board["players"]]  # provisional after one game
    if board["players"]:
        assert board["players"][0]["name"] in text
        shot(alice, "leaderboard.png", full_page=True)
        visit(alice, server + f"/players/{board['players'][0]['name']}")
        shot(alice, "profile.png", full_page=True)
    else:
        assert "No player is ranked" in text

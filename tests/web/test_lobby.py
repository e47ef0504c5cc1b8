"""The lobby as a new player meets it: a refused challenge form shows its message in the lobby,
signed in, with the choices kept; a challenger hears that a challenge was accepted."""

from __future__ import annotations

import json
import re

import pytest

from tests.web.conftest import Player

FORM = {
    "against": "player",
    "rules": "basic",
    "hands": "visible",
    "mat": "unbordered",
    "length": "15/3",
    "creator_army": "elves",
    "opponent_army": "undead",
    "creator_side": "2",
    "mode": "turn",
    "minutes": "10",
    "increment": "10",
    "days": "5",
}


@pytest.mark.parametrize(
    ("opponent", "message"),
    [("nobody-here", "There is no player called &#39;nobody-here&#39;"), ("alice", "You cannot challenge yourself")],
)
def test_a_refused_challenge_form_shows_the_message_in_the_lobby_and_keeps_the_form(
    alice: Player, opponent: str, message: str
) -> None:
    c = alice.use()
    r = c.post(
        "/invitations", data={**FORM, "opponent": opponent, "csrf": alice.csrf, "custom_armies": ["orcs", "elves"]}
    )
    assert 400 <= r.status_code < 500  # the refusal's own status (as the API gives it)
    page = r.text
    assert 'id="lobby-error"' in page and message in page
    assert "Sign out" in page and 'href="/players/alice"' in page  # signed in, not a bare error page
    assert 'id="new-game-form"' in page  # the lobby itself, with its form
    form = re.search(r'<script type="application/json" id="posted-form">(.*?)</script>', page, re.S)
    assert form is not None, "the lobby carries the posted form"
    posted = json.loads(form[1])
    assert posted["opponent"] == opponent and posted["against"] == "player"
    assert posted["rules"] == "basic" and posted["days"] == "5" and posted["mode"] == "turn"
    assert posted["custom_armies"] == ["orcs", "elves"]
    assert alice.get("/api/lobby").json()["outgoing"] == []


def test_a_challenger_hears_that_the_challenge_was_accepted(alice: Player, bob: Player) -> None:
    r = alice.post("/api/invitations", {"opponent": "bob"})
    inv = r.json()["invitation"]
    assert alice.get("/api/lobby").json()["accepted"] == []
    game = bob.post(f"/api/invitations/{inv}/accept").json()["game"]
    assert alice.get("/api/lobby").json()["accepted"] == [{"invitation": inv, "game": game, "by": "bob"}]
    assert bob.get("/api/lobby").json()["accepted"] == []  # the one who accepted knows already
    page = alice.get("/").text
    assert 'id="accepted-data"' in page and f'"game": {game}' in page

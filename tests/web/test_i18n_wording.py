"""German and Polish wording found in review: an army's name is never glued into a German
genitive ("der Untote"), a pool's name never into a compound ("Rundenbasiert-Wertung"), sentences
have their objects, German keyboards' key names; Polish sentences read naturally; and a bot's
refusal names the fields by the JSON keys it sent, in every language (SQLite and PostgreSQL)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from babel.messages.pofile import read_po
from fastapi.testclient import TestClient

from lordsofwar import i18n
from lordsofwar.rules.cards import CORE_ARMIES
from tests.web.conftest import Player, new_game
from tests.web.test_bot_api import bearer, make_token


def gettext_in(lang: str, message: str, domain: str = "messages") -> str:
    return str(i18n.translations(lang, domain).gettext(message))


def translations(lang: str) -> list[str]:
    """Every translated string of ``lang``, both catalogues, every plural form."""
    out: list[str] = []
    for domain in i18n.DOMAINS:
        with open(i18n.LOCALE_DIR / lang / "LC_MESSAGES" / f"{domain}.po", "rb") as f:
            for m in read_po(f):
                if m.id:
                    assert m.string is not None, m.id
                    out.extend([m.string] if isinstance(m.string, str) else list(m.string))
    return out


# --- German -------------------------------------------------------------------------------------


def test_german_never_puts_an_army_name_after_der_nor_a_pool_name_into_a_compound() -> None:
    glued = [t for t in translations("de") if re.search(r"\bder (%\(army\)s|\{army\})|(%\(pool\)s|\{pool\})-", t)]
    assert glued == []
    for army in CORE_ARMIES:
        with i18n.use("de"):
            name = i18n.army_name(army)
        for msgid in ("the standard deck of the %(army)s", "a personalised %(army)s deck"):
            text = gettext_in("de", msgid) % {"army": name}
            assert f"der {name}" not in text and f"({name})" in text, text
    assert "der Untote" not in gettext_in("de", "the standard deck of the %(army)s") % {"army": "Untote"}


@pytest.mark.parametrize(
    ("domain", "msgid", "wanted"),
    [
        ("js", "Move or reinforce", "Bewege eine Einheit oder gehe zur Verstärkung über"),
        ("js", "Fire shots, move or reinforce", "Schieße, bewege eine Einheit oder gehe zur Verstärkung über"),
        ("js", "+ Add", "+ Hinzufügen"),
        ("messages", "stale request: you acted on version {version} but the game is at version {current}; your board is refreshed",
         "Deine Aktion bezog sich auf Version {version}"),
        ("messages", "The final scores of the opponents met", "Summe der Endpunktzahlen aller Gegner"),
        ("messages", "The scores of the opponents beaten, and half of those drawn",
         "Summe der Endpunktzahlen der besiegten Gegner plus die Hälfte derer, gegen die Remis gespielt wurde"),
        ("messages", "Basic", "Grundspiel"),
        ("messages", "basic", "Grundspiel"),
        ("messages", "Position in the game", "Stellung im Spiel"),
        ("messages", "undo", "rückgängig machen"),
        ("messages", "Friday Swiss", "Freitagsturnier (Schweizer System)"),
        ("messages", "Ctrl", "Strg"),
        ("messages", "Del", "Entf"),
        ("messages", "%(pool)s rating after each rated game, from %(first)s to %(last)s", "Wertung (%(pool)s) nach"),
    ],
)  # fmt: skip
def test_german_wording(domain: str, msgid: str, wanted: str) -> None:
    assert wanted in gettext_in("de", msgid, domain)


def test_german_pages_name_the_keys_of_a_german_keyboard_and_the_tie_break(client: TestClient) -> None:
    greta = Player(client, "greta").signup()
    assert greta.post("/api/language", {"language": "de"}).status_code == 200
    assert not [t for t in translations("de") if re.search(r"\b(Ctrl|Del)\b", t)]
    deck = greta.post("/api/decks", {"name": "Orks", "army": "orcs"}).json()["id"]
    page = greta.get(f"/decks/{deck}").text
    assert "<kbd>Strg</kbd>+<kbd>Z</kbd> rückgängig machen" in page and "<kbd>Entf</kbd>" in page
    assert "<kbd>Ctrl</kbd>" not in page and "<kbd>Del</kbd>" not in page
    english = Player(client, "eric").signup()
    deck = english.post("/api/decks", {"name": "Orcs", "army": "orcs"}).json()["id"]
    assert "<kbd>Ctrl</kbd>+<kbd>Z</kbd> undo" in english.get(f"/decks/{deck}").text
    # the Sonneborn-Berger column of a Swiss table is a catalogued word
    tid = greta.post("/api/tournaments", {"name": "Herbst", "rounds": 1}).json()["tournament"]
    assert greta.post(f"/api/tournaments/{tid}/join", {"army": "orcs"}).status_code == 200
    page = greta.get(f"/tournaments/{tid}").text
    assert ">SoBerg</th>" in page and ">S-B</th>" not in page


# --- Polish -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("domain", "msgid", "wanted"),
    [
        ("js", "{from} at {to}", "z {from} w {to}"),
        ("js", "Ranged weapon: {damage} damage on the marked squares (forward is up)",
         "Atak artyleryjski o wartości {damage} na zaznaczone pola"),
        ("js", "ranged: {damage} damage", "atak artyleryjski o wartości {damage}"),
        ("js", "ranged {damage}", "atak artyleryjski o wartości {damage}"),
        ("js", "{card} is still selected: drop it on a lit square, or click one",
         "upuść ją na podświetlone pole albo kliknij takie pole"),
        ("messages", "empty", "pusta"),  # the server writes it of a deck (decks.html)
    ],
)  # fmt: skip
def test_polish_wording(domain: str, msgid: str, wanted: str) -> None:
    assert wanted in gettext_in("pl", msgid, domain)


def test_polish_never_writes_damage_before_its_number() -> None:
    assert not [t for t in translations("pl") if re.search(r"obrażenia \{damage\}|jedno z nich", t)]


# --- bot API refusals ---------------------------------------------------------------------------


def test_a_bots_refusal_names_the_fields_by_their_json_keys_in_every_language(client: TestClient) -> None:
    alice, bob = Player(client, "alice").signup(), Player(client, "bob").signup()
    token = make_token(bob, ["bot:play", "challenge:write"])
    assert bearer(client, "POST", "/api/bot/account/upgrade", token).status_code == 200
    game = new_game(alice, bob)
    before = alice.state(game)["game"]["version"]
    for lang in ("en", "de", "pl"):
        client.cookies.clear()
        r = client.post(
            f"/api/bot/game/{game}/move",
            json={"action": 5, "version": "x"},
            headers={"Authorization": f"Bearer {token}", "Accept-Language": lang},
        )
        assert r.status_code == 422, r.text
        words = (gettext_in(lang, "text is expected"), gettext_in(lang, "a whole number is expected"))
        assert r.json()["detail"] == f"action: {words[0]}; version: {words[1]}", lang
        r = client.post(
            "/api/bot/challenge/alice",
            json={"options": {"army": "orcs"}},
            headers={"Authorization": f"Bearer {token}", "Accept-Language": lang},
        )
        assert r.status_code == 422 and r.json()["detail"].startswith("options.army: "), (lang, r.text)
    assert alice.state(game)["game"]["version"] == before
    # the site's own pages' API names them in the page's language, for the player who reads it
    assert alice.post("/api/language", {"language": "pl"}).status_code == 200
    r = alice.post(f"/api/games/{game}/actions", {"action": 5, "version": before})
    assert r.status_code == 422 and r.json()["detail"].startswith(gettext_in("pl", "action") + ": ")
    assert gettext_in("pl", "action") != "action"


# --- the new page states hold only catalogued words ------------------------------------------------


def test_the_leaderboards_newcomers_the_chart_and_the_winner_hold_only_catalogued_words(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    """In the test language (every catalogued string marked): the leaderboard with provisional
    players and the signed-in player's line, the profile's chart after one rated game, a finished
    tournament's winner, and the settings page after a refused address."""
    from sqlalchemy import create_engine, select

    from lordsofwar.web.app import create_app
    from lordsofwar.web.models import User
    from lordsofwar.web.ratings import service as ratings
    from tests.web.conftest import database, settings_for
    from tests.web.i18n_check import check, html_texts
    from tests.web.test_tournament_page import one_round

    monkeypatch.setenv("LOW_I18N_PSEUDO", "1")
    with (
        database("sqlite", tmp_path) as url,
        TestClient(create_app(settings_for(url)), base_url="http://testserver") as client,
    ):
        _tid, players, t = one_round(client, ["ada", "bors"], "resign")
        ada, bors = players["ada"], players["bors"]
        game = new_game(ada, bors, rated=True)
        engine = create_engine(client.app.state.settings.sync_url())  # type: ignore[attr-defined]
        users = User.__table__
        with engine.begin() as conn:
            ids = dict(conn.execute(select(users.c.name, users.c.id)).all())
            ratings.rate_game(conn, game, "live", (ids["ada"], ids["bors"]), 1)
        engine.dispose()
        cara = Player(client, "cara").signup()
        pages = {}
        for p in (ada, cara):
            assert p.post("/api/language", {"language": i18n.PSEUDO}).status_code == 200
            pages[f"leaderboard ({p.name})"] = p.get("/leaderboard").text
        pages["profile"] = ada.get("/players/ada").text
        pages["tournament"] = ada.get(f"/tournaments/{t['id']}").text
        problems: list[str] = []
        for label, html in pages.items():
            assert '<html lang="qps">' in html, label
            check(label, html_texts(html), {"ada", "bors", "cara", "One round"}, problems)
        assert 'id="provisional-players"' in pages["leaderboard (cara)"] and 'id="winner"' in pages["tournament"]
        assert 'class="until"' in pages["profile"]
        assert not problems, "\n".join(problems[:30])

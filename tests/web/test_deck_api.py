"""The deck API and custom decks in games, on SQLite and PostgreSQL: every refusal says what is
wrong and changes nothing; another player's deck is refused; a deck is copied into a game."""

from __future__ import annotations

import json
from typing import Any

import pytest

from lordsofwar.rules.cards import CORE
from lordsofwar.web.decks import service as deckweb
from tests.web.conftest import Player

ORCS = CORE.standard_deck("orcs")


def of(army: str, rank: str) -> list[str]:
    return [c.id for c in CORE.army(army) if c.rank == rank]


def mercenary() -> list[str]:
    """The orc deck with two veterans swapped for elves' veterans (rank swapping, 8.4)."""
    deck = list(ORCS)
    for out, new in zip(of("orcs", "veteran")[:2], of("elves", "veteran")[:2], strict=True):
        deck[deck.index(out)] = new
    return deck


def make(p: Player, name: str = "My deck", **body: Any) -> dict[str, Any]:
    r = p.post("/api/decks", {"name": name, **body})
    assert r.status_code == 201, r.text
    return dict(r.json())


def refused(r: Any, status: int, *words: str) -> None:
    assert r.status_code == status, r.text
    detail = r.json()["detail"]
    for w in words:
        assert w in detail, (w, detail)


def decks_of(p: Player) -> list[dict[str, Any]]:
    r = p.get("/api/decks")
    assert r.status_code == 200, r.text
    return list(r.json()["decks"])


# --- keeping decks ------------------------------------------------------------------------------


def test_a_deck_from_a_core_army_is_complete_and_standard(alice: Player) -> None:
    d = make(alice, "Orc horde", army="orcs")
    assert sorted(d["cards"]) == sorted(ORCS) and d["size"] == 36
    assert d["complete"] and d["missing"] == [] and d["standard_army"] == "orcs" and d["armies"] == ["orcs"]
    a = d["analysis"]
    assert a["complete"] and a["game_problem"] is None and a["over"] is None
    stats = a["stats"]
    assert sum(stats["classes"].values()) == 36
    assert stats["ranks"]["veteran"] == {"have": 6, "need": 6}
    support = sum(1 for c in ORCS if CORE.card(c).cls in ("spear", "ranged"))
    assert stats["support_units"] == support and stats["support_share"] == round(support / 36, 3)
    assert stats["average_defence"] == round(sum(CORE.card(c).defence for c in ORCS) / 36, 2)
    assert stats["attacks"]["F"] == sum(CORE.card(c).attacks.get("F", 0) for c in ORCS)
    assert stats["ranged_damage"] == sum(r.damage for c in ORCS if (r := CORE.card(c).ranged) is not None)
    assert [x["name"] for x in decks_of(alice)] == ["Orc horde"]


def test_an_empty_draft_and_a_deck_from_cards(alice: Player) -> None:
    empty = make(alice, "Empty")
    assert empty["cards"] == [] and not empty["complete"]
    assert "1 general card" in empty["missing"] and "8 recruit cards" in empty["missing"]
    assert "not complete" in empty["analysis"]["game_problem"]
    some = make(alice, "Some", cards=["elves:01", "orcs:01"][:1] + of("dwarves", "recruit")[:3])
    assert len(some["cards"]) == 4 and some["armies"] == ["dwarves", "elves"]


def test_swapping_cards_of_the_same_rank_makes_a_mercenary_deck(alice: Player) -> None:
    d = make(alice, "Horde", army="orcs")
    r = alice.send("PUT", f"/api/decks/{d['id']}", {"name": "Horde", "cards": mercenary(), "version": d["version"]})
    assert r.status_code == 200, r.text
    saved = r.json()
    assert saved["version"] == d["version"] + 1
    assert saved["complete"] and saved["standard_army"] is None and saved["armies"] == ["elves", "orcs"]
    assert saved["analysis"]["stats"]["armies"] == {"orcs": 34, "elves": 2}
    assert sorted(alice.get(f"/api/decks/{d['id']}").json()["cards"]) == sorted(mercenary())


def test_every_refused_change_says_why_and_changes_nothing(alice: Player) -> None:
    d = make(alice, "Horde", army="orcs")
    make(alice, "Other", army="elves")
    url = f"/api/decks/{d['id']}"
    before = alice.get(url).json()
    over = list(ORCS)
    over[over.index(of("orcs", "veteran")[0])] = of("orcs", "recruit")[0]  # 9 recruits, 5 veterans
    cases = [
        ({"name": "Horde", "cards": over, "version": 1}, 422, ["9 recruit cards", "1 over the 8 allowed"]),
        ({"name": "Horde", "cards": ORCS[:-1] + ["orcs:99"], "version": 1}, 422, ["card 36", "orcs:99"]),
        ({"name": "Horde", "cards": ["nobody:01"], "version": 1}, 422, ["card 1", "nobody:01"]),
        ({"name": "Horde", "cards": ORCS + ["orcs:01"], "version": 1}, 422, ["cards"]),
        ({"name": "  ", "cards": ORCS, "version": 1}, 422, ["needs a name"]),
        ({"name": "x" * 41, "cards": ORCS, "version": 1}, 422, ["too long", "41 characters", "at most 40"]),
        ({"name": "x" * 201, "cards": ORCS, "version": 1}, 422, ["name"]),
        ({"name": "OTHER", "cards": ORCS, "version": 1}, 409, ["already have a deck called 'OTHER'"]),
        ({"name": "Horde", "cards": ORCS, "version": 7}, 409, ["changed elsewhere", "version 7", "now 1"]),
        ({"name": "Horde", "cards": ORCS}, 422, ["version"]),
        ({"name": "Horde", "cards": ORCS, "version": 1, "owner": 2}, 422, ["owner"]),
        ({"name": "Horde", "cards": "orcs:01", "version": 1}, 422, ["cards"]),
        ({"name": "Horde", "cards": ["o" * 21], "version": 1}, 422, ["cards"]),
    ]
    for body, status, words in cases:
        refused(alice.send("PUT", url, body), status, *words)
    assert alice.get(url).json() == before
    refused(alice.send("PUT", url, {"name": "Horde", "cards": ORCS, "version": 1}, csrf="forged"), 403, "CSRF")
    refused(alice.send("PUT", "/api/decks/999999", {"name": "H", "cards": [], "version": 1}), 404, "no deck 999999")
    refused(alice.send("PUT", "/api/decks/0", {"name": "H", "cards": [], "version": 1}), 422)
    assert alice.get(url).json() == before


def test_creating_refusals(alice: Player, monkeypatch: pytest.MonkeyPatch) -> None:
    make(alice, "Horde", army="orcs")
    refused(alice.post("/api/decks", {"name": "horde", "army": "elves"}), 409, "already have a deck called 'horde'")
    refused(alice.post("/api/decks", {"name": "X", "army": "gnomes"}), 422, "unknown army 'gnomes'")
    refused(alice.post("/api/decks", {"name": "X", "army": "orcs", "cards": []}), 422, "not both")
    refused(alice.post("/api/decks", {"name": "X", "cards": of("orcs", "general") * 2}), 422, "2 general cards")
    refused(alice.post("/api/decks", {"army": "orcs"}), 422, "name")
    refused(alice.post("/api/decks", {"name": "X", "army": "orcs"}, csrf=""), 403, "CSRF")
    assert [d["name"] for d in decks_of(alice)] == ["Horde"]
    monkeypatch.setattr(deckweb, "DECKS_PER_PLAYER", 2)
    make(alice, "Second")
    refused(alice.post("/api/decks", {"name": "Third"}), 409, "2 decks", "delete one first")
    assert len(decks_of(alice)) == 2


def test_copy_rename_and_delete(alice: Player) -> None:
    d = make(alice, "Horde", army="orcs")
    c1 = alice.post(f"/api/decks/{d['id']}/copy").json()
    c2 = alice.post(f"/api/decks/{d['id']}/copy").json()
    named = alice.post(f"/api/decks/{d['id']}/copy", {"name": "Tuesday"}).json()
    assert (c1["name"], c2["name"], named["name"]) == ("Horde (copy)", "Horde (copy) (2)", "Tuesday")
    assert c1["cards"] == d["cards"] and c1["id"] != d["id"]
    refused(alice.post(f"/api/decks/{d['id']}/copy", {"name": "tuesday"}), 409, "already have")
    r = alice.send("PUT", f"/api/decks/{c1['id']}", {"name": "Renamed", "cards": c1["cards"], "version": 1})
    assert r.status_code == 200 and r.json()["name"] == "Renamed"
    assert alice.send("DELETE", f"/api/decks/{c2['id']}").json() == {"deleted": c2["id"]}
    refused(alice.get(f"/api/decks/{c2['id']}"), 404, f"no deck {c2['id']}")
    refused(alice.send("DELETE", f"/api/decks/{c2['id']}"), 404)
    refused(alice.send("DELETE", f"/api/decks/{d['id']}", csrf="nope"), 403, "CSRF")
    assert sorted(x["name"] for x in decks_of(alice)) == ["Horde", "Renamed", "Tuesday"]


def test_another_players_deck_is_refused(alice: Player, bob: Player) -> None:
    d = make(alice, "Secret", army="orcs")
    url = f"/api/decks/{d['id']}"
    refused(bob.get(url), 403, "belongs to another player")
    refused(bob.send("PUT", url, {"name": "Mine", "cards": [], "version": 1}), 403, "another player")
    refused(bob.post(f"{url}/copy"), 403, "another player")
    refused(bob.send("DELETE", url), 403, "another player")
    refused(bob.get(f"{url}/export?format=json"), 403, "another player")
    r = bob.post("/api/invitations", {"bot": "random", "deck": d["id"], "options": {"custom_decks": True}})
    refused(r, 403, "another player")
    assert decks_of(bob) == [] and bob.get("/api/lobby").json()["running"] == []
    page = bob.use().get(f"/decks/{d['id']}", headers={"accept": "text/html"})
    assert page.status_code == 403 and "another player" in page.text
    assert alice.get(url).json()["name"] == "Secret" and alice.get(url).json()["version"] == 1


def test_signed_out_visitors_have_no_decks(client: Any) -> None:
    client.cookies.clear()
    refused(client.get("/api/decks"), 401, "sign in")
    r = client.get("/decks", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/signin?next=/decks"


# --- files ------------------------------------------------------------------------------------


def test_export_and_import_round_trip(alice: Player) -> None:
    d = make(alice, "Mercs", cards=mercenary())
    text = alice.get(f"/api/decks/{d['id']}/export?format=text")
    assert text.status_code == 200 and 'filename="Mercs.txt"' in text.headers["content-disposition"]
    assert text.text.startswith("# name: Mercs\n") and "# veteran (6 of 6)" in text.text
    doc = alice.get(f"/api/decks/{d['id']}/export?format=json")
    assert doc.json() == {"format": "lordsofwar-deck", "version": 1, "name": "Mercs", "cards": d["cards"]}
    refused(alice.get(f"/api/decks/{d['id']}/export?format=xml"), 422, "format")
    back = alice.post("/api/decks/import", {"text": text.text})
    assert back.status_code == 201, back.text
    assert back.json()["name"] == "Mercs (2)" and back.json()["cards"] == d["cards"]
    again = alice.post("/api/decks/import", {"text": doc.text, "name": "From JSON"})
    assert again.json()["name"] == "From JSON" and again.json()["cards"] == d["cards"]
    plain = alice.post("/api/decks/import", {"text": "# my picks\norcs:01   # the general\n\nelves:30\n"})
    assert plain.status_code == 201 and plain.json()["name"] == "Imported deck" and len(plain.json()["cards"]) == 2
    listed = alice.post("/api/decks/import", {"text": json.dumps(ORCS), "name": "A list"})
    assert listed.json()["standard_army"] == "orcs"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("orcs:01\n# fine\norcs:01 orcs:02\n", ["line 3", "one card id a line"]),
        ("orcs:01\n\norcs:99\n", ["line 3", "unknown card 'orcs:99'"]),
        ("orcs:01\ngoblins\n", ["line 2", "goblins"]),
        ('{"name": "x",\n "cards": ["orcs:01",\n  "orcs:02",\n  17]}', ["line 4 (card 3)", "expected a card id", "17"]),
        ('{"name": "x",\n "cards": ["orcs:01",\n  "elves:77"]}', ["line 3 (card 2)", "elves:77"]),
        ('{"name": "x",\n "cards": ["orcs:01",\n', ["line 3", "not valid JSON"]),
        ('{"name": "x", "deck": []}', ["unknown field 'deck'"]),
        ('{"format": "other-deck", "cards": []}', ["format must be 'lordsofwar-deck'"]),
        ('{"name": "x"}', ["'cards'", "missing"]),
        ('{"name": 5, "cards": []}', ["name must be a string"]),
        ('{"cards": "orcs:01"}', ["expected a list of card ids"]),
        (
            "\n".join(of("orcs", "recruit") + of("elves", "recruit")[:1]),
            ["card 9", "one recruit card too many", "holds 8"],
        ),
    ],
)
def test_a_malformed_file_is_refused_naming_the_line(alice: Player, text: str, words: list[str]) -> None:
    refused(alice.post("/api/decks/import", {"text": text}), 422, "not imported", *words)
    assert decks_of(alice) == []


def test_over_long_import_is_refused(alice: Player) -> None:
    refused(alice.post("/api/decks/import", {"text": "orcs:01\n" * 5000}), 422, "text")
    assert decks_of(alice) == []


def test_analyse_answers_for_any_list(client: Any, alice: Player) -> None:
    r = alice.post("/api/decks/analyse", {"cards": mercenary(), "allowed_armies": ["orcs"]})
    assert r.status_code == 200
    a = r.json()
    assert a["complete"] and "army 'elves'" in a["game_problem"]
    assert (
        alice.post("/api/decks/analyse", {"cards": mercenary(), "allowed_armies": ["orcs", "elves"]}).json()[
            "game_problem"
        ]
        is None
    )
    refused(alice.post("/api/decks/analyse", {"cards": ["orcs:00"]}), 422, "card 1")
    refused(alice.post("/api/decks/analyse", {"cards": [], "allowed_armies": ["gnomes"]}), 422, "unknown army")
    over = alice.post("/api/decks/analyse", {"cards": of("orcs", "general") * 2}).json()
    assert "2 general cards" in over["over"] and not over["complete"]


# --- decks in games -------------------------------------------------------------------------------


def record(p: Player, game: int) -> dict[str, Any]:
    r = p.get(f"/api/games/{game}/record")
    assert r.status_code == 200, r.text
    return dict(r.json())


def test_both_players_play_their_decks_copied_when_chosen(alice: Player, bob: Player) -> None:
    mine = make(alice, "Mercs", cards=mercenary())
    theirs = make(bob, "Dwarf wall", army="dwarves")
    options = {"custom_decks": True, "custom_armies": ["orcs", "elves", "dwarves"], "creator_side": "1"}
    r = alice.post("/api/invitations", {"opponent": "bob", "deck": mine["id"], "options": options})
    assert r.status_code == 201, r.text
    inv = r.json()["invitation"]
    incoming = bob.get("/api/lobby").json()["incoming"][0]
    assert incoming["creator_deck"] == "mercenary" and "cards" not in json.dumps(incoming).replace('"custom_', "")
    assert incoming["deck_choices"] == [{"id": theirs["id"], "name": "Dwarf wall", "problem": None}]
    # edits after choosing do not reach the game
    alice.send("PUT", f"/api/decks/{mine['id']}", {"name": "Mercs", "cards": ORCS, "version": 1})
    r = bob.post(f"/api/invitations/{inv}/accept", {"deck": theirs["id"]})
    assert r.status_code == 200, r.text
    game = r.json()["game"]
    bob.send("PUT", f"/api/decks/{theirs['id']}", {"name": "Dwarf wall", "cards": [], "version": 1})
    state = alice.state(game)
    assert state["view"]["players"]["1"]["army"] == "mercenary"
    assert state["view"]["players"]["2"]["army"] == "dwarves"
    assert all(c in mercenary() for c in state["view"]["players"]["1"]["hand"])
    assert bob.post(f"/api/games/{game}/resign").status_code == 200
    rec = record(alice, game)
    assert sorted(rec["players"]["1"]["deck"]) == sorted(mercenary())
    assert sorted(rec["players"]["2"]["deck"]) == sorted(CORE.standard_deck("dwarves"))


def test_decks_that_do_not_fit_are_refused_with_the_reason(alice: Player, bob: Player) -> None:
    mercs = make(alice, "Mercs", cards=mercenary())
    draft = make(alice, "Draft", cards=ORCS[:20])
    only_orcs = {"custom_decks": True, "custom_armies": ["orcs"]}
    cases = [
        ({"deck": mercs["id"], "options": only_orcs}, 409, ["'Mercs' does not fit", "army 'elves'", "allowed: orcs"]),
        ({"deck": draft["id"], "options": only_orcs}, 409, ["'Draft' does not fit", "not complete", "needs"]),
        ({"deck": mercs["id"], "options": {"custom_decks": False}}, 409, ["does not allow custom decks"]),
        ({"deck": 424242, "options": only_orcs}, 404, ["no deck 424242"]),
        ({"deck": "1", "options": only_orcs}, 422, ["deck"]),
    ]
    for body, status, words in cases:
        refused(alice.post("/api/invitations", {"opponent": "bob", **body}), status, *words)
        refused(alice.post("/api/invitations", {"bot": "greedy", **body}), status, *words)
    lobby = alice.get("/api/lobby").json()
    assert lobby["outgoing"] == [] and lobby["running"] == []
    # the acceptor's deck: refused, the invitation stays open, the standard deck still works
    r = bob.post("/api/invitations", {"opponent": "alice", "options": {**only_orcs, "opponent_army": "templars"}})
    inv = r.json()["invitation"]
    choices = {c["name"]: c["problem"] for c in alice.get("/api/lobby").json()["incoming"][0]["deck_choices"]}
    assert "army 'elves'" in choices["Mercs"] and "not complete" in choices["Draft"]
    refused(alice.post(f"/api/invitations/{inv}/accept", {"deck": mercs["id"]}), 409, "does not fit", "elves")
    refused(alice.post(f"/api/invitations/{inv}/decline", {"deck": mercs["id"]}), 400, "goes with accepting")
    assert alice.get("/api/lobby").json()["incoming"][0]["id"] == inv
    r = alice.post(f"/api/invitations/{inv}/accept")
    assert r.status_code == 200
    state = alice.state(r.json()["game"])
    assert state["view"]["players"][str(state["game"]["you"])]["army"] == "templars"


def test_a_bot_game_with_a_custom_deck_and_its_rematch(alice: Player) -> None:
    mercs = make(alice, "Mercs", cards=mercenary())
    options = {"custom_decks": True, "custom_armies": ["orcs", "elves"], "creator_side": "1", "opponent_army": "undead"}
    r = alice.post("/api/invitations", {"bot": "random", "deck": mercs["id"], "options": options})
    assert r.status_code == 201, r.text
    game = r.json()["game"]
    assert alice.state(game)["view"]["players"]["1"]["army"] == "mercenary"
    alice.post(f"/api/games/{game}/resign")
    r = alice.post(f"/api/games/{game}/rematch")
    assert r.status_code == 201, r.text
    again = r.json()["game"]
    alice.post(f"/api/games/{again}/resign")
    rec = record(alice, again)
    mine = "2" if rec["players"]["2"]["name"] == "alice" else "1"
    assert sorted(rec["players"][mine]["deck"]) == sorted(mercenary())
    other = rec["players"]["2" if mine == "1" else "1"]["deck"]
    assert sorted(other) == sorted(CORE.standard_deck("undead"))


def test_the_lobby_page_offers_decks_in_the_forms(alice: Player, bob: Player) -> None:
    make(alice, "Mercs", cards=mercenary())
    make(alice, "Draft", cards=ORCS[:3])
    bob.post("/api/invitations", {"options": {"custom_decks": True, "custom_armies": ["orcs"]}})
    page = alice.use().get("/", headers={"accept": "text/html"}).text
    assert 'id="creator-deck"' in page and ">Mercs</option>" in page
    assert "Mercs (does not fit)" in page and "Why some of your decks do not fit" in page
    assert "it is not complete" in page


def test_the_accept_form_takes_a_deck(alice: Player, bob: Player) -> None:
    mercs = make(alice, "Mercs", cards=mercenary())
    inv = bob.post("/api/invitations", {"options": {"custom_decks": True}}).json()["invitation"]
    c = alice.use()
    r = c.post(
        f"/invitations/{inv}/accept", data={"csrf": alice.csrf, "deck": str(mercs["id"])}, follow_redirects=False
    )
    assert r.status_code == 303, r.text
    game = int(r.headers["location"].rsplit("/", 1)[1])
    seat = alice.state(game)["game"]["you"]
    assert alice.state(game)["view"]["players"][str(seat)]["army"] == "mercenary"
    inv = bob.post("/api/invitations", {"options": {"custom_decks": True}}).json()["invitation"]
    r = alice.use().post(f"/invitations/{inv}/accept", data={"csrf": alice.csrf, "deck": "x1"}, follow_redirects=False)
    assert r.status_code == 422 and "deck number" in r.text


# --- names, files and races (found in review) ------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "status", "words"),
    [
        ("İ" * 21, 201, []),  # 42 characters case-folded: the key keeps its start and a digest
        ("a\x00b", 422, ["control character", "U+0000"]),
        ("a\u200bb", 422, ["invisible", "U+200B"]),
        ("\u00e9t\u00e9", 201, []),
        ("Орки", 201, []),
        ("😀" * 40, 201, []),
    ],
)
def test_names_in_any_language_and_no_invisible_ones(alice: Player, name: str, status: int, words: list[str]) -> None:
    r = alice.post("/api/decks", {"name": name, "army": "orcs"})
    refused(r, status, *words) if status != 201 else None
    if status == 201:
        assert r.status_code == 201, r.text
        d = r.json()
        export = alice.get(f"/api/decks/{d['id']}/export?format=text")
        assert export.status_code == 200
        cd = export.headers["content-disposition"]
        assert cd.isascii() and "filename*=UTF-8''" in cd
        assert export.text.startswith(f"# name: {d['name']}\n")
    else:
        assert decks_of(alice) == []


def test_look_alike_and_case_variants_are_the_same_name(alice: Player) -> None:
    make(alice, "\u00e9t\u00e9 ORCS", army="orcs")
    refused(alice.post("/api/decks", {"name": "e\u0301te\u0301 orcs", "army": "orcs"}), 409, "already have")
    assert len(decks_of(alice)) == 1


def test_import_refuses_names_it_cannot_keep_and_over_ranks_by_line(alice: Player) -> None:
    refused(
        alice.post("/api/decks/import", {"text": '{"name": "x\\ud800", "cards": []}'}),
        422,
        "line 1",
        "not valid Unicode",
    )
    refused(alice.post("/api/decks/import", {"text": "# name: a\x01b\norcs:01\n"}), 422, "line 1", "control character")
    extra = of("elves", "recruit")[0]
    text = (
        "# name: Too many\n# recruits\n"
        + "\n".join(f"{c}  # a recruit" for c in of("orcs", "recruit"))
        + f"\n\n{extra}\n"
    )
    refused(
        alice.post("/api/decks/import", {"text": text}), 422, "line 12 (card 9)", extra, "one recruit card too many"
    )
    assert decks_of(alice) == []


def test_two_tabs_renaming_to_one_name(alice: Player) -> None:
    a = make(alice, "A")
    b = make(alice, "B")
    import asyncio

    import httpx

    async def rename(deck: dict[str, Any]) -> int:
        transport = httpx.ASGITransport(app=alice.client.app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver", cookies=alice.cookies) as c:
            r = await c.put(
                f"/api/decks/{deck['id']}",
                json={"name": "Same", "cards": [], "version": 1},
                headers={"X-CSRF-Token": alice.csrf},
            )
            return r.status_code

    async def both() -> list[int]:
        return list(await asyncio.gather(rename(a), rename(b)))

    codes = sorted(asyncio.run(both()))
    assert codes == [200, 409]
    assert sorted(d["name"] for d in decks_of(alice)) in (["A", "Same"], ["B", "Same"])


def test_the_deck_limit_holds_under_parallel_creates(alice: Player, monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio

    import httpx

    monkeypatch.setattr(deckweb, "DECKS_PER_PLAYER", 5)
    make(alice, "First")

    async def create(n: int) -> int:
        transport = httpx.ASGITransport(app=alice.client.app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver", cookies=alice.cookies) as c:
            r = await c.post("/api/decks", json={"name": f"D{n}"}, headers={"X-CSRF-Token": alice.csrf})
            return r.status_code

    async def many() -> list[int]:
        return list(await asyncio.gather(*(create(n) for n in range(10))))

    codes = asyncio.run(many())
    assert codes.count(201) == 4 and codes.count(409) == 6
    assert len(decks_of(alice)) == 5


def test_custom_decks_need_an_army(alice: Player) -> None:
    r = alice.post("/api/invitations", {"options": {"custom_decks": True, "custom_armies": []}})
    refused(r, 422, "at least one army")
    c = alice.use()
    r = c.post("/invitations", data={"csrf": alice.csrf, "against": "open", "custom_decks": "on"})
    assert r.status_code == 422 and "at least one army" in r.text
    assert alice.get("/api/lobby").json()["outgoing"] == []


def test_a_rematch_keeps_the_options_though_standard_decks_were_played(alice: Player, bob: Player) -> None:
    options = {"custom_decks": True, "custom_armies": ["elves", "undead"], "creator_side": "1", "creator_army": "orcs"}
    r = alice.post("/api/invitations", {"opponent": "bob", "options": options})
    game = bob.post(f"/api/invitations/{r.json()['invitation']}/accept").json()["game"]
    bob.post(f"/api/games/{game}/resign")
    r = bob.post(f"/api/games/{game}/rematch")
    assert r.status_code == 201, r.text
    incoming = alice.get("/api/lobby").json()["incoming"][0]
    assert incoming["options"]["custom_decks"] and incoming["options"]["custom_armies"] == ["elves", "undead"]
    assert incoming["options"]["opponent_army"] == "orcs"


def test_unicode_digits_are_not_deck_numbers(alice: Player, bob: Player) -> None:
    inv = bob.post("/api/invitations", {"options": {"custom_decks": True}}).json()["invitation"]
    for value in ("²", "١"):
        r = alice.use().post(
            f"/invitations/{inv}/accept", data={"csrf": alice.csrf, "deck": value}, follow_redirects=False
        )
        assert r.status_code == 422 and "deck number" in r.text
    assert alice.get("/api/lobby").json()["open"][0]["id"] == inv

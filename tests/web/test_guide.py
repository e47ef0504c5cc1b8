"""The rules guide's page (/learn/rules): every section in English, German and Polish, an
unknown language read in English, the diagrams' data block; and the link from a refused action
to the section that explains it, over the API and the game's socket."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from markupsafe import escape

from lordsofwar.learn import guide
from lordsofwar.web.app import create_app
from tests.web.conftest import Player, database, new_game, settings_for, until


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """One server for the module, on SQLite: nothing here depends on the database."""
    with (
        database("sqlite", tmp_path_factory.mktemp("guide")) as url,
        TestClient(create_app(settings_for(url)), base_url="http://testserver") as c,
    ):
        yield c


def _page(client: TestClient, language: str) -> str:
    r = client.get(guide.PATH, headers={"Accept-Language": language, "Accept": "text/html"})
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/html")
    return r.text


@pytest.mark.parametrize("language", guide.LANGUAGES)
def test_every_section_in_every_language(client: TestClient, language: str) -> None:
    text = _page(client, language)
    words = guide.texts(language)
    assert f'<article class="guide" id="guide" lang="{language}">' in text
    for s in guide.sections():
        assert f'id="{s.id}"' in text
        assert str(escape(words["sections"][s.id]["title"])) in text
        assert f'href="#{s.id}"' in text, "the contents list links every section"
    for key, d in words["diagrams"].items():
        assert f'data-diagram="{key}"' in text
        assert f'aria-label="{escape(d["alt"].format_map(guide.facts()))}"' in text, "every diagram has a text alternative"
    assert "{" not in re.sub(r"<script.*?</script>", "", text, flags=re.S).replace("{{", "")
    assert 'style="' not in text and "<script>" not in text, "no inline style or script"


def test_an_unknown_language_reads_the_english(client: TestClient) -> None:
    text = _page(client, "fr-FR,fr;q=0.9")
    assert 'lang="en"' in text
    assert str(escape(guide.texts("en")["sections"]["deployment"]["title"])) in text


def test_the_data_block_holds_every_diagram_and_no_hidden_card(client: TestClient) -> None:
    text = _page(client, "en")
    block = re.search(r'<script type="application/json" id="guide-data">(.*?)</script>', text, re.S)
    assert block is not None
    data = json.loads(html.unescape(block.group(1)))
    assert set(data) == set(guide.diagrams())
    for item in data.values():
        you = item["you"]
        assert all(c is None for c in item["view"]["players"][str(3 - you)]["hand"])
        assert all(isinstance(item["view"]["players"][p]["deck"], int) for p in ("1", "2"))


@pytest.fixture(scope="module")
def players(client: TestClient) -> tuple[Player, Player]:
    return Player(client, "alice").signup(), Player(client, "bob").signup()


def test_a_refused_action_links_to_its_section(client: TestClient, players: tuple[Player, Player]) -> None:
    alice, bob = players
    game = new_game(alice, bob)
    st = alice.state(game)
    hand = [c for c in st["view"]["players"]["1"]["hand"] if c]
    # turn 1 deploys only on the square marked 1: anywhere else is refused, with the rule's section
    r = alice.act(game, f"deploy {hand[0]} d3")
    assert r.status_code == 409
    body = r.json()
    assert body["rule"] == "/learn/rules#opening"
    assert "c3" in body["detail"]
    page = _page(client, "en")
    assert 'id="opening"' in page
    # a refusal that is no rule of the game (not your turn) carries no link
    r = bob.act(game, "draw")
    assert r.status_code == 409 and "rule" not in r.json()
    # the same over the game's socket
    with alice.socket(game) as ws:
        until(ws, "state")
        ws.send_json({"type": "action", "action": f"deploy {hand[0]} a1", "version": st["game"]["version"]})
        msg = until(ws, "error")
        assert msg["rule"] == "/learn/rules#opening"
        ws.send_json({"type": "nonsense"})
        assert "rule" not in until(ws, "error")
    assert alice.state(game)["game"]["version"] == st["game"]["version"], "nothing changed"

"""The Content-Security-Policy: every HTML answer carries the site's strict policy, and no page
holds what that policy would block (an inline script, an inline event handler, a style attribute
or element, a script or style from elsewhere). The browser's side of it (the pages still work
under the policy) is tests/web/test_browser_csp.py."""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from lordsofwar.learn import puzzles
from tests.web.conftest import Player, new_game, settings_for

POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self' ws://testserver wss://testserver; object-src 'none'; base-uri 'none'; "
    "frame-ancestors 'none'; form-action 'self'"
)
HTML = {"Accept": "text/html"}


def page_routes(app: FastAPI) -> set[str]:
    """The path of every page the application serves: its GET routes outside the API."""

    def walk(routes: list[Any]) -> Iterator[Any]:
        for r in routes:
            inner = getattr(r, "original_router", None)
            yield from walk(inner.routes) if inner is not None else [r]

    return {
        r.path for r in walk(app.routes)
        if "GET" in (getattr(r, "methods", None) or ()) and not r.path.startswith(("/api/", "/i18n/"))
    }


class Markup(HTMLParser):
    """What a page holds that the policy concerns."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.problems: list[str] = []
        self.in_script: dict[str, str] | None = None
        self.scripts: list[dict[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        for name in a:
            if name.startswith("on"):
                self.problems.append(f"<{tag} {name}=...>: an inline event handler")
            if name == "style":
                self.problems.append(f"<{tag} style={a[name]!r}>: a style attribute")
        if tag == "style":
            self.problems.append("<style>: a style element")
        if tag == "script":
            self.in_script = a
            self.scripts.append(a)
            src = a.get("src", "")
            if src and not src.startswith("/"):
                self.problems.append(f"<script src={src!r}>: a script from elsewhere")
        if tag == "link" and "stylesheet" in a.get("rel", "") and not a.get("href", "").startswith("/"):
            self.problems.append(f"<link href={a.get('href')!r}>: a style sheet from elsewhere")
        for name in ("href", "src", "action", "formaction"):
            if a.get(name, "").strip().lower().startswith("javascript:"):
                self.problems.append(f"<{tag} {name}=javascript:...>")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self.in_script = None

    def handle_data(self, data: str) -> None:
        s = self.in_script
        if s is not None and data.strip() and not s.get("src") and s.get("type") != "application/json":
            self.problems.append(f"an inline script: {data.strip()[:60]!r}")


def problems_of(html: str) -> list[str]:
    parser = Markup()
    parser.feed(html)
    return parser.problems


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A server with one of everything to show, and the address of each page (signed in and out)."""
    from lordsofwar.web.app import create_app

    data = tmp_path_factory.mktemp("csp")
    app = create_app(settings_for(f"sqlite:///{data / 'low.sqlite3'}"))
    with TestClient(app, base_url="http://testserver") as client:
        alice, bob = Player(client, "alice").signup(), Player(client, "bob").signup()
        playing = new_game(alice, bob)
        over = new_game(alice, bob, opponent_army="elves")
        assert bob.post(f"/api/games/{over}/resign").status_code == 200
        deck = alice.post("/api/decks", {"name": "Policy deck", "army": "undead"})
        assert deck.status_code == 201, deck.text
        cup = alice.post("/api/tournaments", {"name": "Policy cup", "kind": "swiss", "rounds": 2, "options": {"mode": "live"}})
        assert cup.status_code == 201, cup.text
        unsubscribe = app.state.mailer._tokens().unsubscribe_token(1, "alice@example.org")  # alice: the first account
        pages = {
            "/": ["/"],
            "/signin": ["/signin"],
            "/signup": ["/signup"],
            "/players/{name}": ["/players/alice", "/players/nobody-at-all"],
            "/games/{game_id}": [f"/games/{playing}", f"/games/{over}", "/games/999999"],
            "/games/{game_id}/replay": [f"/games/{over}/replay"],
            "/decks": ["/decks"],
            "/decks/{deck_id}": [f"/decks/{deck.json()['id']}", "/decks/999999"],
            "/leaderboard": ["/leaderboard", "/leaderboard?pool=turn"],
            "/tournaments": ["/tournaments"],
            "/tournaments/{tid:int}": [f"/tournaments/{cup.json()['tournament']}"],
            "/settings": ["/settings"],
            "/settings/confirm": ["/settings/confirm?token=altered"],
            "/unsubscribe": [f"/unsubscribe?token={unsubscribe}", "/unsubscribe?token=altered"],
            "/tokens": ["/tokens"],
            "/privacy": ["/privacy"],
            "/settings/close": ["/settings/close"],
            "/friends": ["/friends"],
            "/forgot": ["/forgot"],
            "/reset": ["/reset?token=altered"],
            "/moderation": ["/moderation"],  # refused: alice is no moderator
            "/admin/workers": ["/admin/workers"],
            "/learn": ["/learn"],
            "/learn/rules": ["/learn/rules"],
            "/learn/cards": ["/learn/cards", "/learn/cards?army=elves&rank=elite"],
            "/learn/lessons": ["/learn/lessons"],
            "/learn/lessons/{slug}": ["/learn/lessons/ranged", "/learn/lessons/x9"],
            "/learn/mistakes/{game_id}": [f"/learn/mistakes/{over}"],  # not analysed: the refusal page
            "/learn/puzzles": ["/learn/puzzles", "/learn/puzzles?theme=ranged"],
            "/learn/puzzles/daily": ["/learn/puzzles/daily"],
            "/learn/puzzles/streak": ["/learn/puzzles/streak"],
            "/learn/puzzles/{pid}": [f"/learn/puzzles/{puzzles.load()[0].id}", "/learn/puzzles/zzzzzz"],
            # the API's description pages (served by FastAPI, from a CDN: a policy of their own)
            "/redoc": [],
            "/docs/oauth2-redirect": [],
        }
        yield {"app": app, "client": client, "alice": alice, "pages": pages}


def test_every_page_is_covered(site: dict[str, Any]) -> None:
    """A new page must be added to the list above (and so to the checks below)."""
    assert page_routes(site["app"]) == set(site["pages"])


def test_every_page_carries_the_policy_and_holds_nothing_it_blocks(site: dict[str, Any]) -> None:
    client: TestClient = site["client"]
    alice: Player = site["alice"]
    urls = [u for us in site["pages"].values() for u in us] + ["/no-such-page"]
    seen = 0
    for signed_in in (False, True):
        for url in urls:
            if not signed_in:
                client.cookies.clear()
            r = alice.get(url, headers=HTML) if signed_in else client.get(url, headers=HTML)
            where = f"{url} ({'signed in' if signed_in else 'signed out'}, {r.status_code})"
            assert r.headers["content-type"].startswith("text/html"), where
            assert r.headers.get("content-security-policy") == POLICY, where
            assert problems_of(r.text) == [], f"{where}: {problems_of(r.text)}"
            seen += 1
    assert seen >= 40


def test_a_refused_form_and_a_flash_hold_nothing_the_policy_blocks(site: dict[str, Any]) -> None:
    """A page rendered after a POST (the settings form refused), and a page with a flash message
    (its script forgets the query that carried it)."""
    alice: Player = site["alice"]
    r = alice.use().post("/settings", data={"csrf": alice.csrf, "email": "not an address", "mail": "turn"}, headers=HTML)
    assert r.headers["content-type"].startswith("text/html")
    assert r.headers.get("content-security-policy") == POLICY
    assert problems_of(r.text) == []
    flashed = alice.get("/?flash=welcome", headers=HTML)
    assert 'class="flash info"' in flashed.text and '<script type="module" src="/static/js/flash.js">' in flashed.text
    assert problems_of(flashed.text) == []


def test_the_check_finds_what_the_policy_blocks() -> None:
    """The markup check itself."""
    assert problems_of('<script type="module" src="/static/js/lobby.js"></script>') == []
    assert problems_of('<script type="application/json" id="d">{"a": 1}</script>') == []
    assert len(problems_of("<script>alert(1)</script>")) == 1
    assert len(problems_of('<button onclick="go()">x</button>')) == 1
    assert len(problems_of('<span style="flex: 2">2</span>')) == 1
    assert len(problems_of("<style>p { color: red }</style>")) == 1
    assert len(problems_of('<script src="https://cdn.example/x.js"></script>')) == 1
    assert len(problems_of('<a href="javascript:void(0)">x</a>')) == 1


def test_the_templates_and_scripts_hold_no_inline_script_or_style() -> None:
    """The sources themselves, beyond the pages rendered above: no template and no script of the
    client writes a style attribute, an inline handler or an inline script into the markup."""
    web = Path(__file__).resolve().parents[2] / "lordsofwar/web"
    bad = re.compile(r"""\bstyle\s*=\s*["'{]|\son[a-z]+\s*=\s*["']|<script>|setAttribute\(\s*['"](style|on[a-z]+)['"]""")
    found = []
    for path in [*web.glob("templates/*.html"), *web.glob("static/**/*.js")]:
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if bad.search(line):
                found.append(f"{path.relative_to(web)}:{n}: {line.strip()[:100]}")
    assert found == []


def test_the_api_description_pages_have_a_policy_of_their_own(site: dict[str, Any]) -> None:
    """Swagger UI and ReDoc (FastAPI's, from their CDN): their inline script allowed by its hash
    alone, never by 'unsafe-inline'; nothing else is loosened."""
    client: TestClient = site["client"]
    for url in ("/api/docs", "/redoc", "/docs/oauth2-redirect"):
        r = client.get(url, headers=HTML)
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/html"), url
        policy = dict(d.strip().split(" ", 1) for d in r.headers["content-security-policy"].split(";"))
        scripts = policy["script-src"].split()
        assert "'unsafe-inline'" not in scripts and "'unsafe-eval'" not in scripts, url
        for inline in re.findall(r"<script>(.*?)</script>", r.text, re.DOTALL):
            digest = base64.b64encode(hashlib.sha256(inline.encode()).digest()).decode()
            assert f"'sha256-{digest}'" in scripts, url
        assert policy["object-src"] == "'none'" and policy["frame-ancestors"] == "'none'", url
        assert policy["base-uri"] == "'none'" and policy["form-action"] == "'self'", url


def test_json_answers_are_not_pages(site: dict[str, Any]) -> None:
    """The policy is for pages; the API's JSON answers keep their own headers (nosniff)."""
    r = site["client"].get("/api/session")
    assert r.headers["content-type"].startswith("application/json")
    assert r.headers["x-content-type-options"] == "nosniff"

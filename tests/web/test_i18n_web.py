"""Languages on the web (docs/i18n.md), on SQLite and PostgreSQL where the database matters.

- Every page of the site, signed out and signed in, with its error states, rendered in the test
  language (every catalogued string in ⟦ ⟧): no word is left that no catalogue holds. The pages
  are found from the application's routes, so a new page without a case here fails.
- The same pages in German and Polish: served in that language, no marker left.
- The language of a request: Accept-Language, the menu's cookie, the player's own setting (kept
  with the account, it wins over the browser, and follows the player to another browser).
- Refusals (the API's, the forms', the rules engine's) in the request's language; bad choices of
  language refused with nothing changed.
- Mails in the recipient's language.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from lordsofwar import i18n
from lordsofwar.learn import puzzles
from lordsofwar.web.app import create_app
from lordsofwar.web.models import User
from tests.web.conftest import Player, database, new_game, settings_for
from tests.web.i18n_check import check, html_texts

HTML = {"Accept": "text/html"}


def gettext_in(lang: str, message: str) -> str:
    with i18n.use(lang):
        return i18n.gettext(message)


def user_row(client: TestClient, name: str) -> User:
    async def get() -> User:
        async with client.app.state.services.sessions() as db:  # type: ignore[attr-defined]
            row = await db.scalar(select(User).where(User.name == name))
            assert row is not None
            return row

    return client.portal.call(get)  # type: ignore[union-attr]


# --- every page in the test language ------------------------------------------------------------


@pytest.fixture
def pseudo(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("LOW_I18N_PSEUDO", "1")
    yield


@pytest.fixture
def sqlite_client(tmp_path: Any) -> Iterator[TestClient]:
    with database("sqlite", tmp_path) as url, TestClient(create_app(settings_for(url)), base_url="http://testserver") as c:
        yield c


def _page_routes(client: TestClient) -> set[str]:
    """The paths of every page of the site (GET, not the API, the static files or the API docs)."""
    paths = set()
    for r in client.app.router.routes:  # type: ignore[attr-defined]
        for route in getattr(getattr(r, "original_router", None), "routes", None) or [r]:
            methods = getattr(route, "methods", None) or set()
            path = getattr(route, "path", "")
            if "GET" in methods and not path.startswith(("/api", "/static", "/docs", "/redoc", "/i18n/")):
                paths.add(path)
    return paths


def _matches(template: str, url: str) -> bool:
    pattern = re.sub(r"\{[^}]+\}", "[^/]+", template.split("?")[0])
    return re.fullmatch(pattern, url.split("?")[0]) is not None


def _world(client: TestClient) -> dict[str, Any]:
    """Two players, a deck, a tournament, a running game, a finished one, a token."""
    ada, bors = Player(client, "ada").signup(), Player(client, "bors").signup()
    deck = ada.post("/api/decks", {"name": "Ada deck", "army": "orcs"})
    assert deck.status_code == 201, deck.text
    t = ada.post("/api/tournaments", {"name": "Winter Cup", "rounds": 3})
    assert t.status_code == 201, t.text
    tid = t.json()["tournament"]
    assert bors.post(f"/api/tournaments/{tid}/join", {"army": "elves"}).status_code == 200
    running = new_game(ada, bors)
    finished = new_game(ada, bors)
    for _ in range(4):
        s = ada.state(finished)
        who = ada if s["legal"] else bors
        assert who.act(finished, who.state(finished)["legal"][0]).status_code == 200
    assert bors.post(f"/api/games/{finished}/resign").status_code == 200
    assert ada.post("/api/tokens", {"description": "my bot", "scopes": ["bot:play"]}).status_code == 201
    deck_id = deck.json().get("deck", deck.json().get("id"))
    return {"ada": ada, "bors": bors, "deck": deck_id, "tid": tid, "running": running, "finished": finished}


def _reset_token(client: TestClient, name: str) -> str:
    """A working reset link's token for ``name`` (as if mailed)."""
    from lordsofwar.web.accounts import service as accounts
    from lordsofwar.web.models import PasswordReset, utcnow

    token, user_id = accounts.new_token(), user_row(client, name).id

    async def insert() -> None:
        async with client.app.state.services.sessions() as db:  # type: ignore[attr-defined]
            now = utcnow()
            db.add(PasswordReset(user_id=user_id, token_hash=accounts.token_hash(token), created_at=now, expires_at=now + timedelta(hours=1)))
            await db.commit()

    client.portal.call(insert)  # type: ignore[union-attr]
    return token


def _make_moderator(client: TestClient, name: str) -> None:
    from lordsofwar.web.models import Moderator

    user_id = user_row(client, name).id

    async def insert() -> None:
        async with client.app.state.services.sessions() as db:  # type: ignore[attr-defined]
            db.add(Moderator(user_id=user_id))
            await db.commit()

    client.portal.call(insert)  # type: ignore[union-attr]


def _visit_every_page(client: TestClient, lang: str) -> tuple[list[tuple[str, int, str]], set[str]]:
    """Every page, signed out and signed in, with the language chosen by the menu's cookie."""
    w = _world(client)
    ada: Player = w["ada"]
    assert ada.post("/api/language", {"language": lang}).status_code == 200  # the player's own setting
    unsubscribe = client.app.state.mailer.tokens.unsubscribe_token(user_row(client, "ada").id, "ada@example.org")  # type: ignore[attr-defined]
    seen: list[tuple[str, int, str]] = []

    def visit(p: Player | None, url: str, method: str = "GET", form: dict[str, str] | None = None) -> None:
        c = p.use() if p else client
        if p is None:
            c.cookies.clear()
        c.cookies.set("low_lang", lang)
        if method == "GET":
            r = c.get(url, headers=HTML)
        else:
            csrf = p.csrf if p else re.search(r'name="csrf-token" content="([^"]+)"', c.get("/signin").text).group(1)  # type: ignore[union-attr]
            r = c.post(url, data={"csrf": csrf, **(form or {})}, headers=HTML, follow_redirects=True)
        if p:
            p._keep()
        assert r.status_code < 500, (url, r.status_code, r.text[:300])
        assert "text/html" in r.headers["content-type"], url
        seen.append((f"{method} {url} ({'signed in' if p else 'signed out'})", r.status_code, r.text))

    g, f, tid, deck = w["running"], w["finished"], w["tid"], w["deck"]
    for p in (None, ada):
        for url in ("/", "/signin", "/signup", "/tournaments", f"/tournaments/{tid}", "/leaderboard", "/players/ada",
                    f"/games/{g}", f"/games/{f}", f"/games/{f}/replay", "/games/999999", "/players/nobody",
                    f"/unsubscribe?token={unsubscribe}", "/unsubscribe?token=forged", "/settings/confirm?token=forged",
                    "/settings/confirm", "/decks", f"/decks/{deck}", "/settings", "/tokens", "/privacy", "/settings/close"):
            visit(p, url)
    for url in ("/learn/cards", "/learn/cards?army=elves&rank=elite", "/learn/cards?class=wizard"):  # the card gallery
        visit(None, url)
    visit(ada, f"/learn/mistakes/{f}")  # exercises from mistakes: this game has no analysis (a refusal page)
    visit(None, "/learn/rules")  # the rules guide
    ada.post("/api/players/bors/follow")  # friends, presence and blocking: a friend listed and
    visit(ada, "/friends")  # a profile's buttons; then a block listed
    visit(ada, "/players/bors")
    ada.post("/api/players/bors/block")
    visit(ada, "/friends")
    visit(None, "/friends")
    assert ada.post("/api/reports", {"reason": "spam", "player": "bors"}).status_code == 201
    visit(ada, "/moderation")  # refused: not a moderator yet
    _make_moderator(client, "ada")  # the moderators' page with a report
    visit(ada, "/moderation")
    visit(ada, "/admin/workers")  # the search workers' page (moderators): this server's own processes
    visit(None, "/moderation")
    for p in (None, ada):  # the learn hub and the lessons
        for url in ("/learn", "/learn/lessons", "/learn/lessons/ranged", "/learn/lessons/x9"):
            visit(p, url)
    puzzle = puzzles.load()[0].id
    for p in (None, ada):  # the puzzles
        for url in ("/learn/puzzles", "/learn/puzzles?theme=ranged", f"/learn/puzzles/{puzzle}", "/learn/puzzles/daily",
                    "/learn/puzzles/streak", "/learn/puzzles/zzzzzz"):
            visit(p, url)
    # the forms' answers, refusals included
    visit(None, "/signin", "POST", {"name": "ada", "password": "wrong password"})
    visit(None, "/signup", "POST", {"name": "x", "password": "short", "password2": "other"})
    visit(None, "/signup", "POST", {"name": "ada", "password": "password-123", "password2": "password-123"})
    visit(ada, "/invitations", "POST", {"opponent": "nobody-at-all", "mode": "live"})
    visit(ada, "/settings", "POST", {"email": "not an address", "notifications": "turn"})
    visit(ada, "/settings/close", "POST", {"confirm": "ada", "password": "wrong password"})
    # a forgotten password: the request and its answer, a link's form, a refused link; the
    # settings page's password form refusing a wrong password
    visit(None, "/forgot")
    visit(None, "/forgot", "POST", {"who": "ada"})
    visit(None, f"/reset?token={_reset_token(client, 'ada')}")
    visit(None, "/reset?token=forged")
    visit(ada, "/settings/password", "POST", {"current": "wrong password", "password": "password-456", "password2": "password-456"})
    visit(ada, "/tokens", "POST", {"description": "", "scopes": ""})
    visit(ada, "/tokens", "POST", {"description": "second bot", "scopes": "bot:play"})
    visit(ada, f"/tournaments/{tid}/join", "POST", {"army": "not-an-army"})
    visit(ada, "/tournaments", "POST", {"name": "", "rounds": "0"})
    visit(ada, "/?flash=welcome")
    covered = {t for t in _page_routes(client) if any(_matches(t, label.split()[1]) for label, _s, _h in seen)}
    return seen, covered


def test_every_page_holds_only_catalogued_words(pseudo: None, sqlite_client: TestClient) -> None:
    seen, covered = _visit_every_page(sqlite_client, i18n.PSEUDO)
    assert covered == _page_routes(sqlite_client), "a page without a case here"
    problems: list[str] = []
    data = {"ada", "bors", "Ada deck", "Winter Cup", "my bot", "second bot", "ada@example.org", "nobody-at-all", "nobody"}
    data |= {p.id for p in puzzles.load()} | {"zzzzzz"}  # puzzle ids, the unknown one visited
    for label, _status, html in seen:
        assert '<html lang="qps">' in html, label
        check(label, html_texts(html), data, problems)
    assert not problems, f"{len(problems)} texts not in a catalogue:\n" + "\n".join(problems[:60])


@pytest.mark.parametrize("lang", ["de", "pl"])
def test_every_page_in_german_and_polish(lang: str, sqlite_client: TestClient) -> None:
    seen, _covered = _visit_every_page(sqlite_client, lang)
    lobby = gettext_in(lang, "Tournaments")
    assert lobby != "Tournaments"
    for label, _status, html in seen:
        assert f'<html lang="{lang}">' in html, label
        assert "⟦" not in html, label
        assert f">{lobby}</a>" in html, label  # the top bar, in the language
    # a page's own words: the sign-in page's title, the lobby's heading
    signin = next(h for label, _s, h in seen if label.startswith("GET /signin (signed out)"))
    assert f"<title>{gettext_in(lang, 'Sign in')} · Lords of War</title>" in signin


# --- choosing the language ----------------------------------------------------------------------


def test_accept_language_then_cookie_then_the_players_setting(client: TestClient) -> None:
    de_lobby, pl_lobby = gettext_in("de", "Tournaments"), gettext_in("pl", "Tournaments")
    r = client.get("/signin", headers={"Accept-Language": "pl-PL,pl;q=0.9,en;q=0.5"})
    assert '<html lang="pl">' in r.text and f">{pl_lobby}</a>" in r.text
    r = client.get("/signin", headers={"Accept-Language": "fr-FR,fr;q=0.9"})
    assert '<html lang="en">' in r.text and ">Tournaments</a>" in r.text
    # the menu: a cookie for a guest, wins over the browser
    csrf = client.get("/api/session").json()["csrf"]
    r = client.post("/language", data={"csrf": csrf, "language": "de", "next": "/signin?flash=welcome&x=1"},
                    follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/signin?x=1&flash=language"
    assert client.get(r.headers["location"]).text.count('class="flash info"') == 1
    for evil in ("//evil.example/", "https://evil.example/", "/\\evil.example"):
        r = client.post("/language", data={"csrf": csrf, "language": "de", "next": evil}, follow_redirects=False)
        assert r.headers["location"].startswith("/") and not r.headers["location"].startswith("//"), evil
    assert "Accept-Language" in client.get("/signin").headers["vary"]
    assert client.cookies.get("low_lang") == "de"
    r = client.get("/signin", headers={"Accept-Language": "pl"})
    assert '<html lang="de">' in r.text and f">{de_lobby}</a>" in r.text
    # a new account takes the language it signed up in; its setting wins over cookie and browser
    alice = Player(client, "alice")
    alice.refresh()
    alice.cookies["low_lang"] = "de"
    assert alice.post("/api/signup", {"name": "alice", "password": "correct horse"}).status_code == 201
    assert user_row(client, "alice").locale == "de"
    alice.refresh()
    r = alice.post("/api/language", {"language": "pl"})
    assert r.status_code == 200 and r.json() == {"language": "pl"}
    assert user_row(client, "alice").locale == "pl"
    alice.cookies["low_lang"] = "de"  # an old cookie, a German browser: the player's setting wins
    r = alice.get("/", headers={"Accept-Language": "de"})
    assert '<html lang="pl">' in r.text
    # another browser: signing in brings the language along
    other = Player(client, "alice")
    other.refresh()
    assert other.post("/api/signin", {"name": "alice", "password": "correct horse"}).status_code == 200
    assert other.cookies.get("low_lang") == "pl"
    assert '<html lang="pl">' in other.get("/").text


@pytest.mark.parametrize(
    ("body", "status"),
    [({"language": "fr"}, 422), ({"language": "x" * 100}, 422), ({"language": 3}, 422), ({"lang": "de"}, 422), ({}, 422)],
)
def test_a_bad_choice_changes_nothing(client: TestClient, body: dict[str, Any], status: int) -> None:
    alice = Player(client, "alice").signup()
    before, cookie = user_row(client, "alice").locale, alice.cookies.get("low_lang")
    assert before == "en" and cookie == "en"  # signed up in English: kept with the account and in the browser
    r = alice.post("/api/language", body)
    assert r.status_code == status, r.text
    assert "detail" in r.json()
    assert user_row(client, "alice").locale == before and alice.cookies.get("low_lang") == cookie
    assert alice.post("/api/language", {"language": "de"}, csrf="forged").status_code == 403
    assert user_row(client, "alice").locale == before
    r = alice.use().post("/language", data={"csrf": alice.csrf, "language": "<b>fr</b>"}, headers=HTML)
    assert r.status_code == 422 and user_row(client, "alice").locale == before


def test_refusals_speak_the_requests_language(client: TestClient) -> None:
    for lang in ("de", "pl"):
        csrf = client.get("/api/session").json()["csrf"]
        r = client.post("/api/signin", json={"name": "nobody", "password": "whatever1"},
                        headers={"X-CSRF-Token": csrf, "Accept-Language": lang})
        assert r.status_code == 401
        assert r.json()["detail"] == gettext_in(lang, "wrong name or password") != "wrong name or password"
    # the rules engine's reason why an action is illegal
    alice, bob = Player(client, "alice").signup(), Player(client, "bob").signup()
    game = new_game(alice, bob)
    version = alice.state(game)["game"]["version"]
    english = alice.post(f"/api/games/{game}/actions", {"action": "shoot a1 a2", "version": version})
    assert english.status_code in (409, 422)
    for lang in ("de", "pl"):
        assert alice.post("/api/language", {"language": lang}).status_code == 200  # her own setting wins
        r = alice.use().post(f"/api/games/{game}/actions", json={"action": "shoot a1 a2", "version": version},
                             headers={"X-CSRF-Token": alice.csrf, "Accept-Language": "en"})
        assert r.status_code == english.status_code
        assert r.json()["detail"] != english.json()["detail"], lang
        for token in re.findall(r"\b[a-g][1-7]\b", english.json()["detail"]):
            assert token in r.json()["detail"]
    assert alice.state(game)["game"]["version"] == version


# --- mails ----------------------------------------------------------------------------------------


def test_mails_go_in_the_recipients_language(db_url: str) -> None:
    pytest.importorskip("aiosmtpd")
    from tests.web import test_mail as m

    inbox, port = m.Inbox(), m.free_port()
    controller = m.smtp_server(inbox, port)
    try:
        with m.mail_app(db_url, port) as client:
            alice, bob = Player(client, "alice").signup(), Player(client, "bob").signup()
            assert alice.post("/api/language", {"language": "de"}).status_code == 200
            assert bob.post("/api/language", {"language": "pl"}).status_code == 200
            for p, lang in ((alice, "de"), (bob, "pl")):
                r = p.post("/api/settings", {"email": f"{p.name}@example.org", "notifications": "turn"})
                assert r.status_code == 200, r.text
                (mail,) = inbox.wait(1 if lang == "de" else 2)[-1:]
                assert mail["Subject"] == gettext_in(lang, "Lords of War: confirm your email address")
                r = p.get(m.link_in(mail, "/settings/confirm"), headers=HTML)
                assert r.status_code == 200 and f'<html lang="{lang}">' in r.text
            game = new_game(alice, bob, mode="turn", days=2)
            m.run_mailer(client)
            (mail,) = inbox.to("alice@example.org")[1:]
            assert str(game) in mail["Subject"] and "bob" in mail["Subject"]
            with i18n.use("de"):
                assert mail["Subject"] != f"Lords of War: your turn against bob (game {game})"
            body = mail.get_content()
            assert "http://testserver/games/" in body
            m.end_turn(alice, game)
            m.run_mailer(client)
            (mail,) = inbox.to("bob@example.org")[1:]
            assert "alice" in mail["Subject"] and mail["Subject"] != f"Lords of War: your turn against alice (game {game})"
    finally:
        controller.stop()


def test_a_mail_holds_only_catalogued_words(pseudo: None, tmp_path: Any) -> None:
    pytest.importorskip("aiosmtpd")
    from tests.web import test_mail as m

    inbox, port = m.Inbox(), m.free_port()
    controller = m.smtp_server(inbox, port)
    try:
        with database("sqlite", tmp_path) as url, m.mail_app(url, port) as client:
            alice, bob = Player(client, "alice").signup(), Player(client, "bob").signup()
            for p in (alice, bob):
                assert p.post("/api/language", {"language": i18n.PSEUDO}).status_code == 200
                assert p.post("/api/settings", {"email": f"{p.name}@example.org", "notifications": "turn"}).status_code == 200
            inbox.wait(2)
            for p in (alice, bob):
                p.get(m.link_in(inbox.to(f"{p.name}@example.org")[0], "/settings/confirm"), headers=HTML)
            assert bob.post("/api/settings", {"email": "bob@example.org", "notifications": "digest"}).status_code == 200
            game = new_game(alice, bob, mode="turn", days=2)
            new_game(bob, alice, mode="turn", days=2)
            m.run_mailer(client)
            m.end_turn(alice, game)
            m.run_mailer(client, later=timedelta(days=1, hours=1))
            problems: list[str] = []
            data = {"alice", "bob", "alice@example.org", "bob@example.org"}
            assert len(inbox.messages) >= 4, [msg["Subject"] for _to, msg in inbox.messages]
            for _to, mail in inbox.messages:
                check(f"mail {mail['Subject']!r}", [mail["Subject"], *mail.get_content().splitlines()], data, problems)
            assert not problems, "\n".join(problems)
    finally:
        controller.stop()


def test_a_refusal_a_program_must_tell_apart_has_a_code_in_every_language(client: TestClient) -> None:
    """The deck editor offers "reload" on a deck changed elsewhere and marks the name box on a name
    refused: it reads the refusal's code, the same in every language, never the words."""
    alice = Player(client, "alice").signup()
    assert alice.post("/api/language", {"language": "pl"}).status_code == 200
    a = alice.post("/api/decks", {"name": "horde", "army": "orcs"}).json()
    b = alice.post("/api/decks", {"name": "other", "army": "elves"}).json()
    a_id, b_id = a.get("deck", a.get("id")), b.get("deck", b.get("id"))
    deck = alice.get(f"/api/decks/{a_id}").json()
    stale = alice.send("PUT", f"/api/decks/{a_id}", {"name": "horde", "cards": deck["cards"], "version": deck["version"] + 5})
    assert stale.status_code == 409 and stale.json()["code"] == "stale"
    assert stale.json()["detail"] != "the deck was changed elsewhere"
    other = alice.get(f"/api/decks/{b_id}").json()
    taken = alice.send("PUT", f"/api/decks/{b_id}", {"name": "horde", "cards": other["cards"], "version": other["version"]})
    assert taken.status_code == 409 and taken.json()["code"] == "name"
    assert alice.get(f"/api/decks/{b_id}").json()["name"] == "other"
    plain = alice.post("/api/signin", {"name": "nobody", "password": "whatever1"})
    assert "code" not in plain.json()


def test_the_scripts_catalogue_is_a_module_the_browser_keeps(client: TestClient) -> None:
    page = client.get("/signin", headers={"Accept-Language": "de"}).text
    found = re.search(r'<link rel="modulepreload" id="catalogue" href="(/i18n/de\.js\?v=([0-9a-f]{16}))">', page)
    assert found, "a German page names its scripts' catalogue for js/i18n.js"
    assert "<script>" not in page  # no inline script: the catalogue is a file of its own
    r = client.get(found.group(1))
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/javascript")
    assert r.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert r.text.startswith("export default {")
    data = json.loads(r.text[len("export default "):].rstrip().rstrip(";"))
    assert data == {"lang": "de", "messages": i18n.js_catalogue("de")} and len(data["messages"]) > 400
    assert client.get(found.group(1), headers={"If-None-Match": r.headers["etag"]}).status_code == 304
    stale = client.get("/i18n/de.js?v=0000000000000000")  # an old page's URL: served, not kept
    assert stale.status_code == 200 and stale.headers["cache-control"] == "no-cache"
    assert "/i18n/de.legacy.js" not in page and client.get(found.group(1).replace(".js?", ".legacy.js?")).status_code == 404
    english = client.get("/signin", headers={"Accept-Language": "en"}).text
    assert "/i18n/" not in english and 'id="catalogue"' not in english  # English needs none
    for bad in ("en", "fr", "qps", "de.js", "x" * 300):
        assert client.get(f"/i18n/{bad}.js").status_code == 404, bad

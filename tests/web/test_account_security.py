"""The account's security, against a real SMTP server (aiosmtpd on 127.0.0.1) on SQLite and
PostgreSQL: a forgotten password's link (single use, an hour, void after any password change,
kept only as a hash, the same answer for names and addresses nobody has, rate limits), changing
the password (other sessions and their sockets signed out, on another process too, a notice
mailed), and the list of sessions with signing one or all others out."""

from __future__ import annotations

import hashlib
import re
import time
from datetime import timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select, update
from starlette.websockets import WebSocketDisconnect

from lordsofwar.web.accounts import sessions
from lordsofwar.web.app import create_app
from lordsofwar.web.models import AuthSession, PasswordReset, utcnow
from tests.web.conftest import Player, new_game, settings_for
from tests.web.test_mail import (  # noqa: F401 - the fixtures are used by name
    Inbox,
    inbox,
    mail_app,
    mailer,
    mclient,
    outbox,
    smtp,
    subscribe,
)

SQLITE_ONLY = pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
"""The checks that do not depend on the database run on SQLite only (the reset link and the
password change run on both)."""
FIREFOX = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0"
IPHONE = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
    "Version/17.1 Mobile/15E148 Safari/604.1"
)


def mails_to(inbox: Inbox, address: str, count: int, timeout: float = 10.0) -> list[Any]:  # noqa: F811
    end = time.monotonic() + timeout
    while len(inbox.to(address)) < count and time.monotonic() < end:
        time.sleep(0.05)
    found = inbox.to(address)
    assert len(found) >= count, f"{len(found)} mails to {address}, {count} expected"
    return found


def reset_token(message: Any) -> str:
    found = re.search(r"http://testserver/reset\?token=(\S+)", message.get_content())
    assert found, message.get_content()
    return found.group(1)


def db_call(client: TestClient, work: Any) -> Any:
    async def run() -> Any:
        async with mailer(client).sessions() as db:
            result = await work(db)
            await db.commit()
            return result

    return client.portal.call(run)  # type: ignore[union-attr]


def resets(client: TestClient) -> list[PasswordReset]:
    async def work(db: Any) -> list[PasswordReset]:
        return list(await db.scalars(select(PasswordReset).order_by(PasswordReset.id)))

    result: list[PasswordReset] = db_call(client, work)
    return result


def second_session(client: TestClient, name: str, password: str, agent: str | None = None) -> Player:
    """The same player signed in again (another browser)."""
    other = Player(client, name, password)
    other.refresh()
    headers = {"X-CSRF-Token": other.csrf} | ({"User-Agent": agent} if agent else {})
    r = other.use().post("/api/signin", json={"name": name, "password": password}, headers=headers)
    assert r.status_code == 200, r.text
    other.cookies = {c.name: c.value for c in client.cookies.jar}
    other.refresh()
    return other


def signed_in(p: Player) -> bool:
    return p.get("/api/session").json()["user"] is not None


@pytest.fixture
def alice(mclient: TestClient, inbox: Inbox) -> Player:  # noqa: F811
    p = Player(mclient, "alice").signup()
    subscribe(p, inbox, "alice@example.org", "off")
    return p


def test_a_reset_link_sets_a_new_password_once_and_signs_out_everywhere(
    mclient: TestClient, inbox: Inbox, alice: Player  # noqa: F811
) -> None:
    other = second_session(mclient, "alice", "correct horse")
    stranger = Player(mclient, "visitor")
    stranger.refresh()
    r = stranger.post("/api/account/forgot", {"who": "ALICE "})
    assert r.status_code == 202, r.text
    mail = mails_to(inbox, "alice@example.org", 2)[-1]
    assert "new password" in mail["Subject"]
    token = reset_token(mail)
    # only the token's hash is kept; the sent mail's body (its link) is blanked
    rows = resets(mclient)
    assert [row.token_hash for row in rows] == [hashlib.sha256(token.encode()).hexdigest()]
    time.sleep(0.2)
    assert all(token not in m.body for m in outbox(mclient) if m.status == "sent")
    # opening the link spends nothing
    page = stranger.get(f"/reset?token={token}", headers={"Accept": "text/html"})
    assert page.status_code == 200 and 'name="token"' in page.text and "alice" in page.text
    form = {"csrf": stranger.csrf, "token": token, "password": "a new horse", "password2": "another horse"}
    r = stranger.use().post("/reset", data=form)
    assert r.status_code == 400 and "differ" in r.text and 'name="token"' in r.text  # the form again, the link kept
    too_short = stranger.post("/api/account/reset", {"token": token, "password": "short"})
    assert too_short.status_code == 400  # the sign-up rules, refused as sign-up refuses them
    r = stranger.post("/api/account/reset", {"token": token, "password": "a new horse"})
    assert r.status_code == 200, r.text
    assert r.json()["user"] == {"name": "alice"}
    stranger.refresh()
    assert signed_in(stranger)  # the reset signed this browser in
    assert not signed_in(alice) and not signed_in(other)  # and every other session out
    # the link works once
    again = Player(mclient, "again")
    again.refresh()
    r = again.post("/api/account/reset", {"token": token, "password": "a third horse"})
    assert r.status_code == 409 and "already used" in r.json()["detail"], r.text
    page = again.get(f"/reset?token={token}", headers={"Accept": "text/html"})
    assert page.status_code == 409 and 'name="token"' not in page.text
    # the new password signs in, the old one no more
    r = again.post("/api/signin", {"name": "alice", "password": "correct horse"})
    assert r.status_code == 401
    r = again.post("/api/signin", {"name": "alice", "password": "a new horse"})
    assert r.status_code == 200
    notice = mails_to(inbox, "alice@example.org", 3)[-1]
    assert "password was changed" in notice["Subject"]


@SQLITE_ONLY
def test_the_answer_is_the_same_for_names_and_addresses_nobody_has(
    mclient: TestClient, inbox: Inbox, alice: Player  # noqa: F811
) -> None:
    Player(mclient, "bob").signup()  # an account without an address
    asker = Player(mclient, "asker")
    asker.refresh()
    answers = []
    for who in ("alice", "nobody", "bob", "alice@example.org", "nobody@example.org", "not an address@"):
        r = asker.post("/api/account/forgot", {"who": who})
        answers.append((r.status_code, r.json(), r.headers.get("content-type")))
    assert len(set(map(str, answers))) == 1 and answers[0][0] == 202
    mails_to(inbox, "alice@example.org", 3)  # the confirmation, and one for her name and one for her address
    time.sleep(0.3)
    assert len(inbox.messages) == 3  # nobody else got anything
    assert len(resets(mclient)) == 2
    # the form answers the same sentence
    for who in ("alice", "nobody"):
        page = Player(mclient, "p").get("/forgot", headers={"Accept": "text/html"})
        csrf = re.search(r'name="csrf" value="([^"]+)"', page.text)
        assert csrf
        r = mclient.post("/forgot", data={"csrf": csrf.group(1), "who": who})
        assert r.status_code == 200 and 'id="forgot-sent"' in r.text


@SQLITE_ONLY
def test_requests_are_limited_per_text_per_address_and_per_account(
    mclient: TestClient, inbox: Inbox, alice: Player  # noqa: F811
) -> None:
    asker = Player(mclient, "asker")
    asker.refresh()
    codes = [asker.post("/api/account/forgot", {"who": "Nobody"}).status_code for _ in range(4)]
    assert codes == [202, 202, 202, 429]  # the same text, whoever it names
    codes = [asker.post("/api/account/forgot", {"who": who}).status_code for who in ("alice", " ALICE", "alice@example.org")]
    assert codes == [202, 202, 202]
    mails_to(inbox, "alice@example.org", 4)
    # the account's limit: a fourth link in the hour goes nowhere, and the answer does not say so
    r = asker.post("/api/account/forgot", {"who": "Alice@Example.org"})
    assert r.status_code == 202
    time.sleep(0.3)
    assert len(inbox.to("alice@example.org")) == 4
    assert len(resets(mclient)) == 3
    # the address's limit: ten requests an hour, whatever is typed
    codes = [asker.post("/api/account/forgot", {"who": f"name{i}"}).status_code for i in range(3)]
    assert codes == [202, 202, 429]  # the address's ninth and tenth requests, then no more
    r = asker.post("/api/account/forgot", {"who": ""})
    assert r.status_code == 422


@SQLITE_ONLY
def test_expired_forged_and_replaced_links_are_refused(mclient: TestClient, inbox: Inbox, alice: Player) -> None:  # noqa: F811
    asker = Player(mclient, "asker")
    asker.refresh()
    assert asker.post("/api/account/forgot", {"who": "alice"}).status_code == 202
    first = reset_token(mails_to(inbox, "alice@example.org", 2)[-1])

    async def age(db: Any) -> None:
        await db.execute(update(PasswordReset).values(expires_at=utcnow() - timedelta(seconds=1)))

    db_call(mclient, age)
    r = asker.post("/api/account/reset", {"token": first, "password": "a new horse"})
    assert r.status_code == 409 and "expired" in r.json()["detail"]
    # a forged token (the right length, or altered by one character)
    for forged in ("A" * 43, first[:-1] + ("A" if first[-1] != "A" else "B"), "", "x" * 100):
        r = asker.post("/api/account/reset", {"token": forged, "password": "a new horse"})
        assert r.status_code == 404 and "not valid" in r.json()["detail"], forged
    # a link asked for, then a password change: the link is void
    assert asker.post("/api/account/forgot", {"who": "alice@example.org"}).status_code == 202
    second = reset_token(mails_to(inbox, "alice@example.org", 3)[-1])
    r = alice.post("/api/account/password", {"current": "correct horse", "password": "changed horse"})
    assert r.status_code == 200, r.text
    r = asker.post("/api/account/reset", {"token": second, "password": "a new horse"})
    assert r.status_code == 409 and "already used or replaced" in r.json()["detail"]
    r = asker.post("/api/signin", {"name": "alice", "password": "changed horse"})
    assert r.status_code == 200
    asker.refresh()
    # unknown tokens count against the address, like unknown bearer tokens (20 in the window)
    codes = {asker.post("/api/account/reset", {"token": f"forged{i}", "password": "a new horse"}).status_code for i in range(17)}
    assert codes == {404, 429}
    assert asker.get(f"/reset?token={second}", headers={"Accept": "text/html"}).status_code == 429


@SQLITE_ONLY
def test_changing_the_password_signs_out_the_other_sessions_and_mails_a_notice(
    mclient: TestClient, inbox: Inbox, alice: Player  # noqa: F811
) -> None:
    other = second_session(mclient, "alice", "correct horse")
    r = alice.post("/api/account/password", {"current": "wrong horse", "password": "changed horse"})
    assert r.status_code == 403 and signed_in(other)
    r = alice.post("/api/account/password", {"current": "correct horse", "password": "short"})
    assert r.status_code == 400 and signed_in(other)
    r = alice.post("/api/account/password", {"current": "correct horse", "password": "changed horse"})
    assert r.status_code == 200 and r.json() == {"signed_out": 1, "mailed": True}
    assert signed_in(alice) and not signed_in(other)
    notice = mails_to(inbox, "alice@example.org", 2)[-1]
    assert "password was changed" in notice["Subject"] and "http://testserver/forgot" in notice.get_content()
    # without a CSRF token, nothing changes
    r = alice.post("/api/account/password", {"current": "changed horse", "password": "third horse"}, csrf="x")
    assert r.status_code == 403
    # the settings form
    page = alice.get("/settings", headers={"Accept": "text/html"})
    assert 'id="password-form"' in page.text
    r = mclient.post(
        "/settings/password",
        data={"csrf": alice.csrf, "current": "changed horse", "password": "third horse", "password2": "other"},
    )
    assert r.status_code == 400 and 'id="security-error"' in r.text
    r = mclient.post(
        "/settings/password",
        data={"csrf": alice.csrf, "current": "changed horse", "password": "third horse", "password2": "third horse"},
        follow_redirects=False,
    )
    assert r.status_code == 303 and "password-changed" in r.headers["location"]


@SQLITE_ONLY
def test_sessions_are_listed_and_signed_out_one_or_all(mclient: TestClient, inbox: Inbox, alice: Player) -> None:  # noqa: F811
    firefox = second_session(mclient, "alice", "correct horse", FIREFOX)
    iphone = second_session(mclient, "alice", "correct horse", IPHONE)
    listed = alice.get("/api/account/sessions").json()
    assert listed["recoverable"] is True
    rows = listed["sessions"]
    assert len(rows) == 3 and rows[0]["current"] and [r["current"] for r in rows].count(True) == 1
    browsers = {r["browser"] for r in rows}
    assert {"Firefox, Windows", "Mobile Safari, iOS"} <= browsers
    assert all(r["network"] is None for r in rows)  # the test client has no IP address
    mine = rows[0]["id"]
    assert alice.send("DELETE", f"/api/account/sessions/{mine}").status_code == 409
    assert alice.send("DELETE", "/api/account/sessions/0123456789abcdef").status_code == 404
    target = next(r["id"] for r in rows if r["browser"] == "Firefox, Windows")
    # another player cannot sign out alice's session
    bob = Player(mclient, "bob").signup()
    assert bob.send("DELETE", f"/api/account/sessions/{target}").status_code == 404
    assert signed_in(firefox)
    r = alice.send("DELETE", f"/api/account/sessions/{target}")
    assert r.status_code == 200 and r.json() == {"signed_out": 1}
    assert not signed_in(firefox) and signed_in(iphone)
    page = alice.get("/settings", headers={"Accept": "text/html"})
    assert "Mobile Safari, iOS" in page.text and "Firefox" not in page.text and 'id="sessions-others"' in page.text
    r = mclient.post("/settings/sessions/others", data={"csrf": alice.csrf}, follow_redirects=False)
    assert r.status_code == 303
    assert not signed_in(iphone) and signed_in(alice)
    assert [r["current"] for r in alice.get("/api/account/sessions").json()["sessions"]] == [True]
    # last seen: written at most once a minute
    before = db_call(mclient, seen)
    alice.get("/api/account/sessions")
    assert db_call(mclient, seen) == before

    async def age(db: Any) -> None:
        await db.execute(update(AuthSession).values(last_seen_at=utcnow() - timedelta(minutes=5)))

    db_call(mclient, age)
    alice.get("/api/account/sessions")
    fresh = [moment > utcnow() - timedelta(minutes=1) for moment in db_call(mclient, seen)]
    assert fresh.count(True) == 1  # the session that made the request, no other
    # a player without a confirmed address is told that the account cannot be recovered
    page = bob.get("/settings", headers={"Accept": "text/html"})
    assert 'class="caution" id="recovery-state"' in page.text
    assert bob.get("/api/account/sessions").json()["recoverable"] is False
    assert 'class="caution"' not in alice.get("/settings", headers={"Accept": "text/html"}).text


async def seen(db: Any) -> list[Any]:
    return list(await db.scalars(select(AuthSession.last_seen_at).order_by(AuthSession.created_at)))


def test_networks_and_browser_names() -> None:
    assert sessions.network("203.0.113.77") == "203.0.113.0/24"
    assert sessions.network("2001:db8:1:2:3:4:5:6") == "2001:db8:1::/48"
    assert sessions.network("::ffff:198.51.100.9") == "198.51.100.0/24"
    assert sessions.network("testclient") is None
    assert sessions.browser_name(FIREFOX) == "Firefox, Windows"
    assert sessions.browser_name("curl/8.0") == "curl"
    assert sessions.browser_name("") is None


@SQLITE_ONLY
def test_a_password_change_closes_the_sockets_of_other_sessions_on_another_process(db_url: str, redis_url: str) -> None:
    app_a = create_app(settings_for(db_url, redis_url=redis_url))
    app_b = create_app(settings_for(db_url, redis_url=redis_url), run_migrations=False)
    with TestClient(app_a) as ca, TestClient(app_b) as cb:
        alice, bob = Player(ca, "alice").signup(), Player(ca, "bob").signup()
        game = new_game(alice, bob)
        elsewhere = second_session(cb, "alice", "correct horse")  # another browser, on server B
        same = Player(cb, "alice")
        same.cookies = dict(alice.cookies)  # this session's socket, on server B too
        with elsewhere.socket(game) as ws_other, same.socket(game) as ws_same:
            assert ws_other.receive_json()["type"] == "state"
            assert ws_same.receive_json()["type"] == "state"
            r = alice.post("/api/account/password", {"current": "correct horse", "password": "changed horse"})
            assert r.status_code == 200 and r.json()["signed_out"] == 1
            with pytest.raises(WebSocketDisconnect) as closed:
                while True:  # messages already queued may come first
                    ws_other.receive_json()
            assert closed.value.code == 4401
            ws_same.send_json({"type": "ping"})
            assert ws_same.receive_json()["type"] == "pong"  # the session in use keeps its socket


"""Email for turn-based games, against a real SMTP server (aiosmtpd on 127.0.0.1) on SQLite and
PostgreSQL: the address is confirmed by a signed link before any other mail goes to it; "your
turn" at most once per game a day, or a daily digest; a signed one-click unsubscribe link (RFC
8058); retries while the SMTP server is down; never a mail for a live game."""

from __future__ import annotations

import asyncio
import base64
import json
import re
import socket
import time
from collections.abc import Callable, Iterator
from datetime import timedelta
from email import message_from_bytes, policy
from email.message import EmailMessage
from typing import Any
from urllib.parse import urlsplit

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select, update

pytest.importorskip("aiosmtpd")
from aiosmtpd.controller import Controller  # noqa: E402
from aiosmtpd.smtp import AuthResult, LoginPassword  # noqa: E402

from lordsofwar.web.app import create_app  # noqa: E402
from lordsofwar.web.db import make_engine, make_sessionmaker  # noqa: E402
from lordsofwar.web.models import MailOutbox, utcnow  # noqa: E402
from lordsofwar.web.notify.service import Mailer, Smtp  # noqa: E402
from tests.web.conftest import Player, new_game, settings_for  # noqa: E402

USER, PASSWORD = "low", "s3cret:pass"
pytestmark = pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS")


class Inbox:
    """What the SMTP server received (aiosmtpd's DATA handler), with the envelope's recipients."""

    def __init__(self) -> None:
        self.messages: list[tuple[list[str], EmailMessage]] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        message = message_from_bytes(envelope.original_content or envelope.content, policy=policy.default)
        assert isinstance(message, EmailMessage)
        self.messages.append((list(envelope.rcpt_tos), message))
        return "250 OK"

    def wait(self, count: int, timeout: float = 10.0) -> list[EmailMessage]:
        end = time.monotonic() + timeout
        while len(self.messages) < count and time.monotonic() < end:
            time.sleep(0.05)
        assert len(self.messages) >= count, f"{len(self.messages)} mails received, {count} expected"
        return [m for _to, m in self.messages]

    def to(self, address: str) -> list[EmailMessage]:
        return [m for to, m in self.messages if address in to]


def _authenticate(server: Any, session: Any, envelope: Any, mechanism: str, data: Any) -> AuthResult:
    ok = isinstance(data, LoginPassword) and (data.login, data.password) == (USER.encode(), PASSWORD.encode())
    return AuthResult(success=ok)


def _payload(value: Any) -> str:
    return base64.urlsafe_b64encode(json.dumps(value, separators=(",", ":")).encode()).rstrip(b"=").decode()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def smtp_server(inbox: Inbox, port: int) -> Controller:
    controller = Controller(
        inbox, hostname="127.0.0.1", port=port, authenticator=_authenticate, auth_required=True, auth_require_tls=False
    )
    controller.start()
    return controller


@pytest.fixture
def smtp() -> Iterator[tuple[Inbox, int]]:
    inbox, port = Inbox(), free_port()
    controller = smtp_server(inbox, port)
    yield inbox, port
    controller.stop()


def mail_app(db_url: str, port: int, **overrides: Any) -> TestClient:
    url = f"smtp://{USER}:{PASSWORD.replace(':', '%3A')}@127.0.0.1:{port}"
    values: dict[str, Any] = {
        "smtp_url": url,
        "mail_from": "Lords of War <games@lords.example>",
        "public_url": "http://testserver",
        "mail_interval": 3600.0,  # the tests run the mailer's rounds themselves (confirmations go at once)
        **overrides,
    }
    return TestClient(create_app(settings_for(db_url, **values)), base_url="http://testserver")


@pytest.fixture
def mclient(db_url: str, smtp: tuple[Inbox, int]) -> Iterator[TestClient]:
    with mail_app(db_url, smtp[1]) as c:
        yield c


@pytest.fixture
def inbox(smtp: tuple[Inbox, int]) -> Inbox:
    return smtp[0]


def mailer(client: TestClient) -> Mailer:
    m: Mailer = client.app.state.mailer  # type: ignore[attr-defined]
    return m


@pytest.fixture
def other_process(mclient: TestClient) -> Iterator[Callable[[], Mailer]]:
    """Makes mailers as other server processes have them (an engine of their own), their loops
    not running (so the app's own loop is not woken by what they queue)."""
    engines: list[Any] = []

    def make() -> Mailer:
        mine = mailer(mclient)
        engines.append(make_engine(mine.settings))
        other = Mailer(mine.settings, make_sessionmaker(engines[-1]))
        other.tokens = mine.tokens
        return other

    yield make
    for engine in engines:
        mclient.portal.call(engine.dispose)  # type: ignore[union-attr]


def run_mailer(client: TestClient, later: timedelta = timedelta(0)) -> int:
    """One round of the mailer (queue what is due, send what is queued), ``later`` from now;
    then, should the app's own mailer loop (woken by a change) have claimed a mail first, wait
    until it has sent it, so that what is due has reached the inbox either way."""
    m = mailer(client)
    sent = int(client.portal.call(m.run_once, utcnow() + later))  # type: ignore[union-attr]
    end = time.monotonic() + 10
    while any(row.status == "sending" for row in outbox(client)):
        assert time.monotonic() < end, "a mail claimed by the mailer's loop was not sent"
        time.sleep(0.05)
    return sent


def outbox(client: TestClient) -> list[MailOutbox]:
    async def rows() -> list[MailOutbox]:
        async with mailer(client).sessions() as db:
            return list(await db.scalars(select(MailOutbox).order_by(MailOutbox.id)))

    return client.portal.call(rows)  # type: ignore[union-attr]


def age_mails(client: TestClient, hours: float) -> None:
    """Make every mail in the outbox as if queued ``hours`` earlier."""

    async def run() -> None:
        async with mailer(client).sessions() as db:
            rows = list(await db.scalars(select(MailOutbox)))
            for row in rows:
                await db.execute(
                    update(MailOutbox)
                    .where(MailOutbox.id == row.id)
                    .values(created_at=row.created_at - timedelta(hours=hours))
                )
            await db.commit()

    client.portal.call(run)  # type: ignore[union-attr]


def link_in(message: EmailMessage, path: str) -> str:
    body = message.get_content()
    found = re.search(rf"http://testserver{re.escape(path)}\?token=\S+", body)
    assert found, body
    parts = urlsplit(found.group(0))
    return f"{parts.path}?{parts.query}"


def subscribe(p: Player, inbox: Inbox, email: str, choice: str = "turn") -> None:
    """Set an address and a choice, and confirm the address with the link mailed to it."""
    before = len(inbox.to(email))
    r = p.post("/api/settings", {"email": email, "notifications": choice})
    assert r.status_code == 200, r.text
    assert r.json() == {"email": email, "confirmed": False, "notifications": choice, "available": True}
    end = time.monotonic() + 10
    while len(inbox.to(email)) <= before and time.monotonic() < end:
        time.sleep(0.05)
    mail = inbox.to(email)[-1]
    assert "confirm" in mail["Subject"]
    r = p.get(link_in(mail, "/settings/confirm"), headers={"Accept": "text/html"})
    assert r.status_code == 200 and "is confirmed" in r.text, r.text
    assert p.get("/api/settings").json()["confirmed"] is True


def end_turn(p: Player, game: int) -> None:
    """Deploy a card, then draw: the turn passes to the opponent."""
    s = p.state(game)
    deploy = next(a for a in s["legal"] if a.startswith("deploy "))
    assert p.act(game, deploy).status_code == 200
    r = p.act(game, "draw")
    assert r.status_code == 200, r.text
    after = p.state(game)
    assert after["legal"] == [], after["legal"][:3]


@pytest.fixture
def alice(mclient: TestClient) -> Player:
    return Player(mclient, "alice").signup()


@pytest.fixture
def bob(mclient: TestClient) -> Player:
    return Player(mclient, "bob").signup()


# --- the address --------------------------------------------------------------------------------


def test_a_new_address_gets_a_confirmation_link_that_confirms_it(alice: Player, inbox: Inbox) -> None:
    r = alice.post("/api/settings", {"email": "  Alice.Smith@EXAMPLE.Org "})
    assert r.status_code == 200, r.text
    assert r.json() == {
        "email": "Alice.Smith@example.org",
        "confirmed": False,
        "notifications": "off",
        "available": True,
    }
    (mail,) = inbox.wait(1)
    assert inbox.messages[0][0] == ["Alice.Smith@example.org"]
    assert mail["From"] == "Lords of War <games@lords.example>" and "confirm" in mail["Subject"]
    assert "List-Unsubscribe" not in mail  # nothing to unsubscribe from yet
    link = link_in(mail, "/settings/confirm")
    forged = link[:-3] + ("AAA" if not link.endswith("AAA") else "BBB")
    r = alice.get(forged, headers={"Accept": "text/html"})
    assert r.status_code == 400 and "not valid" in r.text
    assert alice.get("/api/settings").json()["confirmed"] is False
    r = alice.client.get(link, headers={"Accept": "text/html"})  # any browser: the link is the proof
    assert r.status_code == 200 and "Alice.Smith@example.org is confirmed for alice" in r.text
    assert alice.get("/api/settings").json()["confirmed"] is True
    r = alice.post("/api/settings", {"email": "Alice.Smith@example.org", "notifications": "digest"})
    assert r.json()["confirmed"] is True  # the same address: still confirmed, no new mail
    time.sleep(0.3)
    assert len(inbox.messages) == 1
    # a new address is unconfirmed again, and the old link no longer applies to it
    assert alice.post("/api/settings", {"email": "other@example.org"}).json()["confirmed"] is False
    assert alice.get(link).status_code == 409
    inbox.wait(2)
    assert alice.post("/api/settings", {"email": None}).json() == {
        "email": None, "confirmed": False, "notifications": "digest", "available": True,
    }  # fmt: skip


@pytest.mark.parametrize(
    "address",
    ["x" * 250 + "@a.org", "no-at-sign", "a@b@c.org", "alice@", "@example.org", "a b@example.org",
     "a@example.org\r\nBcc: victim@example.org", "alice@exa mple.org", "<a@example.org>", "a@example..org", "a" * 65 + "@example.org"],
)  # fmt: skip
def test_an_over_long_or_malformed_address_is_refused(alice: Player, address: str, mclient: TestClient) -> None:
    r = alice.post("/api/settings", {"email": address, "notifications": "turn"})
    assert r.status_code == 422, r.text
    assert alice.get("/api/settings").json() == {
        "email": None, "confirmed": False, "notifications": "off", "available": True,
    }  # fmt: skip
    assert outbox(mclient) == []


def test_confirmation_mails_are_limited_to_five_an_hour(alice: Player, inbox: Inbox) -> None:
    for n in range(5):
        assert alice.post("/api/settings", {"email": f"a{n}@example.org"}).status_code == 200
    r = alice.post("/api/settings", {"email": "a5@example.org"})
    assert r.status_code == 429 and "5 confirmation mails an hour" in r.json()["detail"]
    assert alice.get("/api/settings").json()["email"] == "a4@example.org"
    inbox.wait(1)
    time.sleep(0.3)
    assert [r.kind for r in outbox(alice.client)] == ["confirm"] * 5
    # a confirmation whose address was replaced before it went is not sent
    assert {to[0] for to, _m in inbox.messages} <= {f"a{n}@example.org" for n in range(5)}


def test_another_players_settings_cannot_be_changed(alice: Player, bob: Player, mclient: TestClient) -> None:
    assert alice.post("/api/settings", {"notifications": "turn"}).status_code == 200
    # bob's session with alice's token, or none at all: refused; and there is no way to name a player
    assert bob.post("/api/settings", {"notifications": "off"}, csrf=alice.csrf).status_code == 403
    assert bob.post("/api/settings", {"notifications": "off", "user": "alice"}).status_code == 422
    r = bob.use().post("/settings", data={"csrf": alice.csrf, "notifications": "off"})
    assert r.status_code == 403
    signed_out = Player(mclient, "nobody")
    signed_out.refresh()
    assert signed_out.post("/api/settings", {"notifications": "off"}).status_code == 401
    assert signed_out.get("/api/settings").status_code == 401
    assert alice.get("/api/settings").json()["notifications"] == "turn"
    assert bob.get("/api/settings").json()["notifications"] == "off"


def test_the_settings_page_and_form(alice: Player, bob: Player, inbox: Inbox) -> None:
    r = alice.get("/settings")
    assert r.status_code == 200 and 'name="email"' in r.text and "not available" not in r.text
    r = alice.use().post(
        "/settings", data={"csrf": alice.csrf, "email": "alice@example.org", "notifications": "digest"}
    )
    alice._keep()
    assert r.status_code == 200 and "Saved." in r.text and "Not confirmed yet" in r.text
    assert alice.get("/api/settings").json()["notifications"] == "digest"
    inbox.wait(1)
    r = alice.use().post("/settings", data={"csrf": alice.csrf, "email": "nope", "notifications": "digest"})
    assert r.status_code == 422 and "not a valid email address" in r.text
    assert 'id="settings-link"' in alice.get("/players/alice").text
    assert 'id="settings-link"' not in bob.get("/players/alice").text
    bob.client.cookies.clear()
    assert bob.client.get("/settings", follow_redirects=False).headers["location"] == "/signin?next=/settings"


def test_without_smtp_no_mail_and_the_page_says_so(client: TestClient) -> None:
    alice = Player(client, "alice").signup()
    assert "Email is not available on this server" in alice.get("/settings").text
    r = alice.post("/api/settings", {"email": "alice@example.org"})
    assert r.status_code == 409 and r.json()["detail"] == "email is not available on this server"
    assert alice.get("/api/settings").json() == {
        "email": None, "confirmed": False, "notifications": "off", "available": False,
    }  # fmt: skip
    assert run_mailer(client) == 0


def test_the_smtp_url_is_read() -> None:
    s = Smtp.parse("smtps://u%40x:p%3Aw@mail.example:2465")
    assert (s.host, s.port, s.username, s.password, s.use_tls, s.start_tls) == (
        "mail.example", 2465, "u@x", "p:w", True, False,
    )  # fmt: skip
    s = Smtp.parse("smtp://127.0.0.1?starttls=1")
    assert (s.port, s.username, s.use_tls, s.start_tls) == (25, None, False, True)
    with pytest.raises(ValueError):
        Smtp.parse("http://127.0.0.1")


# --- game mail ----------------------------------------------------------------------------------


def test_your_turn_after_the_opponent_moves_and_not_twice_a_day(
    alice: Player, bob: Player, inbox: Inbox, mclient: TestClient
) -> None:
    subscribe(alice, inbox, "alice@example.org")
    subscribe(bob, inbox, "bob@example.org")
    game = new_game(alice, bob, mode="turn", days=2)
    run_mailer(mclient)
    (mail,) = inbox.to("alice@example.org")[1:]  # the game waits for alice from the start
    assert mail["Subject"] == f"Lords of War: your turn against bob (game {game})"
    assert f"http://testserver/games/{game}" in mail.get_content()
    assert mail["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert mail["List-Unsubscribe"] == f"<http://testserver{link_in(mail, '/unsubscribe')}>"
    assert inbox.to("bob@example.org")[1:] == []
    end_turn(alice, game)
    run_mailer(mclient)
    (mail,) = inbox.to("bob@example.org")[1:]
    assert mail["Subject"] == f"Lords of War: your turn against alice (game {game})"
    end_turn(bob, game)
    run_mailer(mclient)
    run_mailer(mclient)
    assert len(inbox.to("alice@example.org")) == 2  # alice's turn again, the same day: no second mail
    age_mails(mclient, 25)  # a day later, still waiting for alice: one more
    run_mailer(mclient)
    assert len(inbox.to("alice@example.org")) == 3
    run_mailer(mclient)
    assert len(inbox.to("alice@example.org")) == 3 and len(inbox.to("bob@example.org")) == 2


def test_an_unconfirmed_address_gets_only_its_confirmation(
    alice: Player, bob: Player, inbox: Inbox, mclient: TestClient
) -> None:
    assert alice.post("/api/settings", {"email": "alice@example.org", "notifications": "turn"}).status_code == 200
    inbox.wait(1)
    new_game(alice, bob, mode="turn", days=1)
    run_mailer(mclient)
    assert [m["Subject"] for m in inbox.to("alice@example.org")] == ["Lords of War: confirm your email address"]
    assert [r.kind for r in outbox(mclient)] == ["confirm"]


def test_a_live_game_sends_nothing(alice: Player, bob: Player, inbox: Inbox, mclient: TestClient) -> None:
    subscribe(alice, inbox, "alice@example.org")
    subscribe(bob, inbox, "bob@example.org", "digest")
    game = new_game(alice, bob, mode="live", minutes=10)
    run_mailer(mclient)
    end_turn(alice, game)
    run_mailer(mclient)
    age_mails(mclient, 48)
    run_mailer(mclient)
    assert len(inbox.messages) == 2 and [r.kind for r in outbox(mclient)] == ["confirm", "confirm"]


def test_a_daily_digest_lists_the_games_waiting(alice: Player, bob: Player, inbox: Inbox, mclient: TestClient) -> None:
    carol = Player(mclient, "carol").signup()
    subscribe(alice, inbox, "alice@example.org", "digest")
    first = new_game(alice, bob, mode="turn", days=3)
    second = new_game(alice, carol, mode="turn", days=3)
    new_game(alice, bob, mode="live")  # not in a digest
    waiting_for_bob = new_game(bob, alice, mode="turn", days=3)  # bob is player 1: not alice's turn
    run_mailer(mclient)
    (mail,) = inbox.to("alice@example.org")[1:]
    assert mail["Subject"] == "Lords of War: 2 games waiting for you"
    body = mail.get_content()
    assert f"/games/{first}" in body and f"/games/{second}" in body and f"/games/{waiting_for_bob}" not in body
    assert "against bob" in body and "against carol" in body and mail["List-Unsubscribe"]
    end_turn(bob, waiting_for_bob)
    run_mailer(mclient)
    assert len(inbox.to("alice@example.org")) == 2  # one a day
    run_mailer(mclient, timedelta(hours=25))  # the next day
    (_confirm, _first, mail) = inbox.to("alice@example.org")
    assert mail["Subject"] == "Lords of War: 3 games waiting for you"


def test_the_unsubscribe_link_turns_mail_off_and_a_forged_one_changes_nothing(
    alice: Player, bob: Player, inbox: Inbox, mclient: TestClient
) -> None:
    subscribe(alice, inbox, "alice@example.org")
    new_game(alice, bob, mode="turn", days=2)
    run_mailer(mclient)
    mail = inbox.to("alice@example.org")[-1]
    link = link_in(mail, "/unsubscribe")
    stranger = TestClient(mclient.app, base_url="http://testserver")  # no cookies: no sign-in needed
    path, token = link.split("?token=")
    for forged in (
        token[:-2] + ("xy" if not token.endswith("xy") else "zw"),
        token.replace(token.split(".")[0], _payload([2, "alice@example.org"])),  # another id, the old signature
        "",
    ):
        r = stranger.post(f"{path}?token={forged}", data={"List-Unsubscribe": "One-Click"})
        assert r.status_code == 400, r.text
        assert "not valid" in r.json()["detail"] or "incomplete" in r.json()["detail"]
        r = stranger.get(f"{path}?token={forged}", headers={"Accept": "text/html"})
        assert r.status_code == 400
    assert alice.get("/api/settings").json()["notifications"] == "turn"
    r = stranger.get(link, headers={"Accept": "text/html"})  # the confirm page changes nothing
    assert r.status_code == 200 and "Stop the game mail to alice@example.org" in r.text
    assert alice.get("/api/settings").json()["notifications"] == "turn"
    r = stranger.post(link, data={"List-Unsubscribe": "One-Click"})  # RFC 8058: what a mail client sends
    assert r.status_code == 200 and "No more game mail goes to alice@example.org" in r.text
    assert alice.get("/api/settings").json() == {
        "email": "alice@example.org", "confirmed": True, "notifications": "off", "available": True,
    }  # fmt: skip
    r = stranger.post(path, data={"token": token})  # the page's button: the same, again
    assert r.status_code == 200
    age_mails(mclient, 25)
    run_mailer(mclient)
    assert len(inbox.to("alice@example.org")) == 2  # the confirmation and the one "your turn"


def test_a_mail_waits_while_the_smtp_server_is_down_and_goes_when_it_is_back(db_url: str) -> None:
    inbox, port = Inbox(), free_port()
    with mail_app(db_url, port, mail_retry=60.0) as c:
        alice = Player(c, "alice").signup()
        assert alice.post("/api/settings", {"email": "alice@example.org"}).status_code == 200
        run_mailer(c)
        time.sleep(0.3)
        (row,) = outbox(c)
        assert row.status == "queued" and row.attempts >= 1 and row.error and row.next_at > utcnow()
        assert run_mailer(c) == 0  # not due yet: backoff
        controller = smtp_server(inbox, port)
        try:
            assert run_mailer(c, timedelta(hours=2)) == 1
            (mail,) = inbox.wait(1)
            assert "confirm" in mail["Subject"]
            (row,) = outbox(c)
            assert row.status == "sent" and row.sent_at is not None
            assert run_mailer(c, timedelta(hours=4)) == 0  # sent once
        finally:
            controller.stop()


def test_two_senders_at_once_send_each_mail_once(
    alice: Player, bob: Player, inbox: Inbox, mclient: TestClient, other_process: Callable[[], Mailer]
) -> None:
    subscribe(alice, inbox, "alice@example.org")
    subscribe(bob, inbox, "bob@example.org")
    for _ in range(3):
        new_game(alice, bob, mode="turn", days=2)
    senders = [other_process() for _ in range(3)]  # each with its own connections

    async def race() -> list[int]:
        queued = await asyncio.gather(*(m.scan() for m in senders))
        assert sum(queued) == 3  # each mail queued once
        return list(await asyncio.gather(*(m.deliver() for m in senders)))

    sent = mclient.portal.call(race)  # type: ignore[union-attr]
    assert sum(sent) == 3
    inbox.wait(5)
    time.sleep(0.3)
    assert len(inbox.to("alice@example.org")) == 4
    assert sorted(r.status for r in outbox(mclient)) == ["sent"] * 5


def test_a_mail_no_longer_wanted_when_its_turn_comes_is_dropped(
    alice: Player, bob: Player, inbox: Inbox, mclient: TestClient, other_process: Callable[[], Mailer]
) -> None:
    subscribe(alice, inbox, "alice@example.org")
    game = new_game(alice, bob, mode="turn", days=2)
    m = other_process()
    assert mclient.portal.call(m.scan) == 1  # type: ignore[union-attr]
    end_turn(alice, game)  # alice moved before the mail went: it is not sent
    assert mclient.portal.call(m.deliver) == 0  # type: ignore[union-attr]
    assert [(r.kind, r.status) for r in outbox(mclient)] == [("confirm", "sent"), ("turn", "dropped")]
    assert len(inbox.to("alice@example.org")) == 1


def test_the_mailer_stops_even_when_a_library_swallows_its_cancel(db_url: str) -> None:
    """Python 3.11's wait_for (in the SMTP client) can lose a cancel that comes as what it waits
    for ends: close() cancels again until the loop has ended, so a server's shutdown cannot hang."""
    settings = settings_for(db_url, smtp_url="smtp://127.0.0.1:1")
    mailer = Mailer(settings, make_sessionmaker(make_engine(settings)))  # no round runs: its loop is replaced
    swallowed: list[bool] = []

    async def loop_that_loses_one_cancel() -> None:
        while True:
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                if swallowed:
                    raise
                swallowed.append(True)  # lost once, as in wait_for's race

    async def run() -> float:
        mailer._forever = loop_that_loses_one_cancel  # type: ignore[method-assign]
        mailer.start(b"k" * 32)
        await asyncio.sleep(0)
        start = time.monotonic()
        await asyncio.wait_for(mailer.close(), timeout=10)
        return time.monotonic() - start

    took = asyncio.run(run())
    assert swallowed == [True] and took < 5

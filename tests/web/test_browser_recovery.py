"""A forgotten password in a real browser, against a server process that mails through a real
SMTP server (aiosmtpd on 127.0.0.1): the settings page says the account cannot be recovered
until an address is confirmed; "Forgot your password?" on the sign-in page → the mail → the
link → a new password typed with the keyboard → signed in, and the old session signed out; the
settings page lists the sessions the server has. With LOW_SCREENSHOT_DIR set, the pages are
photographed (desktop and phone) for docs/screenshots; the pages fit a 390 px phone."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("aiosmtpd")

from tests.web.server import free_port, running_server  # noqa: E402
from tests.web.test_browser import ARRIVED, CHROMIUM, shot, sign_in, sign_up, visit  # noqa: E402
from tests.web.test_mail import PASSWORD, USER, Inbox, smtp_server  # noqa: E402

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (scripts/install-browser)")
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def mail_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Inbox]]:
    inbox, smtp_port = Inbox(), free_port()
    controller = smtp_server(inbox, smtp_port)
    port = free_port()
    env = {
        "LOW_SMTP_URL": f"smtp://{USER}:{PASSWORD.replace(':', '%3A')}@127.0.0.1:{smtp_port}",
        "LOW_PUBLIC_URL": f"http://127.0.0.1:{port}",
        "LOW_MAIL_FROM": "Lords of War <games@lords.example>",
    }
    try:
        with running_server(tmp_path_factory.mktemp("recovery"), port=port, **env) as base:
            yield base, inbox
    finally:
        controller.stop()


def mail_link(inbox: Inbox, address: str, count: int, path: str) -> str:
    end = time.monotonic() + 20
    while len(inbox.to(address)) < count and time.monotonic() < end:
        time.sleep(0.1)
    mails = inbox.to(address)
    assert len(mails) >= count, f"{len(mails)} mails to {address}"
    found = re.search(rf"http://127\.0\.0\.1:\d+{re.escape(path)}\?token=\S+", mails[count - 1].get_content())
    assert found, mails[count - 1].get_content()
    return found.group(0)


def session_ids(page: Any) -> list[str]:
    return [str(x) for x in page.eval_on_selector_all("#session-list li", "els => els.map(e => e.dataset.session)")]


def test_forgot_password_mail_new_password_signed_in(browser: Any, mail_site: tuple[str, Inbox]) -> None:
    base, inbox = mail_site
    ann = sign_up(browser, base, "rec_ann")
    visit(ann, base + "/settings")
    assert "caution" in (ann.get_attribute("#recovery-state", "class") or "")  # no address: no recovery
    ann.fill("#settings-email", "ann@example.org")
    ann.click("#settings-submit")
    ann.wait_for_selector("#settings-message")
    visit(ann, mail_link(inbox, "ann@example.org", 1, "/settings/confirm"))
    visit(ann, base + "/settings")
    assert "caution" not in (ann.get_attribute("#recovery-state", "class") or "")
    # a second browser signed in: the list shows exactly the sessions the server has, this one marked
    extra = browser.new_context(viewport={"width": 1366, "height": 768}).new_page()
    sign_in(extra, base, "rec_ann")
    visit(ann, base + "/settings")
    listed = ann.request.get(base + "/api/account/sessions").json()["sessions"]
    assert len(listed) == 2 and session_ids(ann) == [s["id"] for s in listed] and listed[0]["current"]
    assert ann.is_visible("#sessions-others") and ann.locator("#session-list li:not([data-current]) button").count() == 1
    assert ann.is_visible("#session-list li[data-current] .badge")
    assert ann.inner_text("#session-list li[data-current] strong") == listed[0]["browser"] and "Chrome" in listed[0]["browser"]
    shot(ann, "account-security-settings-desktop.png", full_page=True)

    other = browser.new_context(viewport={"width": 1366, "height": 768}).new_page()
    visit(other, base + "/signin")
    other.click("#forgot-link")
    other.wait_for_url("**/forgot")
    shot(other, "account-forgot-password-desktop.png")
    other.fill("#forgot-who", "rec_ann")
    other.keyboard.press("Enter")
    other.wait_for_selector("#forgot-sent")
    same = other.inner_text("#forgot-sent")
    link = mail_link(inbox, "ann@example.org", 2, "/reset")
    visit(other, link)
    assert "rec_ann" in other.inner_text("#reset")
    shot(other, "account-reset-password-desktop.png")
    other.set_viewport_size(PHONE)
    assert other.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
    shot(other, "account-reset-password-phone.png")
    other.set_viewport_size({"width": 1366, "height": 768})
    other.focus("#reset-password")
    # the keyboard alone: the first field has the focus, Tab to the second, Enter sends
    other.keyboard.type("a-new-password-1")
    other.keyboard.press("Tab")
    other.keyboard.type("a-new-password-1")
    other.keyboard.press("Enter")
    other.wait_for_function(ARRIVED, arg="/")  # not the URL: flash.js drops its ?flash=password-set
    assert other.is_visible("text=New password set")
    assert other.request.get(base + "/api/session").json()["user"] == {"name": "rec_ann"}
    # a notice of the change went to the address
    end = time.monotonic() + 20
    while len(inbox.to("ann@example.org")) < 3 and time.monotonic() < end:
        time.sleep(0.1)
    assert "password was changed" in inbox.to("ann@example.org")[2]["Subject"]
    # the first browser's session is gone; the link is spent
    assert ann.request.get(base + "/api/session").json()["user"] is None
    assert extra.request.get(base + "/api/session").json()["user"] is None
    extra.context.close()
    visit(other, link)
    assert other.is_visible("#form-error") and not other.is_visible("#reset-password")
    visit(other, base + "/settings")
    assert len(session_ids(other)) == 1
    # on a phone: nothing wider than the screen
    other.set_viewport_size(PHONE)
    for path, name in (("/settings", "account-security-settings-phone.png"), ("/forgot", "account-forgot-password-phone.png")):
        visit(other, base + path)
        assert other.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"], path
        shot(other, name, full_page=path == "/settings")
    other.context.close()

    # an unknown name gets the same sentence, and no mail
    stranger = browser.new_context(viewport={"width": 1366, "height": 768}).new_page()
    visit(stranger, base + "/forgot")
    stranger.fill("#forgot-who", "nobody_here")
    stranger.click("#forgot-submit")
    stranger.wait_for_selector("#forgot-sent")
    assert stranger.inner_text("#forgot-sent") == same
    time.sleep(0.5)
    assert len(inbox.messages) == 3
    stranger.context.close()
    ann.context.close()


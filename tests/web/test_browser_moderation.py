"""Reports and moderation in browsers: a player reports another from the profile with the keyboard,
a moderator sees the report on the queue, with the
reported chat message and its neighbours, and bans the player from the page, which ends the
player's signed-in session in their own browser; sign-in then refuses naming the ban. A warned
player reads the warning on their next page. What the pages show is checked against the API."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.web.server import running_server
from tests.web.test_browser import SHOTS, Api, shot, sign_in, visit

PHONE = {"width": 390, "height": 844}


def grant_quickly(data: Path, name: str) -> None:
    """Make ``name`` a moderator of the test server whose folder is ``data``, straight into its SQLite
    file (as ``lordsofwar admin grant-moderator`` does; that command is tested in test_moderation.py)."""
    with sqlite3.connect(data / "low.sqlite3") as conn:
        conn.execute(
            "INSERT INTO moderators (user_id, granted_at) SELECT id, '2026-01-01 00:00:00' FROM users WHERE name_key = ?",
            (name.lower(),),
        )


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    data = tmp_path_factory.mktemp("moderation")
    with running_server(data) as base:
        alice, bob, carol, dave = (Api(base, n) for n in ("alice", "bob", "carol", "dave"))
        r = alice.post("/api/invitations", {"opponent": "bob", "options": {"creator_side": "1"}})
        assert r.status_code == 201, r.text
        game = bob.post(f"/api/invitations/{r.json()['invitation']}/accept").json()["game"]
        said = []
        for p, text in ((alice, "good luck, have fun"), (bob, "you play like a goblin's grandmother"), (alice, "be nice")):
            r = p.post(f"/api/games/{game}/chat", {"text": text})
            assert r.status_code == 201, r.text
            said.append(r.json()["id"])
        grant_quickly(data, "carol")  # the command itself: tests/web/test_moderation.py
        yield {"base": base, "data": data, "game": game, "said": said, "alice": alice, "bob": bob, "carol": carol, "dave": dave}


def test_a_report_from_a_profile_and_a_ban_that_ends_a_session(browser: Any, site: dict[str, Any]) -> None:
    base, game, carol = site["base"], site["game"], site["carol"]
    # alice reports bob's message from the game's chat, with the keyboard (her own lines have no button)
    alice_ctx = browser.new_context(viewport={"width": 1366, "height": 900})
    alice = alice_ctx.new_page()
    sign_in(alice, base, "alice")
    visit(alice, f"{base}/games/{game}")
    bad = alice.locator(f"#chat-players li[data-id='{site['said'][1]}']")
    bad.wait_for()
    assert alice.locator(f"#chat-players li[data-id='{site['said'][0]}'] .chat-report").count() == 0
    for _ in range(3):  # the chat draws its lines again when the game's socket first sends the state
        bad.locator(".chat-report").focus()
        alice.keyboard.press("Enter")
        try:
            alice.wait_for_selector("#chat-report-reason:focus", timeout=3000)
            break
        except PlaywrightTimeout:
            continue
    # the Report button asks for the reason and the optional words, as the profile's form does
    assert "you play like a goblin" in alice.inner_text("#chat-report-title")
    reasons = alice.locator("#chat-report-reason option").evaluate_all("els => els.map(e => e.value)")
    assert reasons == ["abuse", "cheating", "spam", "name", "other"]
    alice.select_option("#chat-report-reason", "abuse")
    alice.keyboard.press("Tab")
    alice.keyboard.type("mocks my grandmother")
    shot(alice, "chat-report-desktop.png")
    alice.keyboard.press("Tab")
    alice.keyboard.press("Enter")
    alice.wait_for_function("() => document.getElementById('chat-error').textContent.includes('Thank you')")
    assert alice.locator("#chat-report").is_hidden()
    shot(alice, "moderation-report-from-chat.png")
    alice_ctx.close()

    # dave reports bob from bob's profile, with the keyboard
    dave_ctx = browser.new_context(viewport={"width": 1366, "height": 900})
    dave = dave_ctx.new_page()
    sign_in(dave, base, "dave")
    visit(dave, base + "/players/bob")
    dave.focus("#report summary")
    dave.keyboard.press("Enter")
    dave.focus("#report-reason")
    dave.select_option("#report-reason", "name")
    dave.keyboard.press("Tab")
    assert dave.evaluate("document.activeElement.id") == "report-text"
    dave.keyboard.type("a rude name")
    dave.keyboard.press("Tab")
    shot(dave, "report-from-profile.png")
    dave.keyboard.press("Enter")
    dave.wait_for_function("() => document.getElementById('report-status').textContent.includes('Thank you')")
    dave.click("#report-form button")  # again: one open report per player
    dave.wait_for_function("() => document.getElementById('report-status').textContent.includes('already reported')")
    visit(dave, base + "/settings")  # the chat's switch on the settings page
    assert dave.inner_text("#settings-chat-state").startswith("Chat is on")
    dave.locator("#chat-settings").scroll_into_view_if_needed()
    if SHOTS is not None:
        dave.screenshot(path=str(SHOTS / "settings-chat-desktop.png"))

    # bob plays, signed in, in his own browser
    bob_ctx = browser.new_context(viewport={"width": 1366, "height": 900})
    bob = bob_ctx.new_page()
    sign_in(bob, base, "bob")
    visit(bob, f"{base}/games/{game}")
    assert bob.evaluate("fetch('/api/session').then(r => r.json())")["user"]["name"] == "bob"
    with bob.expect_response(lambda r: "/api/moderation/notices" in r.url):
        visit(bob, base + "/friends")
    bob.wait_for_timeout(300)
    assert bob.locator("#nav-moderation").count() == 0  # the link is for moderators only
    visit(bob, f"{base}/games/{game}")

    # the moderator's queue shows both reports, as the API has them
    mod_ctx = browser.new_context(viewport={"width": 1366, "height": 900})
    mod = mod_ctx.new_page()
    sign_in(mod, base, "carol")
    visit(mod, base + "/moderation")
    queue = carol.http.get("/api/moderation/reports").json()
    shown = [int(a) for a in mod.locator("article.report").evaluate_all("els => els.map(e => e.dataset.report)")]
    assert shown == [r["id"] for r in queue["reports"]] and len(shown) == 2
    assert (queue["reports"][0]["reason"], queue["reports"][0]["text"]) == ("abuse", "mocks my grandmother")
    assert mod.inner_text("#nav-moderation") == "Moderation (2)"  # the top bar's link, with the open reports
    assert mod.inner_text("#queue-order a[aria-current=page]") == "oldest first"
    first = mod.locator(f"#report-{shown[0]}")
    assert first.locator(".reported").inner_text() == "bob: you play like a goblin's grandmother"
    assert first.locator(".report-chat li").all_inner_texts()[0] == "alice: good luck, have fun"
    assert first.locator(".game-link").get_attribute("href") == f"/games/{game}"
    assert "a rude name" in mod.locator(f"#report-{shown[1]}").inner_text()
    shot(mod, "moderation-queue.png", full_page=True)

    # a ban from the first report's form, with the keyboard
    first.locator("select[name=action]").select_option("ban")
    first.locator("select[name=days]").select_option("7")
    first.locator("textarea[name=reason]").focus()
    mod.keyboard.type("insults in the chat")
    mod.keyboard.press("Tab")
    mod.keyboard.press("Enter")
    mod.wait_for_function("() => document.getElementById('moderation-status').textContent.includes('banned')")
    assert mod.locator("article.report").count() == 0  # both reports about bob are settled
    assert mod.is_visible("#no-reports")
    assert carol.http.get("/api/moderation/reports").json()["open"] == 0
    assert "0" in mod.inner_text("#open-count")

    # bob's browser is signed out, and sign-in names the ban
    assert bob.evaluate("fetch('/api/session').then(r => r.json())")["user"] is None
    visit(bob, f"{base}/games/{game}")
    assert bob.is_visible("a[href='/signin']")
    visit(bob, base + "/signin")
    bob.fill("input[name=name]", "bob")
    bob.fill("input[name=password]", "password-123")
    bob.click("#signin-submit")
    error = bob.inner_text("#form-error")
    assert "banned" in error and "insults in the chat" in error
    shot(bob, "signin-banned.png")
    for ctx in (dave_ctx, bob_ctx, mod_ctx):
        ctx.close()


def test_a_warning_is_read_once_and_the_queue_fits_a_phone(browser: Any, site: dict[str, Any]) -> None:
    base, carol, dave = site["base"], site["carol"], site["dave"]
    r = carol.post("/api/moderation/actions", {"action": "warn", "player": "alice", "reason": "Keep the chat friendly."})
    assert r.status_code == 201, r.text
    ctx = browser.new_context(viewport=PHONE)
    page = ctx.new_page()
    sign_in(page, base, "alice")
    page.wait_for_selector(".moderation-notice")
    assert "Keep the chat friendly." in page.inner_text(".moderation-notice")
    shot(page, "moderation-warning-phone.png")
    page.focus(".moderation-notice button")
    page.keyboard.press("Enter")
    page.wait_for_selector(".moderation-notice", state="detached")
    assert site["alice"].http.get("/api/moderation/notices").json()["notices"] == []
    visit(page, base + "/")
    page.wait_for_timeout(300)
    assert page.locator(".moderation-notice").count() == 0
    ctx.close()

    assert dave.post("/api/reports", {"reason": "spam", "text": "links to another site " * 5, "player": "alice"}).status_code == 201
    ctx = browser.new_context(viewport=PHONE)
    page = ctx.new_page()
    sign_in(page, base, "carol")
    visit(page, base + "/moderation")
    assert page.locator("article.report").count() == 1
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], width
    shot(page, "moderation-queue-phone.png", full_page=True)
    ctx.close()


def test_the_chat_report_form_and_the_chat_setting_fit_a_phone(browser: Any, site: dict[str, Any]) -> None:
    """On a 390 px phone: the chat's report form opens for a message and Escape closes it (the
    focus back on the button, nothing sent); the settings page turns chat off, and the game's
    chat panel shows it off too (one setting, two places)."""
    base, game, alice = site["base"], site["game"], site["alice"]
    reports = len(site["carol"].http.get("/api/moderation/reports").json()["reports"])
    ctx = browser.new_context(viewport=PHONE)
    page = ctx.new_page()
    sign_in(page, base, "alice")
    visit(page, f"{base}/games/{game}")
    line = page.locator(f"#chat-players li[data-id='{site['said'][1]}']")
    line.wait_for()
    for _ in range(3):  # the chat draws its lines again when the game's socket first sends the state
        line.locator(".chat-report").click()
        try:
            page.wait_for_selector("#chat-report-reason:focus", timeout=3000)
            break
        except PlaywrightTimeout:
            continue
    page.select_option("#chat-report-reason", "other")
    page.locator("#chat-report").scroll_into_view_if_needed()
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], width
    if SHOTS is not None:
        page.locator("#chat").screenshot(path=str(SHOTS / "chat-report-phone.png"))
    page.keyboard.press("Escape")
    assert page.locator("#chat-report").is_hidden()
    assert page.evaluate("document.activeElement.classList.contains('chat-report')")
    assert len(site["carol"].http.get("/api/moderation/reports").json()["reports"]) == reports

    visit(page, base + "/settings")
    assert page.inner_text("#settings-chat-submit") == "Turn chat off"
    page.locator("#chat-settings").scroll_into_view_if_needed()
    if SHOTS is not None:
        page.screenshot(path=str(SHOTS / "settings-chat-phone.png"))
    page.click("#settings-chat-submit")
    page.wait_for_url("**/settings#chat-settings")
    assert page.inner_text("#settings-chat-submit") == "Turn chat on"
    assert alice.http.get("/api/chat/settings").json() == {"enabled": False}
    visit(page, f"{base}/games/{game}")
    page.wait_for_selector("#chat-off", state="visible")
    page.click("#chat-on")  # the panel's switch: the settings page follows
    page.wait_for_selector("#chat-off", state="hidden")
    visit(page, base + "/settings")
    assert page.inner_text("#settings-chat-submit") == "Turn chat off"
    ctx.close()

"""The game chat as players and a spectator see it, in Debian's Chromium against a real
`lordsofwar serve`: a German player and a Polish one chat beside the mat while a spectator
(English) chats apart; a quick phrase is read in each reader's language; tags, an image with an
onerror handler, links and a right-to-left override are shown as plain text; the chat turned off
shows and receives nothing; the screen-reader mode makes the rooms polite live regions; the
panel fits a 390 px phone.

Set LOW_SCREENSHOT_DIR (e.g. docs/screenshots) to keep screenshots of the chat (desktop, phone).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.server import chromium_path, running_server
from tests.web.test_browser_accessibility import AXE, audit
from tests.web.test_browser_game_page import api

CHROMIUM = chromium_path()
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (scripts/install-browser)")

SHOTS = Path(os.environ["LOW_SCREENSHOT_DIR"]) if os.environ.get("LOW_SCREENSHOT_DIR") else None
WIDE = {"width": 1366, "height": 900}
PHONE = {"width": 390, "height": 844}
LOCALES = {"de": "de-DE", "pl": "pl-PL", "en": "en-GB"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with running_server(tmp_path_factory.mktemp("server")) as base:
        yield base


def sign_up(browser: Any, base: str, name: str, lang: str) -> Any:
    context = browser.new_context(viewport=WIDE, locale=LOCALES[lang], extra_http_headers={"Accept-Language": lang})
    page = context.new_page()
    page.set_default_timeout(10_000)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.js_errors = errors
    page.goto(base + "/signup")
    page.fill("input[name=name]", name)
    page.fill("input[name=password]", "password-123")
    page.fill("input[name=password2]", "password-123")
    page.click("#signup-submit")
    page.wait_for_selector("#new-game-form")
    return page


def open_chat(page: Any, base: str, game: int) -> None:
    page.goto(f"{base}/games/{game}")
    page.wait_for_selector("#conn", state="hidden")  # the live connection is up
    page.wait_for_selector("#chat:not([hidden])")


def lines(page: Any, room: str) -> list[str]:
    return [str(t) for t in page.locator(f"#chat-{room} .chat-text").all_text_contents()]


def wait_line(page: Any, room: str, text: str) -> None:
    page.wait_for_function(
        "([room, text]) => [...document.querySelectorAll(`#chat-${room} .chat-text`)].some((e) => e.textContent === text)",
        arg=[room, text],
    )


def type_message(page: Any, text: str, sent: bool = True) -> None:
    """Write with the keyboard alone: the box has the focus, Enter sends (a message sent
    empties the box; a refused one stays in it)."""
    page.focus("#chat-input")
    page.keyboard.insert_text(text)
    page.keyboard.press("Enter")
    if sent:
        page.wait_for_function("() => document.querySelector('#chat-input').value === ''")


def shot(page: Any, name: str) -> None:
    if SHOTS is not None:
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.locator("#chat").scroll_into_view_if_needed()
        page.wait_for_timeout(150)
        page.screenshot(path=str(SHOTS / name))


def test_players_and_a_spectator_chat_apart(browser: Any, server: str) -> None:
    alice, bob, carol = (
        sign_up(browser, server, "alice", "de"),
        sign_up(browser, server, "bob", "pl"),
        sign_up(browser, server, "carol", "en"),
    )
    options = {"creator_side": "1", "creator_army": "orcs", "opponent_army": "dwarves"}
    invitation = api(alice, "POST", "/api/invitations", {"opponent": "bob", "options": options})
    game = int(api(bob, "POST", f"/api/invitations/{invitation['body']['invitation']}/accept")["body"]["game"])
    for page in (alice, bob, carol):
        open_chat(page, server, game)
    assert alice.locator("#chat-form").is_visible() and carol.locator("#chat-form").is_visible()
    assert carol.locator("#chat-players").is_hidden() and alice.locator("#chat-spectators").is_hidden()

    # hostile texts arrive as the characters typed, nothing runs or links
    hostile = [
        "<script>window.pwned = 1</script>",
        '<img src="x" onerror="window.pwned = 2">',
        "see https://example.com/free-gold",
    ]
    for i, text in enumerate(hostile):  # from both players (each may write 5 in 10 seconds)
        writer, reader = (alice, bob) if i % 2 == 0 else (bob, alice)
        type_message(writer, text)
        wait_line(reader, "players", text)
    type_message(bob, "abc\u202edef\u2066ghi")
    wait_line(alice, "players", "abcdefghi")  # the override and isolate removed: nothing turns round
    for page in (alice, bob):
        assert page.evaluate("() => window.pwned") is None
        assert page.locator("#chat script, #chat img, #chat a").count() == 0
        assert lines(page, "players") == [*hostile, "abcdefghi"]

    # a quick phrase, sent with the keyboard, read in each player's language
    alice.focus("#chat-phrases [data-phrase=good_luck]")
    alice.keyboard.press("Enter")
    wait_line(alice, "players", "Viel Glück")
    wait_line(bob, "players", "Powodzenia")
    assert alice.locator("#chat-phrases [data-phrase=good_luck]").text_content() == "Viel Glück"

    # the spectators' room: the spectator writes, the players never see it while the game runs
    type_message(carol, "go alice")
    wait_line(carol, "spectators", "go alice")
    assert lines(carol, "players") == [] and carol.locator("#chat-players").is_hidden()
    type_message(bob, "danke")  # sent after carol's: once alice has it, carol's would have come
    wait_line(alice, "players", "danke")
    for page in (alice, bob):
        assert "go alice" not in page.locator("#chat").inner_text()
        assert page.locator("#chat-spectators").is_hidden()
    assert "danke" not in carol.locator("#chat").inner_text()

    # the screen-reader mode makes new messages polite announcements
    assert alice.locator("#chat-players .chat-log").get_attribute("aria-live") == "off"
    alice.click("#btn-sr")
    alice.wait_for_function("() => document.querySelector('#chat-players .chat-log').getAttribute('aria-live') === 'polite'")
    alice.click("#btn-sr")

    if AXE.exists():  # axe-core finds nothing serious in the panel (scripts/install-browser installs it)
        problems = [line for line in audit(alice, "the chat of a game") if "#chat" in line]
        assert not problems, "\n".join(problems)
    shot(alice, "chat-game-desktop.png")
    phone = browser.new_context(viewport=PHONE, storage_state=bob.context.storage_state(), locale="pl-PL").new_page()
    open_chat(phone, server, game)
    assert phone.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
    box = phone.locator("#chat").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    shot(phone, "chat-game-phone.png")
    phone.context.close()

    # chat turned off: the panel says so and nothing comes; on again, the history is there
    bob.click("#chat-toggle")
    bob.wait_for_selector("#chat-off:not([hidden])")
    assert bob.locator("#chat-body").is_hidden()
    type_message(alice, "are you still there?")
    wait_line(alice, "players", "are you still there?")
    bob.wait_for_timeout(300)
    assert "are you still there?" not in bob.locator("#chat").inner_text()
    answer = api(bob, "POST", f"/api/games/{game}/chat", {"text": "hi"})
    assert answer["status"] == 409  # the server refuses too
    bob.focus("#chat-on")
    bob.keyboard.press("Enter")
    wait_line(bob, "players", "are you still there?")
    assert bob.evaluate("() => document.activeElement && document.activeElement.id") == "chat-input"

    # a refusal is shown: the same message twice
    type_message(bob, "danke", sent=False)
    bob.wait_for_selector("#chat-error:not([hidden])")
    assert bob.locator("#chat-error").text_content() == "ta wiadomość została już wysłana przed chwilą"
    assert bob.locator("#chat-input").input_value() == "danke"  # kept, to change it

    # the game ends: its players may read the spectators now, and the replay keeps both
    assert api(alice, "POST", f"/api/games/{game}/resign")["status"] == 200
    wait_line(alice, "spectators", "go alice")
    alice.goto(f"{server}/games/{game}/replay")
    alice.wait_for_selector("#chat:not([hidden])")
    wait_line(alice, "players", "Viel Glück")
    wait_line(alice, "spectators", "go alice")
    assert alice.locator("#chat-form").count() == 0  # read only
    carol.goto(f"{server}/games/{game}/replay")
    wait_line(carol, "spectators", "go alice")
    assert carol.locator("#chat-players").is_hidden()
    for page in (alice, bob, carol):
        assert page.js_errors == []

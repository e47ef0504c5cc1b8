"""Friends, presence and blocking in two real browsers: follow a player from their profile with
the keyboard, see them online on the friends page, challenge them in one click (the challenge
reaches them); a block withdraws the challenge, stops the next one with a clear refusal, hides
the blocker's presence and is never shown to the blocked player; unblocked from the friends page.

Set LOW_SCREENSHOT_DIR (e.g. docs/screenshots) to keep screenshots of the friends page and a
profile's buttons (desktop and phone)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.web.test_browser import CHROMIUM, server, shot, sign_up, visit  # noqa: F401 - the server fixture

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (scripts/install-browser)")


def friend_online(page: Any, base: str, name: str, expected: bool, tries: int = 20) -> None:
    """Reload the friends page until it shows ``name`` online (or offline)."""
    want = "on" if expected else "off"
    for _ in range(tries):
        visit(page, base + "/friends")
        dot = page.locator(f'li[data-friend="{name}"] [data-presence]')
        if want in (dot.get_attribute("class") or "").split():
            return
        page.wait_for_timeout(250)
    raise AssertionError(f"{name} never shown {'online' if expected else 'offline'}")


def api(page: Any, method: str, path: str) -> Any:
    return page.evaluate(
        """async ([method, path]) => {
          const csrf = document.querySelector('meta[name="csrf-token"]').content;
          const r = await fetch(path, {method, headers: {'X-CSRF-Token': csrf}});
          return {status: r.status, body: await r.json()};
        }""",
        [method, path],
    )


def test_follow_see_online_challenge_and_block(browser: Any, server: str) -> None:  # noqa: F811 - the imported fixture
    ann = sign_up(browser, server, "soc_ann")
    ben = sign_up(browser, server, "soc_ben")  # his lobby stays open: its presence socket counts

    # follow from the profile, with the keyboard; the result is said in the live region
    visit(ann, server + "/players/soc_ben")
    ann.focus("#follow-button")
    ann.keyboard.press("Enter")
    ann.wait_for_selector("#social-status:has-text('You follow soc_ben')")
    assert ann.inner_text("#follow-button") == "Unfollow"
    assert ann.get_attribute("#social-status", "aria-live") == "polite"
    assert api(ann, "GET", "/api/friends")["body"]["friends"] == [{"name": "soc_ben", "online": True}]

    # the friends page: ben online, as the server says
    friend_online(ann, server, "soc_ben", True)
    assert "online" in ann.inner_text('li[data-friend="soc_ben"]')
    shot(ann, "friends-desktop.png")
    ann.set_viewport_size({"width": 390, "height": 844})
    shot(ann, "friends-phone.png", full_page=True)
    ann.set_viewport_size({"width": 1366, "height": 768})

    # one click challenges him: the challenge reaches his lobby
    ann.focus('li[data-friend="soc_ben"] .challenge-form button')
    ann.keyboard.press("Enter")
    ann.wait_for_selector("text=Invitation posted.")
    assert "to soc_ben" in ann.inner_text("#invitations")
    visit(ben, server + "/")
    assert "soc_ann" in ben.inner_text("#invitations")
    incoming = api(ben, "GET", "/api/lobby")["body"]["incoming"]
    assert [i["creator"] for i in incoming] == ["soc_ann"]

    # ben blocks ann from her profile: the challenge is withdrawn
    visit(ben, server + "/players/soc_ann")
    shot(ben, "profile-social.png")
    ben.click("#block-button")
    ben.wait_for_selector("#social-status:has-text('You block soc_ann')")
    assert ben.inner_text("#block-button") == "Unblock"
    assert api(ben, "GET", "/api/lobby")["body"]["incoming"] == []
    visit(ben, server + "/")  # his lobby is open again: he is online, but not to her

    # ann: ben shown offline, her profile view of him says nothing of the block, her challenge refused
    friend_online(ann, server, "soc_ben", False, tries=3)
    visit(ann, server + "/players/soc_ben")
    assert ann.inner_text("#block-button") == "Block"
    assert ann.inner_text("#presence") == "offline"  # as any player offline: the block stays untold
    assert ann.get_attribute("#social", "data-blocking") == "false"
    assert "blocks you" not in ann.inner_text("main") and "blocked" not in ann.inner_text("main").lower()
    visit(ann, server + "/friends")
    ann.click('li[data-friend="soc_ben"] .challenge-form button')
    ann.wait_for_selector("#lobby-error")
    assert "You cannot challenge soc_ben" in ann.inner_text("#lobby-error")
    assert "block" not in ann.inner_text("#lobby-error").lower()
    assert api(ann, "GET", "/api/lobby")["body"]["outgoing"] == []

    # ben's friends page lists the block; unblocking empties the list and she can challenge again
    visit(ben, server + "/friends")
    assert ben.inner_text("#block-list").strip().startswith("soc_ann")
    ben.focus('#block-list button.unblock[data-name="soc_ann"]')
    ben.keyboard.press("Enter")
    ben.wait_for_selector("#blocks-status:has-text('You no longer block soc_ann')")
    ben.wait_for_selector("#no-blocks:not([hidden])")
    assert api(ben, "GET", "/api/friends")["body"]["blocks"] == []
    assert api(ann, "POST", "/api/players/soc_ben/follow")["status"] == 200
    ann.context.close()
    ben.context.close()

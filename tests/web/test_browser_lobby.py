"""The lobby in a real browser: a refused challenge keeps the form as it was and says why; a
challenger sees, without reloading, that a challenge was accepted (a notice and the tab title)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.web.test_browser import CHROMIUM, server, sign_up, visit  # noqa: F401 - the server fixture

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (scripts/install-browser)")


def test_a_refused_challenge_is_explained_in_the_lobby_with_the_form_kept(browser: Any, server: str) -> None:  # noqa: F811 - the imported fixture
    page = sign_up(browser, server, "lobby_ann")
    page.check("input[name=against][value=player]")
    page.fill("#opponent-name", "no-such-player")
    page.select_option("select[name=rules]", "basic")
    page.select_option("select[name=length]", "25/5")
    page.check("input[name=mode][value=turn]")
    page.select_option("select[name=days]", "6")
    page.uncheck("input[name=public]")
    page.click("#create-game")
    page.wait_for_selector("#lobby-error")
    assert "There is no player called 'no-such-player'" in page.inner_text("#lobby-error")
    assert page.is_visible("text=Sign out")  # still signed in, in the lobby
    assert page.input_value("#opponent-name") == "no-such-player"
    assert page.is_checked("input[name=against][value=player]")
    assert page.input_value("select[name=rules]") == "basic"
    assert page.input_value("select[name=length]") == "25/5"
    assert page.is_checked("input[name=mode][value=turn]")
    assert page.input_value("select[name=days]") == "6"
    assert not page.is_checked("input[name=public]")
    page.context.close()


def test_the_challenger_sees_the_challenge_accepted(browser: Any, server: str) -> None:  # noqa: F811 - the imported fixture
    ann = sign_up(browser, server, "lobby_bea")
    ben = sign_up(browser, server, "lobby_ben")
    ann.check("input[name=against][value=player]")
    ann.fill("#opponent-name", "lobby_ben")
    ann.click("#create-game")
    ann.wait_for_selector("text=Invitation posted.")
    title = ann.title()
    visit(ben, server + "/")
    ben.click("#invitations .accept-form button")
    ben.wait_for_url("**/games/*")
    ann.wait_for_selector("#challenge-accepted:not([hidden])", timeout=20_000)
    assert "lobby_ben accepted your challenge" in ann.inner_text("#challenge-accepted")
    assert ann.title().startswith("Challenge accepted") and ann.title() != title
    ann.click("#challenge-accepted a")
    ann.wait_for_url("**/games/*")
    ann.context.close()
    ben.context.close()

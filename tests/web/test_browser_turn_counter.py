"""The turn counter in a real browser, held to what the server says: the nav's badge shows the
count of GET /api/your-turn, the tab's title starts with it, it follows the opponent's move
without a reload, and the game on the screen is left out. With notifications opted into (and the
permission granted), a hidden tab shows exactly one notification for a game that starts waiting,
whose click opens the game; without the permission, none.

The poll interval is shortened with localStorage low.turns.poll (1 s visible, 3 s hidden); the
tab is "hidden" by overriding document.visibilityState and sending visibilitychange; the
browser's Notification is wrapped to record what would be shown.

Set LOW_SCREENSHOT_DIR (e.g. docs/screenshots) to keep turn-counter.png.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.web.hooks import low
from tests.web.test_browser import CHROMIUM, server, shot, sign_up, visit  # noqa: F401 - the server fixture

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (scripts/install-browser)")

WATCHED = """
(() => {
  try { localStorage.setItem('low.turns.poll', '1'); } catch (e) { /* about:blank */ }
  window.__hidden = false;
  Object.defineProperty(Document.prototype, 'visibilityState', {
    configurable: true, get() { return window.__hidden ? 'hidden' : 'visible'; } });
  Object.defineProperty(Document.prototype, 'hidden', { configurable: true, get() { return window.__hidden; } });
  window.__hide = (hidden) => { window.__hidden = hidden; document.dispatchEvent(new Event('visibilitychange')); };
  window.__polls = 0;
  const realFetch = window.fetch;
  window.fetch = function (url, ...rest) {
    if (String(url).startsWith('/api/your-turn')) window.__polls += 1;
    return realFetch.call(this, url, ...rest);
  };
  const Real = window.Notification;
  window.__notes = [];
  class Recorded {
    constructor(title, options) { this.title = title; this.options = options || {}; window.__notes.push(this); }
    close() { this.closed = true; }
    static get permission() { return Real.permission; }
    static requestPermission() { return Real.requestPermission(); }
  }
  window.Notification = Recorded;
})();
"""


def watched(page: Any, server: str, granted: bool) -> None:  # noqa: F811 - the fixture's name
    context = page.context
    if granted:
        context.grant_permissions(["notifications"], origin=server)
    context.add_init_script(WATCHED)


def csrf(page: Any) -> str:
    return str(page.get_attribute("meta[name=csrf-token]", "content"))


def api(page: Any, method: str, path: str, body: Any = None) -> Any:
    """A request with the page's own session (Playwright shares the context's cookies)."""
    base = page.url.split("/", 3)[:3]
    url = "/".join(base) + path
    if method == "GET":
        r = page.request.get(url)
    else:
        r = page.request.post(url, data=body or {}, headers={"X-CSRF-Token": csrf(page)})
    assert r.ok, f"{method} {path}: {r.status} {r.text()}"
    return r.json()


def challenge(creator: Any, opponent: Any, name: str, side: str) -> int:
    """A game from a direct challenge; ``side`` is the creator's seat (seat 1 plays first)."""
    inv = api(creator, "POST", "/api/invitations", {"opponent": name, "options": {"creator_side": side}})["invitation"]
    return int(api(opponent, "POST", f"/api/invitations/{inv}/accept")["game"])


def end_turn(page: Any, game: int) -> None:
    """Deploy the first card offered, then draw (the opening turn)."""
    for _ in range(2):
        state = api(page, "GET", f"/api/games/{game}")
        api(
            page,
            "POST",
            f"/api/games/{game}/actions",
            {"action": state["legal"][0], "version": state["game"]["version"]},
        )


def shown(page: Any) -> int:
    """The count the badge shows, once the first answer is in."""
    page.wait_for_selector("#turn-counter[data-count]", state="attached")
    count = int(page.get_attribute("#turn-counter", "data-count"))
    if count:
        assert page.is_visible("#turn-counter")
        assert page.text_content("#turn-counter") == f"{count} game{'s' if count != 1 else ''} waiting"
        assert page.title().startswith(f"({count}) ")
    else:
        assert not page.is_visible("#turn-counter") and not page.title().startswith("(")
    return count


def wait_count(page: Any, count: int) -> None:
    page.wait_for_function(
        "n => document.getElementById('turn-counter').dataset.count === String(n)", arg=count, timeout=10_000
    )


def wait_polls(page: Any, more: int) -> None:
    """Until the page has asked the server ``more`` more times."""
    seen = page.evaluate("() => window.__polls")
    page.wait_for_function("n => window.__polls >= n", arg=seen + more, timeout=15_000)


def test_the_badge_and_the_title_follow_the_server_and_a_hidden_tab_notifies_once(browser: Any, server: str) -> None:  # noqa: F811
    amy = sign_up(browser, server, "turn_amy")
    ben = sign_up(browser, server, "turn_ben")
    watched(amy, server, granted=True)
    first = challenge(amy, ben, "turn_ben", "1")  # amy plays first: waiting for her
    second = challenge(amy, ben, "turn_ben", "1")
    third = challenge(ben, amy, "turn_amy", "1")  # ben plays first: not yet

    visit(amy, server + "/")
    assert shown(amy) == api(amy, "GET", "/api/your-turn")["count"] == 2
    assert amy.get_attribute("#turn-counter", "href") == "/#your-turn"
    # the lobby's own news stays in the title, after the count
    assert amy.title() == "(2) Challenge accepted · Lobby · Lords of War"
    assert amy.inner_text("#your-turn h2 .badge") == "2"  # the lobby's own list agrees

    # on a game's page that game is not counted, and the one left is a link to it
    visit(amy, f"{server}/games/{first}")
    low(amy).wait_for_function("() => window.LoW && window.LoW.live && window.LoW.live.S.game !== null")
    wait_count(amy, 1)
    assert shown(amy) == api(amy, "GET", f"/api/your-turn?exclude={first}")["count"] == 1
    assert amy.get_attribute("#turn-counter", "href") == f"/games/{second}"
    assert amy.get_attribute("#turn-counter", "title") == "Your turn against turn_ben"
    assert amy.title().startswith("(1) ") and f"Game {first}" in amy.title()

    # opting in: the permission is granted already, the click keeps the choice
    visit(amy, server + "/")
    wait_count(amy, 2)
    assert amy.title() == "(2) Lobby · Lords of War"  # the lobby's news was told once
    assert amy.inner_text("#turn-notify") == "Notify me"
    amy.click("#turn-notify")
    amy.wait_for_selector("#turn-notify[aria-pressed=true]")
    assert amy.inner_text("#turn-notify") == "✓ Notifying"
    assert amy.evaluate("() => localStorage.getItem('low.notify')") == "on"
    shot(amy, "turn-counter.png")

    # the tab goes to the background; ben moves in the third game: it waits for amy now
    amy.evaluate("() => window.__hide(true)")
    wait_polls(amy, 1)
    assert amy.evaluate("() => window.__notes.length") == 0
    end_turn(ben, third)
    wait_count(amy, 3)
    assert shown(amy) == api(amy, "GET", "/api/your-turn")["count"] == 3
    wait_polls(amy, 2)  # asked again since: still that one notification
    notes = amy.evaluate("() => window.__notes.map((n) => ({title: n.title, tag: n.options.tag}))")
    assert notes == [{"title": "Your turn against turn_ben", "tag": f"low-turn-{third}"}]

    # back in front; amy ends her turn in the first game elsewhere: the count goes down
    amy.evaluate("() => window.__hide(false)")
    end_turn(amy, first)
    wait_count(amy, 2)
    assert shown(amy) == api(amy, "GET", "/api/your-turn")["count"] == 2
    assert amy.evaluate("() => window.__notes.length") == 1

    # the notification's click opens its game
    amy.evaluate("() => window.__notes[0].onclick()")
    amy.wait_for_url(f"**/games/{third}")
    amy.context.close()
    ben.context.close()


def test_no_notification_without_the_permission(browser: Any, server: str) -> None:  # noqa: F811
    cat = sign_up(browser, server, "turn_cat")
    dan = sign_up(browser, server, "turn_dan")
    watched(cat, server, granted=False)
    game = challenge(dan, cat, "turn_cat", "1")  # dan first
    visit(cat, server + "/")
    cat.evaluate("() => localStorage.setItem('low.notify', 'on')")  # an opt-in from before the permission went
    assert shown(cat) == 0
    cat.evaluate("() => window.__hide(true)")
    end_turn(dan, game)
    wait_count(cat, 1)
    wait_polls(cat, 1)
    assert cat.evaluate("() => window.__notes.length") == 0
    assert cat.get_attribute("#turn-notify", "aria-pressed") == "false"
    cat.context.close()
    dan.context.close()

"""A tournament in a real browser: a player creates one, others register from the page, the
creator starts it, a player plays their tournament game from the tournament page, and the
standings (which update by themselves) and the player's new rating show the result.

With LOW_SCREENSHOT_DIR set, keeps docs/screenshots/tournament.png.
"""

from __future__ import annotations

from typing import Any

from tests.web.test_browser import server, shot, sign_up, visit, wait_live  # noqa: F401 - fixtures


def test_register_play_and_see_the_standings_and_the_rating(browser: Any, server: str) -> None:  # noqa: F811
    host = sign_up(browser, server, "hostess")
    visit(host, server + "/tournaments")
    host.fill("#new-tournament-form input[name=name]", "Autumn Swiss")
    host.fill("#new-tournament-form input[name=rounds]", "3")
    host.click("#new-tournament-form button:has-text('Create')")
    host.wait_for_url("**/tournaments/*")
    url = host.url
    assert "open for registration" in host.inner_text("#tournament")

    pages = {}
    for name, army in (("ulla", "orcs"), ("viggo", "elves"), ("wanda", "random")):
        page = sign_up(browser, server, name)
        visit(page, url)
        page.select_option("select[name=army]", army)
        page.click("#tournament button:has-text('Join')")
        page.wait_for_selector("#tournament button:has-text('Withdraw')")
        pages[name] = page
    visit(host, url)
    assert host.locator("#standings tbody tr").count() == 3
    host.click("#tournament button:has-text('Start now')")
    host.wait_for_selector(".round h2:has-text('Round 1')")
    board = host.locator(".round tbody tr:has(a.button)").first
    white, black = board.locator("td").nth(1).inner_text(), board.locator("td").nth(2).inner_text()
    assert {white, black} <= set(pages)

    # The player with the bye's page shows the round; the black player resigns their game.
    loser = pages[black]
    visit(loser, url)
    loser.click(".round tbody tr:has(a.button) a.button >> nth=0")
    loser.wait_for_url("**/games/*")
    wait_live(loser)
    loser.click("#btn-resign")
    loser.click("#btn-resign-confirm")
    loser.wait_for_selector("#result:not([hidden])")
    assert f"{black} 1500 →" in loser.inner_text("#result")

    # The winner's open tournament page reloads by itself with the new standings.
    winner = pages[white]
    visit(winner, url)
    winner.wait_for_selector(f"#standings tbody tr:first-child:has-text('{white}')", timeout=20_000)
    assert "1.0" in winner.locator("#standings tbody tr:first-child").inner_text()
    shot(winner, "tournament.png", full_page=True)
    visit(winner, server + f"/players/{white}")
    card = winner.locator('.rating-card[data-pool="live"]').inner_text()
    assert "1 rated game" in card and "1 won" in card

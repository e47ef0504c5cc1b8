"""A tournament in a real browser: a player creates one, others register from the page, the
creator starts it, a player plays their tournament game from the tournament page, and the
standings (which update by themselves) and the player's new rating show the result.

With LOW_SCREENSHOT_DIR set, keeps docs/screenshots/tournament.png.
"""

from __future__ import annotations

from typing import Any

from lordsofwar.bots import BOTS
from tests.web.conftest import play_opening_in_pages
from tests.web.test_browser import server, shot, sign_up, visit, wait_live  # noqa: F401 - fixtures


def create(host: Any, server: str, name: str, kind: str = "swiss", rounds: str = "5") -> str:  # noqa: F811
    """Create a tournament from the tournaments page; its page's address."""
    visit(host, server + "/tournaments")
    host.fill("#new-tournament-form input[name=name]", name)
    host.select_option("#new-tournament-form select[name=kind]", kind)
    if kind == "swiss":
        host.fill("#new-tournament-form input[name=rounds]", rounds)
    host.click("#new-tournament-form button:has-text('Create')")
    host.wait_for_url("**/tournaments/*")
    return str(host.url)


def test_register_play_and_see_the_standings_and_the_rating(browser: Any, server: str) -> None:  # noqa: F811
    host = sign_up(browser, server, "hostess")
    url = create(host, server, "Autumn Swiss", rounds="3")
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
    play_opening_in_pages(int(loser.url.rstrip("/").split("/")[-1]), pages[white], loser)  # not an aborted game
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


def test_the_creator_enters_bots_and_they_play(browser: Any, server: str) -> None:  # noqa: F811
    """The Enter-a-bot form offers exactly the levels the server would take (with their measured
    ratings); an entered bot leaves the list, shows in the table with Remove, and plays."""
    import time

    import httpx

    host = sign_up(browser, server, "organiser")
    url = create(host, server, "Bots' league", kind="round_robin")
    tid = url.rstrip("/").rsplit("/", 1)[1]

    def offered() -> list[tuple[str, str]]:
        return [(o.get_attribute("value") or "", o.inner_text()) for o in host.locator("#enter-bot select[name=level] option").all()]

    def allowed() -> list[tuple[str, str]]:
        detail = host.request.get(f"{server}/api/tournaments/{tid}").json()
        # a level not yet on the measured ladder shows its name alone
        return [
            (b["level"], b["name"] if b["rating"] is None else f"{b['name']} ({b['rating']})")
            for b in detail["bot_levels"]
        ]

    assert offered() == allowed() and len(offered()) == len(BOTS)
    for level, army in (("greedy", "orcs"), ("random", "undead")):
        host.select_option("#enter-bot select[name=level]", level)
        host.select_option("#enter-bot select[name=army]", army)
        host.click("#enter-bot button")
        host.wait_for_selector(f"#standings a:has-text('{level.capitalize()} bot')")
        assert level not in [v for v, _ in offered()] and offered() == allowed()
    assert host.locator("#standings form.remove-bot").count() == 2
    assert "games against bots are casual" in host.inner_text("#tournament")
    shot(host, "tournament-enter-bot.png")
    player = sign_up(browser, server, "challenger")
    visit(player, url)
    assert player.locator("#enter-bot").count() == 0 and player.locator("form.remove-bot").count() == 0
    player.click("#tournament button:has-text('Join')")
    player.wait_for_selector("#tournament button:has-text('Withdraw')")
    visit(host, url)
    host.click("#tournament button:has-text('Start now')")
    host.wait_for_selector(".round h2:has-text('Round 1')")
    # the round's game between the two bots (or the one against the player) plays itself out
    # wherever it falls; the player resigns theirs, and every round ends
    for _ in range(3):
        detail = httpx.get(f"{server}/api/tournaments/{tid}").json()
        if detail["status"] == "finished":
            break
        board = next(b for b in detail["rounds_played"][-1]["boards"] if "challenger" in (b["white"], b["black"]))
        if board["game"] is not None and board["result"] is None:
            visit(player, f"{server}/games/{board['game']}")
            wait_live(player)
            player.click("#btn-resign")
            player.click("#btn-resign-confirm")
            player.wait_for_selector("#result:not([hidden])")
        deadline = time.monotonic() + 120
        while True:
            now = httpx.get(f"{server}/api/tournaments/{tid}").json()
            if now["status"] == "finished" or now["current_round"] > detail["current_round"]:
                break
            assert time.monotonic() < deadline, f"round {detail['current_round']} did not end: {now['rounds_played'][-1]}"
            time.sleep(0.1)
    visit(host, url)
    host.wait_for_selector("#tournament:has-text('finished')")
    names = host.locator("#standings tbody tr td:nth-child(2)").all_inner_texts()
    assert sorted(names) == ["Greedy bot", "Random bot", "challenger"] and names[-1] == "challenger"  # resigned twice
    assert host.locator("#standings form.remove-bot").count() == 0  # over: nothing to remove
    shot(host, "tournament-bots.png", full_page=True)

"""A new player's first rated games show (SQLite and PostgreSQL): the leaderboard lists the
provisional players, marked and explained, below the settled ones; a signed-in player reads their
own position; the profile's rating chart starts at the rating before the first game, so one game
draws a line, and its time labels differ."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

from sqlalchemy import create_engine, select, update

from lordsofwar.web.models import User, utcnow
from lordsofwar.web.ratings import service as ratings
from tests.web.conftest import Player, new_game


def rate(client: Any, players: dict[str, Player], results: list[tuple[str, str, int | None]]) -> list[int]:
    """Rate a game for each ``(player 1, player 2, winner)`` as the end of a rated game does;
    the games' numbers."""
    engine = create_engine(client.app.state.settings.sync_url())
    users = User.__table__
    games = []
    try:
        for one, two, winner in results:
            game = new_game(players[one], players[two], rated=True)
            with engine.begin() as conn:
                ids = dict(conn.execute(select(users.c.name, users.c.id)).all())
                ratings.rate_game(conn, game, "live", (ids[one], ids[two]), winner)
            games.append(game)
    finally:
        engine.dispose()
    return games


def settle(client: Any, name: str, sigma: float = 3.0) -> None:
    engine = create_engine(client.app.state.settings.sync_url())
    users = User.__table__
    with engine.begin() as conn:
        uid = conn.execute(select(users.c.id).where(users.c.name == name)).scalar_one()
        conn.execute(update(ratings.RATINGS).where(ratings.RATINGS.c.user_id == uid).values(sigma=sigma))
    engine.dispose()


def signed_up(client: Any, *names: str) -> dict[str, Player]:
    return {n: Player(client, n).signup() for n in names}


def test_a_new_players_first_rated_game_shows_on_the_leaderboard_as_provisional(client: Any) -> None:
    players = signed_up(client, "alice", "bob", "carol")
    alice, carol = players["alice"], players["carol"]
    rate(client, players, [("alice", "bob", 1)])
    # the settled list is as before: nobody yet
    assert alice.get("/api/leaderboard").json()["players"] == []
    new = alice.get("/api/leaderboard?provisional=true").json()
    assert new["provisional_players"] is True and new["total"] == 2
    assert [(p["name"], p["provisional"], p["games"]) for p in new["players"]] == [("alice", True, 1), ("bob", True, 1)]
    assert new["players"][0]["rating"] > 1500 > new["players"][1]["rating"]

    page = carol.get("/leaderboard").text
    table = page[page.index('id="provisional-players"') :]
    assert f"<b>{new['players'][0]['rating']}?</b>" in table and f"<b>{new['players'][1]['rating']}?</b>" in table
    assert "still provisional" in page and "settles after about twelve rated games" in page
    assert table.index(">alice<") < table.index(">bob<")
    # signed in: the player's own line
    assert (
        "Your rating, {}?, is provisional after 1 rated game".format(new["players"][0]["rating"])
        in alice.get("/leaderboard").text
    )
    assert "You have no rated game in this pool yet" in carol.get("/leaderboard").text
    assert 'class="you"' in alice.get("/leaderboard").text and 'class="you"' not in carol.get("/leaderboard").text
    signed_out = Player(client, "visitor")
    signed_out.refresh()
    assert 'id="your-position"' not in signed_out.get("/leaderboard").text
    # the turn-based pool has no one
    assert alice.get("/api/leaderboard?pool=turn&provisional=true").json()["players"] == []
    assert 'id="provisional-players"' not in alice.get("/leaderboard?pool=turn").text


def test_a_settled_player_reads_their_place_and_an_inactive_one_why_they_are_missing(client: Any) -> None:
    players = signed_up(client, "alice", "bob", "carol", "dave")
    alice, dave = players["alice"], players["dave"]
    rate(client, players, [("alice", "bob", 1), ("carol", "dave", 1), ("carol", "alice", None)])
    for name in ("alice", "bob", "carol", "dave"):
        settle(client, name)
    board = alice.get("/api/leaderboard").json()["players"]
    for place, p in enumerate(board, start=1):
        player = players[p["name"]]
        text = player.get("/leaderboard").text
        assert f"Your place: <b>{place}</b> of 4, with a rating of {p['rating']}." in text, p
    # dave has not played for longer than the leaderboard looks back
    engine = create_engine(client.app.state.settings.sync_url())
    users = User.__table__
    with engine.begin() as conn:
        uid = conn.execute(select(users.c.id).where(users.c.name == "dave")).scalar_one()
        old = utcnow() - timedelta(days=ratings.ACTIVE_DAYS + 2)
        conn.execute(update(ratings.RATINGS).where(ratings.RATINGS.c.user_id == uid).values(updated_at=old))
    engine.dispose()
    assert (
        "you are not listed, since your last rated game in this pool is more than 30 days old"
        in dave.get("/leaderboard").text
    )
    last = [p["name"] for p in board if p["name"] != "dave"][-1]
    assert "Your place: <b>3</b> of 3" in players[last].get("/leaderboard").text


def test_the_rating_chart_of_one_game_starts_at_the_initial_rating(client: Any) -> None:
    players = signed_up(client, "alice", "bob")
    alice = players["alice"]
    (game,) = rate(client, players, [("alice", "bob", 1)])
    after = alice.get("/api/players/alice/ratings").json()["ratings"]["live"]["rating"]
    text = alice.get("/players/alice").text
    points = re.search(r'<polyline class="line" points="([^"]+)"', text)
    assert points is not None
    xy = [tuple(map(float, p.split(","))) for p in points.group(1).split()]
    assert len(xy) == 2 and xy[0][0] < xy[1][0] and xy[0][1] > xy[1][1]  # a line up from 1500
    assert f"<title>1500 before game {game}</title>" in text and f"{after} (+{after - 1500}) after game {game}" in text
    labels = re.findall(r'<text class="(since|until)"[^>]*>([^<]*)</text>', text)
    assert [k for k, _v in labels] == ["until"] and re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", labels[0][1])


def test_the_charts_time_labels_differ() -> None:
    def point(at: str, rating: int) -> dict[str, Any]:
        return {"game_id": 1, "at": at, "rating": rating, "change": 10, "provisional": True, "score": 1}

    days = ratings.chart([point("2026-11-01T10:00:00", 1510), point("2026-11-03T09:00:00", 1520)])
    assert days is not None and (days["since"], days["until"]) == ("2026-11-01", "2026-11-03")
    hours = ratings.chart([point("2026-11-01T10:00:00", 1510), point("2026-11-01T12:30:00", 1520)])
    assert hours is not None and (hours["since"], hours["until"]) == ("2026-11-01 10:00", "12:30 UTC")
    one = ratings.chart([point("2026-11-01T10:00:05", 1510), point("2026-11-01T10:00:40", 1520)])
    assert one is not None and (one["since"], one["until"]) == ("", "2026-11-01 10:00 UTC")
    # the start, then one dot a game: the start is the first game's rating before it
    assert days["start"]["y"] > days["dots"][0]["y"] > days["dots"][1]["y"]
    assert days["line"].split()[0] == f"{days['start']['x']},{days['start']['y']}" and len(days["line"].split()) == 3
    assert ratings.chart([]) is None


def test_a_provisional_player_beyond_the_first_page_is_not_told_they_are_listed(client: Any) -> None:
    players = signed_up(client, "alice", "bob")
    rate(client, players, [("alice", "bob", 1)])
    others = [Player(client, f"early{i:02d}").signup() for i in range(ratings.PAGE)]
    engine = create_engine(client.app.state.settings.sync_url())
    users = User.__table__
    with engine.begin() as conn:
        ids = dict(conn.execute(select(users.c.name, users.c.id)).all())
        for i, p in enumerate(others):
            conn.execute(ratings.RATINGS.insert().values(
                user_id=ids[p.name], pool="live", mu=30 + i * 0.01, sigma=7.0, games=2, wins=2, draws=0, losses=0,
                updated_at=utcnow()))  # fmt: skip
    engine.dispose()
    page = players["bob"].get("/leaderboard").text
    assert "is provisional after 1 rated game; it settles after about twelve rated games." in page
    assert "you are listed with the provisional players below" not in page
    assert f"The highest {ratings.PAGE} of {ratings.PAGE + 2} players." in page
    assert "you are listed with the provisional players below" in others[0].get("/leaderboard").text

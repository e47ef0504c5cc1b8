"""Ratings (SQLite and PostgreSQL): a rated game changes both players' ratings once, when it
ends, in the pool of its time control; casual and bot games change none; the API, the
leaderboard and the profile show them."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from openskill.models import PlackettLuce
from sqlalchemy import create_engine, select, update

from lordsofwar.web.models import Rating, RatingChange, User, utcnow
from lordsofwar.web.ratings import service as ratings
from tests.web.conftest import Player, new_game, play_opening


def sync_url(client: Any) -> str:
    return client.app.state.settings.sync_url()


def rows(client: Any, model: Any, **where: Any) -> list[Any]:
    engine = create_engine(sync_url(client))
    try:
        with engine.connect() as conn:
            query = select(model.__table__)
            for key, value in where.items():
                query = query.where(model.__table__.c[key] == value)
            return list(conn.execute(query).mappings())
    finally:
        engine.dispose()


def test_a_rated_game_changes_both_ratings_once_when_it_ends(alice: Player, bob: Player) -> None:
    game = new_game(alice, bob, rated=True)
    state = alice.state(game)
    assert state["game"]["rated"] is True and state["game"]["pool"] == "live" and state["game"]["ratings"] is None
    play_opening(game, alice, bob)  # an ending before both first turns would abort the game
    r = bob.post(f"/api/games/{game}/resign")
    assert r.status_code == 200, r.text
    changes = r.json()["game"]["ratings"]
    model = PlackettLuce()
    [win], [loss] = model.rate([[model.rating()], [model.rating()]], ranks=[1, 2])
    assert changes["1"] == {"before": 1500, "after": round(win.mu * 60), "provisional": True}
    assert changes["2"] == {"before": 1500, "after": round(loss.mu * 60), "provisional": True}
    assert changes["1"]["after"] > 1500 > changes["2"]["after"]
    # Stored once, and shown again after a reload of the game.
    assert len(rows(alice.client, RatingChange, game_id=game)) == 2
    assert alice.state(game)["game"]["ratings"] == changes
    mine = alice.get("/api/players/alice/ratings").json()
    live = mine["ratings"]["live"]
    assert (live["games"], live["wins"], live["losses"], live["rating"]) == (1, 1, 0, changes["1"]["after"])
    assert mine["ratings"]["turn"]["games"] == 0 and mine["history"]["turn"] == []
    (point,) = mine["history"]["live"]
    assert point["game_id"] == game and point["change"] == changes["1"]["after"] - 1500 and point["score"] == 1
    assert bob.get("/api/players/bob/ratings").json()["ratings"]["live"]["losses"] == 1


def test_a_drawn_rated_game_and_the_turn_based_pool(alice: Player, bob: Player) -> None:
    game = new_game(alice, bob, rated=True, mode="turn", days=2)
    play_opening(game, alice, bob)
    assert alice.post(f"/api/games/{game}/draw", {"op": "offer"}).status_code == 200
    r = bob.post(f"/api/games/{game}/draw", {"op": "accept"})
    assert r.status_code == 200, r.text
    changes = r.json()["game"]["ratings"]
    assert changes["1"]["before"] == changes["1"]["after"] == 1500  # equal players, a draw: no move
    turn = alice.get("/api/players/alice/ratings").json()["ratings"]["turn"]
    assert (turn["games"], turn["draws"]) == (1, 1) and turn["sigma"] < 25 / 3
    assert alice.get("/api/players/alice/ratings").json()["ratings"]["live"]["games"] == 0


def test_casual_and_bot_games_change_no_rating(alice: Player, bob: Player) -> None:
    game = new_game(alice, bob)
    assert alice.state(game)["game"]["rated"] is False
    assert bob.post(f"/api/games/{game}/resign").json()["game"]["ratings"] is None
    r = alice.post("/api/invitations", {"bot": "random", "options": {"rated": True, "creator_side": "1"}})
    assert r.status_code == 201, r.text
    bot_game = r.json()["game"]
    assert alice.state(bot_game)["game"]["rated"] is False
    assert alice.post(f"/api/games/{bot_game}/resign").status_code == 200
    assert rows(alice.client, RatingChange) == [] and rows(alice.client, Rating) == []


def test_the_leaderboard_lists_active_settled_players_by_rating(client: Any, alice: Player, bob: Player) -> None:
    engine = create_engine(sync_url(client))
    now = utcnow()
    names = [f"ranked{i:02d}" for i in range(55)]
    for name in names:
        Player(client, name).signup()
    players = [*names, "alice", "bob"]
    with engine.begin() as conn:
        ids = dict(conn.execute(select(User.__table__.c.name, User.__table__.c.id)).all())
        for i, name in enumerate(names):
            conn.execute(
                ratings.RATINGS.insert().values(
                    user_id=ids[name],
                    pool="live",
                    mu=20 + i * 0.1,
                    sigma=3.0,
                    games=20,
                    wins=10,
                    draws=0,
                    losses=10,
                    updated_at=now,
                )
            )
        # alice: provisional; bob: settled but inactive for too long.
        conn.execute(
            ratings.RATINGS.insert().values(
                user_id=ids["alice"], pool="live", mu=40, sigma=7.0, games=3, wins=3, draws=0, losses=0, updated_at=now
            )
        )
        conn.execute(
            ratings.RATINGS.insert().values(
                user_id=ids["bob"],
                pool="live",
                mu=41,
                sigma=2.0,
                games=30,
                wins=30,
                draws=0,
                losses=0,
                updated_at=now - timedelta(days=ratings.ACTIVE_DAYS + 1),
            )
        )
    engine.dispose()
    first = alice.get("/api/leaderboard?pool=live").json()
    assert (first["total"], first["pages"], len(first["players"])) == (55, 2, 50)
    assert [p["name"] for p in first["players"][:2]] == ["ranked54", "ranked53"]
    assert [p["rank"] for p in first["players"]] == list(range(1, 51))
    second = alice.get("/api/leaderboard?pool=live&page=2").json()
    assert [p["name"] for p in second["players"]] == ["ranked04", "ranked03", "ranked02", "ranked01", "ranked00"]
    assert all(p["name"] not in ("alice", "bob") for p in first["players"] + second["players"])
    assert alice.get("/api/leaderboard?pool=turn").json()["players"] == []
    for bad in ("pool=blitz", "page=0", "page=x"):
        assert alice.get(f"/api/leaderboard?{bad}").status_code == 422
    page = alice.get("/leaderboard?pool=live&page=2")
    assert page.status_code == 200 and "ranked04" in page.text and "Page 2 of 2" in page.text
    assert set(players) >= {p["name"] for p in first["players"]}


def test_the_profile_shows_the_ratings_and_their_history(alice: Player, bob: Player) -> None:
    for _ in range(3):
        game = new_game(alice, bob, rated=True)
        play_opening(game, alice, bob)
        assert bob.post(f"/api/games/{game}/resign").status_code == 200
    page = alice.get("/players/alice")
    assert page.status_code == 200
    text = page.text
    assert 'class="rating-chart"' in text and text.count('<circle class="dot win"') == 3
    live = alice.get("/api/players/alice/ratings").json()["ratings"]["live"]
    assert f"{live['rating']}?" in text  # provisional after three games
    assert "No rated game yet" in text  # the turn-based pool
    assert bob.get("/players/alice").text.count('<circle class="dot win"') == 3
    # Results by army and by variant: alice played orcs (new_game), the default variant.
    assert text.count('title="3 won, 0 drawn, 0 lost"') == 2
    assert "<td>Orcs</td>" in text and "<td>Intermediate, hidden hands, bordered, 20/4</td>" in text
    assert 'title="0 won, 0 drawn, 3 lost"' in bob.get("/players/bob").text
    assert alice.get("/api/players/nobody/ratings").status_code == 404


@pytest.mark.parametrize("winner", [1, 2, None])
def test_rate_game_is_openskill_and_records_each_player(winner: int | None, alice: Player, bob: Player) -> None:
    engine = create_engine(sync_url(alice.client))
    game = new_game(alice, bob)  # a casual game row to attach the changes to
    with engine.begin() as conn:
        ids = dict(conn.execute(select(User.__table__.c.name, User.__table__.c.id)).all())
        conn.execute(update(ratings.RATINGS).values(mu=0))  # no rows yet: nothing to change
        out = ratings.rate_game(conn, game, "live", (ids["alice"], ids["bob"]), winner)
    with engine.connect() as conn:
        stored = {r["user_id"]: r for r in conn.execute(select(ratings.RATINGS)).mappings()}
    engine.dispose()
    model = PlackettLuce()
    ranks = [1.0, 1.0] if winner is None else ([1.0, 2.0] if winner == 1 else [2.0, 1.0])
    [one], [two] = model.rate([[model.rating()], [model.rating()]], ranks=ranks)
    assert stored[ids["alice"]]["mu"] == pytest.approx(one.mu) and stored[ids["bob"]]["mu"] == pytest.approx(two.mu)
    assert [o["after"] for o in out] == [round(one.mu * 60), round(two.mu * 60)]
    with pytest.raises(ValueError):
        ratings.rate_game(create_engine(sync_url(alice.client)).connect(), game, "live", (ids["alice"],) * 2, 1)

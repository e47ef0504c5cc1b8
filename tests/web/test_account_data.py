"""Your data (lordsofwar.web.accounts.export), on SQLite and PostgreSQL: every table that names a
player is exported (or excluded with its reason), the download holds every row naming the player
and nothing secret, and a running game is exported as the player sees it, nothing hidden."""

from __future__ import annotations

import json
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import create_engine, func, insert, or_, select

from lordsofwar.web.accounts import export
from lordsofwar.web.models import Base, GameAnalysis, MailOutbox, RatingChange, User, utcnow
from tests.web.conftest import Player, new_game, play_opening


def test_every_table_naming_a_player_is_exported_or_excluded_with_its_reason_sqlite() -> None:
    """A new table holding a user id fails here until the export covers it (or says why not)."""
    tables = export.user_tables()
    missing = sorted(set(tables) - set(export.PARTS) - set(export.NOT_ABOUT_PLAYERS))
    assert not missing, f"tables naming players that the export leaves out: {missing}"
    assert not set(export.PARTS) & set(export.NOT_ABOUT_PLAYERS)
    assert all(reason.strip() for reason in export.NOT_ABOUT_PLAYERS.values())
    for name, part in export.PARTS.items():  # each part reads the columns that name the player
        if name in tables:
            assert set(part.columns) | set(part.withheld) == set(tables[name]), name
    sections = [part.section for part in export.PARTS.values()]
    assert len(sections) == len(set(sections))


def _sections(doc: dict[str, Any]) -> set[str]:
    return set(doc) - {"format", "version", "made_at"}


def test_the_download_holds_every_row_naming_the_player_and_no_secret(client: TestClient) -> None:
    alice, bob = Player(client, "alice").signup(), Player(client, "bob").signup()
    engine = create_engine(client.app.state.settings.sync_url())  # type: ignore[attr-defined]
    with engine.connect() as conn:
        uid = conn.execute(select(User.id).where(User.name_key == "alice")).scalar_one()
    finished = new_game(alice, bob)
    play_opening(finished, alice, bob)
    assert alice.post(f"/api/games/{finished}/resign").status_code == 200
    new_game(bob, alice)
    alice.post("/api/invitations", {"options": {}})
    assert alice.post("/api/decks", {"name": "Horde", "army": "orcs"}).status_code == 201
    assert alice.post("/api/tokens", {"description": "bot", "scopes": ["bot:play"]}).status_code == 201
    assert alice.post("/api/settings", {"notifications": "digest"}).status_code == 200
    tid = alice.post("/api/tournaments", {"name": "Cup", "kind": "swiss", "rounds": 1}).json()["tournament"]
    for p in (alice, bob):
        assert p.post(f"/api/tournaments/{tid}/join", {}).status_code == 200
    assert alice.post(f"/api/tournaments/{tid}/start").status_code == 200
    now = utcnow()
    with engine.begin() as conn:  # what the site writes along the way: a mail, a rating change, an analysis
        conn.execute(insert(MailOutbox).values(
            user_id=uid, kind="digest", to_addr="alice@example.org", subject="Your games", body="secret link",
            headers={"List-Unsubscribe": "<https://x/unsubscribe?sig=1>"}, status="sent", attempts=1, next_at=now,
            created_at=now,
        ))  # fmt: skip
        conn.execute(insert(RatingChange).values(
            game_id=finished, user_id=uid, pool="turn", mu_before=25.0, sigma_before=8.3, mu_after=24.0,
            sigma_after=7.9, score=0.0, created_at=now,
        ))  # fmt: skip
        conn.execute(insert(GameAnalysis).values(
            game_id=finished, status="done", done=1, total=1, level="general", requested_by=uid, created_at=now,
            updated_at=now,
        ))  # fmt: skip
    r = alice.get("/api/account/data")
    assert r.status_code == 200
    assert r.headers["content-disposition"] == 'attachment; filename="lordsofwar-data-alice.json"'
    assert "no-store" in r.headers["cache-control"]
    doc = r.json()
    assert doc["format"] == export.FORMAT and doc["profile"]["name"] == "alice"
    tables = Base.metadata.tables
    with engine.connect() as conn:
        for name, part in export.PARTS.items():
            if name not in tables:
                continue
            table = tables[name]
            query = select(func.count()).select_from(table).where(or_(*(table.c[c] == uid for c in part.columns)))
            count = conn.execute(query).scalar_one()
            got = doc[part.section]
            assert (1 if isinstance(got, dict) else len(got)) == count, (name, count, got)
    engine.dispose()
    filled = {s for s in _sections(doc) if doc[s]}
    assert filled >= {
        "profile", "sessions", "api_tokens", "mail_settings", "mail_log", "decks", "games", "invitations",
        "rating_history", "tournaments_created", "tournament_entries", "tournament_boards", "analyses_requested",
    }  # fmt: skip
    text = r.text
    for secret in ("hash", "$argon2", "secret link", "List-Unsubscribe"):
        assert secret not in text, secret
    record = next(g for g in doc["games"] if g["id"] == finished)["record"]
    assert record["players"]["1"]["name"] == "alice" and record["seed"] is not None and record["actions"]
    visitor = Player(client, "visitor")
    visitor.refresh()
    assert visitor.get("/api/account/data").status_code == 401


def test_a_running_game_is_exported_as_the_player_sees_it(client: TestClient) -> None:
    alice, bob = Player(client, "alice").signup(), Player(client, "bob").signup()
    game = new_game(alice, bob)
    play_opening(game, alice, bob)
    rt = client.app.state.service.runtimes[game]  # type: ignore[attr-defined]
    seed, decks = rt.game.seed, rt.game.decks
    hidden = [c for c in rt.pos.hands[2] if c is not None]
    assert hidden
    text = alice.get("/api/account/data").text
    item = next(g for g in json.loads(text)["games"] if g["id"] == game)
    assert item["status"] == "running" and "record" not in item
    assert item["view"]["view"] == alice.state(game)["view"]  # what the game page shows her, no more
    assert item["view"]["view"]["players"]["2"]["hand"] == [None] * len(hidden)
    assert str(seed) not in text and '"seed"' not in text
    assert json.dumps(decks[1]) not in text  # bob's deck list (and so its order) is not there

"""Migration 0012: games that ended before results had codes get theirs from their sentence."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import sqlalchemy as sa
from alembic import command
from conftest import settings_for

from lordsofwar.rules.result import Result, Termination
from lordsofwar.web import db
from lordsofwar.web.models import result_columns, result_of

OLD = [
    (1, "20 units eliminated", "units", {"count": 20}),
    (None, "aborted: player 1 resigned", "aborted", {"player": 1, "ending": "resignation"}),
    (None, "aborted by player 2", "aborted", {"player": 2}),
    (
        2,
        "both reached the unit threshold; player 2 eliminated more command units",
        "more_commands",
        {"threshold": "units"},
    ),
    (None, "draw agreed", "draw_agreed", None),
    (1, "player 2 missed the turn deadline", "deadline", {"player": 2}),
]


def _game(i: int, winner: int | None, reason: str | None) -> dict[str, object]:
    now = datetime(2026, 11, 1, tzinfo=UTC)
    return {
        "id": i, "public": True, "variant": {}, "decks": [[], []], "armies": ["orcs", "dwarves"], "seed": i,
        "actions": [], "version": 0, "status": "over" if reason else "running", "winner": winner, "reason": reason,
        "mode": "turn", "initial_ms": 0, "increment_ms": 0, "turn_ms": 0, "clock1_ms": 0, "clock2_ms": 0,
        "since": now, "created_at": now,
    }  # fmt: skip


def test_old_games_get_their_termination_from_their_reason(tmp_path: Path) -> None:
    settings = settings_for(f"sqlite:///{tmp_path / 'old.sqlite3'}")
    cfg = db.alembic_config(settings)
    command.upgrade(cfg, "0011")
    engine = sa.create_engine(settings.sync_url())
    games = sa.Table("games", sa.MetaData(), autoload_with=engine)
    with engine.begin() as conn:
        rows = [_game(i, w, r) for i, (w, r, _t, _d) in enumerate(OLD, 1)]
        conn.execute(games.insert(), [*rows, _game(99, None, None)])
    command.upgrade(cfg, "head")
    games = sa.Table("games", sa.MetaData(), autoload_with=engine)
    with engine.connect() as conn:
        got = conn.execute(
            sa.select(games.c.id, games.c.termination, games.c.result_details).order_by(games.c.id)
        ).all()
    assert [(t, d) for _i, t, d in got] == [(t, d) for _w, _r, t, d in OLD] + [(None, None)]
    for (winner, reason, _t, _d), (_id, termination, details) in zip(OLD, got[: len(OLD)], strict=True):
        result = result_of(winner, termination, details, reason)  # as the site reads the row
        assert result.reason == reason and result_columns(result)["termination"] == termination
    command.downgrade(cfg, "0011")
    engine.dispose()


def test_a_row_without_a_code_is_read_from_its_sentence() -> None:
    assert result_of(None, None, None, "aborted: player 2 ran out of time") == Result(
        None, Termination.ABORTED, player=2, ending=Termination.TIMEOUT
    )
    assert result_columns(Result(1, Termination.UNITS, count=20)) == {
        "winner": 1, "reason": "20 units eliminated", "termination": "units", "result_details": {"count": 20},
    }  # fmt: skip

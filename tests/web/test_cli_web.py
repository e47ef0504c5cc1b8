"""`lordsofwar db upgrade` and `lordsofwar serve`: set-up errors are one line with exit 2."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import create_engine, inspect

from lordsofwar.cli import cli


def test_db_upgrade_creates_the_schema_and_is_idempotent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "sub" / "low.sqlite3"
    monkeypatch.setenv("LOW_DATABASE_URL", f"sqlite:///{db}")
    for _ in range(2):
        result = CliRunner().invoke(cli, ["db", "upgrade"])
        assert result.exit_code == 0, result.output
        assert "newest schema" in result.output
    engine = create_engine(f"sqlite:///{db}")
    tables = set(inspect(engine).get_table_names())
    engine.dispose()
    assert {"users", "sessions", "games", "invitations", "server_secrets", "alembic_version"} <= tables


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("mysql://root@localhost/x", "unsupported database 'mysql'"),
        ("nonsense", "expected a URL"),
        ("postgresql://nobody@127.0.0.1:1/x", "cannot open the database"),
    ],
)
@pytest.mark.parametrize("command", [["db", "upgrade"], ["serve", "--port", "0"]])
def test_a_bad_database_is_one_clear_line(
    monkeypatch: pytest.MonkeyPatch, url: str, message: str, command: list[str]
) -> None:
    monkeypatch.setenv("LOW_DATABASE_URL", url)
    result = CliRunner().invoke(cli, command)
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output


def test_several_workers_need_postgresql_and_redis(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOW_DATABASE_URL", f"sqlite:///{tmp_path / 'x.sqlite3'}")
    result = CliRunner().invoke(cli, ["serve", "--workers", "2"])
    assert result.exit_code == 2
    assert "--workers above 1 needs" in result.output

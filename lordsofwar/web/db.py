"""Database engine, sessions and migrations."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import Table, event
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import Engine
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine

from lordsofwar.web.settings import Settings

HERE = Path(__file__).parent


def alembic_config(settings: Settings) -> Config:
    cfg = Config(str(HERE / "alembic.ini"))
    cfg.set_main_option("script_location", str(HERE / "migrations"))
    cfg.set_main_option("sqlalchemy.url", settings.sync_url().replace("%", "%%"))
    return cfg


def migrate(settings: Settings) -> None:
    """Create or upgrade the schema to the newest revision (idempotent)."""
    url = settings.sync_url()
    if url.startswith("sqlite:///") and not url.startswith("sqlite:///:memory:"):
        Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
    command.upgrade(alembic_config(settings), "head")


def _sqlite_pragmas(dbapi_connection, _record) -> None:  # type: ignore[no-untyped-def]
    cur = dbapi_connection.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA busy_timeout=10000")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.close()


def _no_busy_wait(dbapi_connection, _record) -> None:  # type: ignore[no-untyped-def]
    cur = dbapi_connection.cursor()
    cur.execute("PRAGMA busy_timeout=0")
    cur.close()


def sqlite_engine(url: str) -> Engine:
    """A synchronous SQLite engine with the same pragmas, for the game writer. It runs in the
    event loop's thread, so it must never sleep in SQLite's busy handler (the transaction it
    would wait for may need the loop to finish): it fails at once and the writer retries."""
    from sqlalchemy import create_engine

    engine = create_engine(url, pool_size=1, max_overflow=0)
    event.listen(engine, "connect", _sqlite_pragmas)
    event.listen(engine, "connect", _no_busy_wait)
    return engine


def make_engine(settings: Settings) -> AsyncEngine:
    url = settings.async_url()
    if url.startswith("sqlite"):
        # Few connections: SQLite has one writer at a time. Game changes, the hot path, all go
        # through the game writer's own connection (games.writer.BatchWriter); the rest is rare.
        engine = create_async_engine(url, pool_size=3, max_overflow=2, pool_timeout=30)
        event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
    else:
        engine = create_async_engine(url, pool_size=10, max_overflow=20, pool_pre_ping=True)
    return engine


async def upsert(db: AsyncSession, table: Table, values: dict[str, Any], key: str, update: Iterable[str] = ()) -> None:
    """Insert a row, or (on a clash of ``key``) update the ``update`` columns of the one there
    (none: keep it): one statement, so processes doing it at the same moment never collide."""
    dialect = db.get_bind().dialect.name
    insert = pg_insert if dialect == "postgresql" else sqlite_insert
    statement = insert(table).values(values)
    columns = list(update)
    if columns:
        statement = statement.on_conflict_do_update(
            index_elements=[key], set_={c: statement.excluded[c] for c in columns}
        )
    else:
        statement = statement.on_conflict_do_nothing(index_elements=[key])
    await db.execute(statement)


def make_sessionmaker(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    return async_sessionmaker(engine, expire_on_commit=False)


__all__ = ["Engine", "make_engine", "make_sessionmaker", "migrate", "upsert"]

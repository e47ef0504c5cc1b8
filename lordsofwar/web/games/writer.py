"""The game writer: every change to a game is one ``UPDATE games ... WHERE id = ? AND version =
?`` of the columns that change after it started (:data:`CHANGING`), and all the changes waiting at
one moment are written in one transaction (a group commit), with one prepared statement run for
many rows. A change whose version moved on (another tab or process wrote first) counts 0 rows and
changes nothing. No change is announced before it is committed (games.service does that once
the writer answers).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any

from sqlalchemy import Connection, Engine, Table, bindparam, update
from sqlalchemy.exc import OperationalError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from lordsofwar.web.db import sqlite_engine
from lordsofwar.web.models import Game
from lordsofwar.web.settings import Settings
from lordsofwar.web.tasks import stop_tasks

log = logging.getLogger("lordsofwar.web")

Then = Callable[[Connection], Any]
"""Work done in the transaction of a game's change, after its row was updated (its ratings)."""


CHANGING = (
    "actions",
    "version",
    "status",
    "waiting_for",
    "winner",
    "reason",
    "termination",
    "result_details",
    "clock1_ms",
    "clock2_ms",
    "since",
    "deadline_at",
    "draw_offer",
    "ended_at",
)
"""The columns of a game that change after it started; every change writes all of them."""


def change_statement() -> Any:
    """The versioned update of a game's changing columns; its parameters are the columns'
    names, ``b_id`` (the game) and ``b_old`` (the version the change was made on)."""
    table: Table = Game.__table__  # type: ignore[assignment]
    return (
        update(table)
        .where(table.c.id == bindparam("b_id"), table.c.version == bindparam("b_old"))
        .values({name: bindparam(name) for name in CHANGING})
    )


def run_steps(steps: dict[str, Then], conn: Connection) -> dict[str, Any]:
    """Run each step of a change's ``then`` on ``conn``; what each returned, by name."""
    return {name: step(conn) for name, step in steps.items()}


class BatchWriter:
    """Writes game changes, all the changes waiting at a time in one transaction (a group
    commit) with one prepared statement run for many rows. No change is announced before it is
    committed. On SQLite the writer uses a synchronous connection of its own in the event loop's
    thread (a local write takes tens of microseconds; a hop to a driver thread costs more); on
    PostgreSQL the asynchronous driver.
    """

    def __init__(self, settings: Settings, engine: AsyncEngine, batch: int = 500):
        self.engine = engine
        self.batch = batch
        self.statement = change_statement()
        self.queue: asyncio.Queue[tuple[dict[str, Any], Then | None, asyncio.Future[tuple[int, Any]]]] = asyncio.Queue()
        self.task: asyncio.Task[None] | None = None
        self.sync_engine: Engine | None = None
        self.sync_conn: Connection | None = None
        self.conn: AsyncConnection | None = None
        url = settings.sync_url()
        if url.startswith("sqlite"):
            self.sync_engine = sqlite_engine(url)

    async def execute(self, params: dict[str, Any]) -> int:
        """Write one change in the next batch; its row count (0: the version moved on)."""
        count, _done = await self.execute_with(params, None)
        return count

    async def execute_with(self, params: dict[str, Any], then: Then | None) -> tuple[int, Any]:
        """Write one change; when it applied, ``then(connection)`` runs in the same transaction
        (a change with ``then`` has a transaction of its own). Its row count, and what ``then``
        returned (None when it did not run)."""
        loop = asyncio.get_running_loop()
        if self.task is None or self.task.done():
            self.task = loop.create_task(self._run())
        done: asyncio.Future[tuple[int, Any]] = loop.create_future()
        self.queue.put_nowait((params, then, done))
        return await done

    async def _run(self) -> None:
        while True:
            batch = [await self.queue.get()]
            while len(batch) < self.batch and not self.queue.empty():
                batch.append(self.queue.get_nowait())
            plain = [(params, done) for params, then, done in batch if then is None]
            if plain:
                try:
                    counts = await self._write([params for params, _ in plain])
                except Exception as exc:  # the whole batch failed: every waiting change is refused
                    for _params, done in plain:
                        if not done.done():
                            done.set_exception(exc)
                    await self._drop()
                else:
                    for (_params, done), count in zip(plain, counts, strict=True):
                        if not done.done():
                            done.set_result((count, None))
            for params, then, done in batch:
                if then is None:
                    continue
                try:
                    result = await self._write_then(params, then)
                except Exception as exc:
                    if not done.done():
                        done.set_exception(exc)
                    await self._drop()
                else:
                    if not done.done():
                        done.set_result(result)

    async def _write_then(self, params: dict[str, Any], then: Then) -> tuple[int, Any]:
        """One change and ``then`` in one transaction; nothing of either when ``then`` fails."""
        if self.sync_engine is not None:
            return await self._sqlite_then(params, then)
        if self.conn is None:
            self.conn = await self.engine.connect()
        aconn = self.conn
        async with aconn.begin():
            count = (await aconn.execute(self.statement, params)).rowcount
            extra = await aconn.run_sync(then) if count == 1 else None
        return count, extra

    async def _write(self, rows: list[dict[str, Any]]) -> list[int]:
        if self.sync_engine is not None:
            total = await self._sqlite(rows)
            if total == len(rows):
                return [1] * len(rows)
            return [await self._sqlite([row]) for row in rows]  # some change was stale: which?
        if self.conn is None:
            self.conn = await self.engine.connect()
        aconn = self.conn
        if len(rows) == 1:
            async with aconn.begin():
                return [(await aconn.execute(self.statement, rows[0])).rowcount]
        async with aconn.begin():
            total = (await aconn.execute(self.statement, rows)).rowcount
        if total == len(rows):
            return [1] * len(rows)
        counts = []
        for row in rows:
            async with aconn.begin():
                counts.append((await aconn.execute(self.statement, row)).rowcount)
        return counts

    async def _sqlite(self, rows: list[dict[str, Any]]) -> int:
        """One transaction on the synchronous connection."""
        count, _done = await self._sqlite_then(rows, None)
        return count

    async def _sqlite_then(self, rows: list[dict[str, Any]] | dict[str, Any], then: Then | None) -> tuple[int, Any]:
        """One transaction on the synchronous connection (``then`` in it when one row changed);
        while another connection holds the write lock, give the event loop a turn and try again
        (for up to 20 s)."""
        assert self.sync_engine is not None
        deadline = time.monotonic() + 20
        pause = 0.001
        while True:
            if self.sync_conn is None:
                self.sync_conn = self.sync_engine.connect()
            conn = self.sync_conn
            try:
                with conn.begin():
                    count = int(conn.execute(self.statement, rows).rowcount)
                    extra = then(conn) if then is not None and count == 1 else None
                    return count, extra
            except OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
            await asyncio.sleep(pause)
            pause = min(pause * 2, 0.05)

    async def _drop(self) -> None:
        try:
            if self.conn is not None:
                conn, self.conn = self.conn, None
                await conn.close()
            if self.sync_conn is not None:
                sconn, self.sync_conn = self.sync_conn, None
                sconn.close()
        except Exception:
            log.exception("closing the game writer's connection failed")

    async def close(self) -> None:
        await stop_tasks([self.task])
        await self._drop()
        if self.sync_engine is not None:
            self.sync_engine.dispose()

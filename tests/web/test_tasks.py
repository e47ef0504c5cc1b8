"""Stopping background tasks at shutdown (lordsofwar.web.tasks): a task that loses a cancel is
cancelled again until it ends, and the errors tasks ended with are handed back."""

from __future__ import annotations

import asyncio
import time

import pytest

from lordsofwar.web import tasks
from lordsofwar.web.tasks import stop_tasks


def test_every_task_ends_even_one_that_loses_its_first_cancels(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tasks, "AGAIN_AFTER", 0.05)
    lost: list[int] = []

    async def loses(times: int) -> None:
        while True:
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                if len(lost) >= times:
                    raise
                lost.append(1)  # swallowed, as Python 3.11's wait_for may swallow one

    async def fails() -> None:
        raise RuntimeError("broken")

    async def run() -> tuple[list[BaseException], list[asyncio.Task[None]], float]:
        stubborn = asyncio.ensure_future(loses(3))
        quiet = asyncio.ensure_future(asyncio.sleep(3600))
        broken = asyncio.ensure_future(fails())
        finished = asyncio.ensure_future(asyncio.sleep(0))
        await asyncio.sleep(0.01)
        start = time.monotonic()
        errors = await asyncio.wait_for(stop_tasks([stubborn, None, quiet, broken, finished]), timeout=10)
        return errors, [stubborn, quiet, broken, finished], time.monotonic() - start

    errors, held, took = asyncio.run(run())
    assert len(lost) == 3 and took < 5
    assert all(t.done() for t in held) and held[0].cancelled() and held[1].cancelled()
    assert [str(e) for e in errors] == ["broken"]


def test_nothing_to_stop_returns_at_once() -> None:
    assert asyncio.run(stop_tasks([None])) == []
    assert asyncio.run(stop_tasks([])) == []

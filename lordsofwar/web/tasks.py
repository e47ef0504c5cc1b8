"""Stopping the server's background tasks (its loops, bot turns, analyses) at shutdown."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any

AGAIN_AFTER = 1.0
"""Seconds a task is given to end after a cancel before it is cancelled again."""


async def stop_tasks(tasks: Iterable[asyncio.Future[Any] | None]) -> list[BaseException]:
    """Cancel ``tasks`` (None entries are skipped) and wait until every one has ended; return
    the errors they ended with (a cancel is not one).

    A task that goes on after its cancel is cancelled again every :data:`AGAIN_AFTER` seconds:
    Python 3.11's ``asyncio.wait_for``, which the libraries these loops await use (the SMTP and
    Redis clients), can lose a cancel that arrives as what it waits for ends, and one cancel
    would then leave the server's shutdown waiting forever."""
    held = [t for t in tasks if t is not None]
    pending = {t for t in held if not t.done()}
    while pending:
        for task in pending:
            task.cancel()
        _done, pending = await asyncio.wait(pending, timeout=AGAIN_AFTER)
    return [e for t in held if not t.cancelled() and (e := t.exception()) is not None]

"""The bots' worker processes: every bot decision, hint and analysis runs here, never in the
server's event loop (docs/bots.md, "On the server").

A :class:`BotPool` is a ``ProcessPoolExecutor`` of ``LOW_BOT_WORKERS`` processes (default 2),
started with ``spawn`` (no inherited sockets or event loop) and at a lower scheduling priority
(``nice`` 5), so that the server's processes answer players first when the machine is busy.
A job gets plain data (a position's JSON, lists of strings) and returns plain data. A worker
that dies is replaced: the pool is rebuilt and the job fails with :class:`BotPoolError`; a bot
turn is then tried again a little later (never answered with a move the bot did not choose).

Jobs wait for a free worker in order of priority, then of arrival: a bot's turn in a game
(:data:`TURN`) before a player's hint (:data:`HINT`) before a decision of a post-game analysis
(:data:`ANALYSIS`), so that analyses, however many, delay a game by at most the job a worker is
finishing. At most ``workers`` jobs are handed to the processes at once; the rest wait here.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import heapq
import itertools
import logging
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

log = logging.getLogger("lordsofwar.web.bots")

T = TypeVar("T")


PARENT_CHECK_SECONDS = 1.0
"""How often a worker looks whether the server that started it still runs."""

TURN, HINT, ANALYSIS = 0, 1, 2
"""Job priorities, most urgent first."""


class BotPoolError(RuntimeError):
    """A job could not run: its worker died, or the pool is closed."""


def _init_worker() -> None:
    with contextlib.suppress(OSError):  # not allowed here: run at the same priority
        os.nice(5)
    # Ctrl+C in a terminal reaches the whole process group: the server stops itself and then
    # the pool; a worker killed mid-search by it would only break the jobs under way.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # A server killed outright (SIGKILL, the OOM killer) cannot close its pool: its workers,
    # waiting on a queue whose other end they hold themselves, would wait for ever. Each one
    # notices its parent gone within a second and leaves.
    parent = os.getppid()

    def leave_with_the_parent() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_SECONDS)
        os._exit(0)

    threading.Thread(target=leave_with_the_parent, name="parent-watch", daemon=True).start()
    # Import the bots and the core once per worker, not on the first decision.
    import lordsofwar.bots.search  # noqa: F401


def _position(view_json: dict[str, Any]) -> Any:
    from lordsofwar.rules import notation
    from lordsofwar.rules.cards import CORE

    return notation.parse_position(view_json, CORE)


def choose_job(
    name: str,
    seed: int,
    view_json: dict[str, Any],
    known: dict[int, list[str]],
    deck: list[str] | None,
    seconds: float | None,
) -> tuple[str, float]:
    """A bot's action for the view ``view_json`` (a player's view: no hidden card in it), and the
    seconds it took. ``seconds``: a time budget below the level's (a live clock running low)."""
    from lordsofwar.bots import make_bot
    from lordsofwar.bots.search import SearchBot

    start = time.perf_counter()
    view = _position(view_json)
    bot = make_bot(name, seed)
    if isinstance(bot, SearchBot) and seconds is not None:
        action = bot.analyse(view, known=known, deck=deck, seconds=min(seconds, bot.level.seconds)).choice
    else:
        action = bot.choose(view, known=known, deck=deck)
    return str(action), time.perf_counter() - start


def hint_job(view_json: dict[str, Any], known: dict[int, list[str]], deck: list[str] | None, seed: int) -> dict[str, Any]:
    """The top level's preferred action for the decider of the view ``view_json``."""
    from lordsofwar.bots import TOP
    from lordsofwar.bots.analysis import _judged
    from lordsofwar.bots.search import LEVELS, SearchBot

    view = _position(view_json)
    bot = SearchBot(LEVELS[TOP], seed)
    found = bot.analyse(view, known=known, deck=deck)
    return _judged(view, view.decider, found, bot.level)


def judge_job(decision: dict[str, Any], level: str, seed: int, iterations: int | None = None) -> dict[str, Any]:
    """One decision of a game's analysis (:func:`lordsofwar.bots.analysis.judge`); ``iterations``
    below the level's cap (tests)."""
    from lordsofwar.bots.analysis import judge

    return judge(decision, level=level, seed=seed, iterations=iterations)


class BotPool:
    """The worker processes (see the module text)."""

    def __init__(self, workers: int):
        self.workers = max(1, workers)
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None
        self._closed = False
        self._busy = 0  # jobs handed to the processes
        self._waiting: list[tuple[int, int, asyncio.Future[None]]] = []  # (priority, arrival, wake-up)
        self._arrival = itertools.count()

    async def _slot(self, priority: int) -> None:
        """Wait for a free worker: the most urgent waiting job gets the next one."""
        if self._busy < self.workers and not self._waiting:
            self._busy += 1
            return
        wake: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._waiting, (priority, next(self._arrival), wake))
        try:
            await wake
        except asyncio.CancelledError:
            if wake.done() and not wake.cancelled():  # handed a worker just as it was cancelled
                self._release()
            else:
                wake.cancel()  # left in the heap; _release skips it
            raise

    def _release(self) -> None:
        """A job is over: its worker goes to the most urgent waiting job, if any."""
        while self._waiting:
            _, _, wake = heapq.heappop(self._waiting)
            if not wake.done():
                wake.set_result(None)  # the worker passes to it: _busy stays
                return
        self._busy -= 1

    def _executor(self) -> concurrent.futures.ProcessPoolExecutor:
        if self._closed:
            raise BotPoolError("the bot pool is closed")
        if self._pool is None:
            self._pool = concurrent.futures.ProcessPoolExecutor(
                self.workers, mp_context=multiprocessing.get_context("spawn"), initializer=_init_worker
            )
        return self._pool

    async def run(self, fn: Callable[..., T], *args: Any, priority: int = TURN) -> T:
        """``fn(*args)`` in a worker, once one is free for ``priority``; a dead worker is replaced
        and raises :class:`BotPoolError`."""
        self._executor()  # refuse at once when closed
        await self._slot(priority)
        try:
            pool = self._executor()
            try:
                return await asyncio.wrap_future(pool.submit(fn, *args))
            except concurrent.futures.process.BrokenProcessPool as exc:
                log.error("a bot worker died; starting a new pool")
                if self._pool is pool:
                    self._pool = None
                    pool.shutdown(wait=False, cancel_futures=True)
                raise BotPoolError("the bot worker died") from exc
        finally:
            self._release()

    async def choose(
        self,
        name: str,
        seed: int,
        view_json: dict[str, Any],
        known: dict[int, list[str]],
        deck: Sequence[str] | None,
        seconds: float | None = None,
    ) -> tuple[str, float]:
        return await self.run(choose_job, name, seed, view_json, known, None if deck is None else list(deck), seconds)

    async def hint(
        self, view_json: dict[str, Any], known: dict[int, list[str]], deck: Sequence[str] | None, seed: int
    ) -> dict[str, Any]:
        return await self.run(hint_job, view_json, known, None if deck is None else list(deck), seed, priority=HINT)

    async def judge(
        self, decision: dict[str, Any], level: str, seed: int, iterations: int | None = None
    ) -> dict[str, Any]:
        return await self.run(judge_job, decision, level, seed, iterations, priority=ANALYSIS)

    def warm(self) -> None:
        """Start the workers now (the first decision then waits for no process start)."""
        pool = self._executor()
        for _ in range(self.workers):
            pool.submit(int, 0)

    def close(self) -> None:
        self._closed = True
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    async def aclose(self) -> None:
        self.close()

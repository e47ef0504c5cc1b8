"""The bots' worker pool: jobs run in other processes, a bot's turn overtakes waiting hints and
analyses, a cancelled wait gives its place up, a dead worker is replaced, a closed pool refuses."""

from __future__ import annotations

import asyncio
import os
import time
from typing import Any

import pytest

from lordsofwar.web.games.botpool import ANALYSIS, HINT, TURN, BotPool, BotPoolError


def test_jobs_run_in_worker_processes() -> None:
    async def go() -> None:
        pool = BotPool(2)
        try:
            pids = await asyncio.gather(*(pool.run(os.getpid) for _ in range(4)))
        finally:
            pool.close()
        assert os.getpid() not in pids

    asyncio.run(go())


def test_a_bots_turn_overtakes_waiting_analyses_and_hints() -> None:
    async def go() -> list[str]:
        pool = BotPool(1)
        done: list[str] = []

        async def job(name: str, seconds: float, priority: int) -> None:
            await pool.run(time.sleep, seconds, priority=priority)
            done.append(name)

        try:
            await pool.run(int, 0)  # the worker is up
            first = asyncio.create_task(job("analysis 1", 0.5, ANALYSIS))
            await asyncio.sleep(0.1)  # analysis 1 has the worker
            rest = [asyncio.create_task(job(f"analysis {i}", 0.05, ANALYSIS)) for i in (2, 3)]
            rest.append(asyncio.create_task(job("hint", 0.05, HINT)))
            await asyncio.sleep(0.05)
            rest.append(asyncio.create_task(job("turn", 0.05, TURN)))
            await asyncio.gather(first, *rest)
        finally:
            pool.close()
        return done

    assert asyncio.run(go()) == ["analysis 1", "turn", "hint", "analysis 2", "analysis 3"]


def test_a_cancelled_wait_gives_its_place_up() -> None:
    async def go() -> None:
        pool = BotPool(1)
        try:
            await pool.run(int, 0)
            busy = asyncio.create_task(pool.run(time.sleep, 0.3))
            await asyncio.sleep(0.05)
            waiting = asyncio.create_task(pool.run(time.sleep, 5, priority=ANALYSIS))
            await asyncio.sleep(0.05)
            waiting.cancel()
            with pytest.raises(asyncio.CancelledError):
                await waiting
            await busy
            # the worker is free again: a new job starts at once, not after the cancelled one
            started = time.monotonic()
            assert await pool.run(int, 7) == 7
            assert time.monotonic() - started < 3
            assert pool._busy == 0 and not [w for w in pool._waiting if not w[2].done()]
        finally:
            pool.close()

    asyncio.run(go())


def test_a_dead_worker_is_replaced_and_a_closed_pool_refuses() -> None:
    async def go() -> None:
        pool = BotPool(1)
        try:
            with pytest.raises(BotPoolError, match="died"):
                await pool.run(os._exit, 3)
            assert await pool.run(int, 5) == 5  # a new process took its place
        finally:
            pool.close()
        with pytest.raises(BotPoolError, match="closed"):
            await pool.run(int, 1)

    asyncio.run(go())


def test_workers_leave_when_the_server_is_killed(tmp_path: Any) -> None:
    """A server killed outright (no chance to close its pool) leaves no worker behind."""
    import signal
    import subprocess
    import sys

    script = tmp_path / "server.py"
    script.write_text(
        "import asyncio, os, sys\n"
        "from lordsofwar.web.games.botpool import BotPool\n"
        "async def main():\n"
        "    pool = BotPool(2)\n"
        "    pids = set(await asyncio.gather(*(pool.run(os.getpid) for _ in range(6))))\n"
        "    print(' '.join(map(str, pids)), flush=True)\n"
        "    await asyncio.sleep(3600)\n"
        "if __name__ == '__main__':\n"
        "    asyncio.run(main())\n"
    )
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        pids = [int(x) for x in proc.stdout.readline().split()]
        assert pids and all(alive(pid) for pid in pids)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    deadline = time.monotonic() + 15
    while any(alive(pid) for pid in pids):
        assert time.monotonic() < deadline, f"workers left behind: {[p for p in pids if alive(p)]}"
        time.sleep(0.1)


def alive(pid: int) -> bool:
    """Whether the process runs (a zombie, dead but not yet reaped by init, does not)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False

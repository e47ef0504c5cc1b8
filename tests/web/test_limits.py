"""The accounts' limiter: the in-memory moving windows of one process (LocalStorage) and
``hit_all``, which counts a hit in several windows or in none, in memory and in Redis (one
script, the same windows as the limits library's)."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Awaitable, Callable

import pytest
from limits import RateLimitItemPerSecond
from limits.aio.storage import RedisStorage, Storage
from limits.aio.strategies import MovingWindowRateLimiter

from lordsofwar.web.accounts import limits
from lordsofwar.web.accounts.limits import LocalStorage, hit_all

TWO = RateLimitItemPerSecond(2, 10)
ONE = RateLimitItemPerSecond(1, 10)


Scenario = Callable[[Storage], Awaitable[None]]


@pytest.fixture(params=["memory", "redis"])
def on_storage(request: pytest.FixtureRequest) -> Callable[[Scenario], None]:
    """Runs a scenario on a fresh storage: this process's memory, or the local Redis under a
    prefix of its own (emptied afterwards)."""
    url = request.getfixturevalue("redis_url") if request.param == "redis" else None

    def run(scenario: Scenario) -> None:
        async def main() -> None:
            if url is None:
                await scenario(LocalStorage())
                return
            prefix = f"low-test-{uuid.uuid4().hex[:8]}"
            redis = RedisStorage("async+" + url, implementation="redispy", key_prefix=prefix)
            try:
                await scenario(redis)
            finally:
                await redis.reset()

        asyncio.run(main())

    return run


def test_hit_all_counts_in_every_window_or_in_none(on_storage: Callable[[Scenario], None]) -> None:
    async def scenario(storage: Storage) -> None:
        limiter = MovingWindowRateLimiter(storage)
        both = [(TWO, ("a", "1")), (ONE, ("b", "1"))]
        assert await hit_all(storage, both) is None
        assert await hit_all(storage, both) == 1  # the second window is full...
        assert (await limiter.get_window_stats(TWO, "a", "1")).remaining == 1  # ...and the first kept nothing
        assert await hit_all(storage, [(TWO, ("a", "1"))]) is None
        assert await hit_all(storage, [(TWO, ("a", "1")), (ONE, ("b", "2"))]) == 0
        assert (await limiter.get_window_stats(ONE, "b", "2")).remaining == 1  # the refusal counted nowhere

    on_storage(scenario)


def test_hit_all_shares_the_librarys_windows(on_storage: Callable[[Scenario], None]) -> None:
    """A window counted by the library's hit is the one hit_all reads, and the other way round."""

    async def scenario(storage: Storage) -> None:
        limiter = MovingWindowRateLimiter(storage)
        assert await limiter.hit(TWO, "x")
        assert await hit_all(storage, [(TWO, ("x",))]) is None
        assert not await limiter.hit(TWO, "x")
        assert await hit_all(storage, [(TWO, ("x",))]) == 0
        await limiter.clear(TWO, "x")
        assert await hit_all(storage, [(TWO, ("x",))]) is None

    on_storage(scenario)


def test_local_windows_move_and_expired_ones_are_dropped(monkeypatch: pytest.MonkeyPatch) -> None:
    now = [1000.0]
    monkeypatch.setattr(time, "time", lambda: now[0])
    storage = LocalStorage()

    async def scenario() -> None:
        limiter = MovingWindowRateLimiter(storage)
        assert await limiter.hit(TWO, "k")
        now[0] += 5
        assert await limiter.hit(TWO, "k") and not await limiter.hit(TWO, "k")
        now[0] += 4
        assert not await limiter.test(TWO, "k")
        now[0] += 1.5  # the first hit is out of the window
        assert await limiter.hit(TWO, "k") and not await limiter.hit(TWO, "k")
        assert await limiter.hit(ONE, "other")
        assert len(storage.windows) == 2
        now[0] += limits.PRUNE_EVERY + 20  # every window ran out; the next hit sweeps them
        assert await limiter.hit(ONE, "new")
        assert list(storage.windows) == [ONE.key_for("new")]

    asyncio.run(scenario())

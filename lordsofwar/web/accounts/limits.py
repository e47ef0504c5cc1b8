"""Limits on accounts: sign-ups per address, sign-in attempts, and password hashes at once.

Counting is done by the ``limits`` library (a moving window), in memory for one process or in
Redis when LOW_REDIS_URL is set, so that the limits hold across server processes. Keys start
with the installation's prefix (Settings.redis_namespace): two installations sharing one Redis
keep apart.

Unknown bearer tokens are counted per address too: past ``bad_tokens_per_address`` in the
sign-in window, a bot API request from that address is refused (429, Retry-After) before its
token is looked up.

Argon2id at the default cost takes 64 MiB and most of a core for a fraction of a second; a
burst of sign-ups or sign-ins must not starve running games of memory or CPU. So at most
``hash_concurrency`` hashes run at once, at most ``hash_queue`` requests wait for one, and the
rest are refused at once with 429.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import threading
import time
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from typing import TypeVar

from limits import RateLimitItem, RateLimitItemPerHour, RateLimitItemPerSecond
from limits.aio.storage import MemoryStorage, RedisStorage, Storage
from limits.aio.strategies import MovingWindowRateLimiter

from lordsofwar.i18n import _
from lordsofwar.web.problem import Problem
from lordsofwar.web.settings import Settings

PER_ADDRESS = 4
"""An address may try this many times the per-name-and-address limit, over any names."""
PER_NAME = 20
"""A name may be tried this many times the per-name-and-address limit, from all addresses."""
HASH_NICENESS = 10
"""How much lower than the event loop's the hashing threads' CPU priority is (Linux niceness):
a hash takes the cores the games leave idle, never the other way round."""
T = TypeVar("T")


def _lower_priority() -> None:
    """Run in each hashing thread as it starts: on Linux a thread has its own niceness, and the
    threads libargon2 starts for its lanes inherit it."""
    with contextlib.suppress(AttributeError, OSError):
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), HASH_NICENESS)


class Busy(Problem):
    """Too many password hashes are waiting: the request is refused (429) without waiting."""

    def __init__(self, message: str):
        super().__init__(429, message)


class Guard:
    """The account limits of one server process (shared through Redis when configured)."""

    def __init__(self, settings: Settings):
        prefix = settings.redis_namespace()
        storage: Storage
        if settings.redis_url:
            uri = "async+" + settings.redis_url.removeprefix("async+")  # the limits library's async scheme
            storage = RedisStorage(uri, implementation="redispy", key_prefix=prefix)
        else:
            storage = MemoryStorage()
        self.storage = storage
        self.limiter = MovingWindowRateLimiter(storage)
        window = max(1, settings.login_window_s)
        attempts = max(1, settings.login_attempts)
        self.login_minutes = max(1, window // 60)
        self.per_name_address: RateLimitItem = RateLimitItemPerSecond(attempts, window)
        self.per_address: RateLimitItem = RateLimitItemPerSecond(attempts * PER_ADDRESS, window)
        self.per_name: RateLimitItem = RateLimitItemPerSecond(attempts * PER_NAME, window)
        self.bad_tokens: RateLimitItem = RateLimitItemPerSecond(max(1, settings.bad_tokens_per_address), window)
        self.signups = max(1, settings.signups_per_hour)
        self.signup_limit: RateLimitItem = RateLimitItemPerHour(self.signups)
        self._slots = asyncio.Semaphore(max(1, settings.hash_concurrency))
        self._pool = ThreadPoolExecutor(
            max(1, settings.hash_concurrency), thread_name_prefix="argon2", initializer=_lower_priority
        )
        self._queue = max(0, settings.hash_queue)
        self._waiting = 0

    async def sign_in_attempt(self, name_key: str, ip: str) -> str | None:
        """Count one sign-in attempt; None when it may go on, else which limit it hit."""
        checks = (
            (self.per_name_address, ("signin-name-address", name_key, ip), "for this name from your address"),
            (self.per_address, ("signin-address", ip), "from your address"),
            (self.per_name, ("signin-name", name_key), "for this name"),
        )
        for item, keys, which in checks:
            if not await self.limiter.hit(item, *keys):
                return which
        return None

    async def signed_in(self, name_key: str, ip: str) -> None:
        """A right password: its owner starts afresh from this address."""
        await self.limiter.clear(self.per_name_address, "signin-name-address", name_key, ip)

    async def bad_token_wait(self, ip: str) -> int:
        """Seconds until ``ip`` may send a bearer token again (0: now); counts nothing."""
        if await self.limiter.test(self.bad_tokens, "bad-token-address", ip):
            return 0
        stats = await self.limiter.get_window_stats(self.bad_tokens, "bad-token-address", ip)
        return max(1, math.ceil(stats.reset_time - time.time()))

    async def bad_token(self, ip: str) -> None:
        """Count one unknown bearer token sent from ``ip``."""
        await self.limiter.hit(self.bad_tokens, "bad-token-address", ip)

    async def sign_up_allowed(self, ip: str) -> bool:
        """Whether ``ip`` may still make an account (counts nothing)."""
        return await self.limiter.test(self.signup_limit, "signup-address", ip)

    async def sign_up_attempt(self, ip: str) -> bool:
        """Count one sign-up from ``ip``; False when the address made too many lately."""
        return await self.limiter.hit(self.signup_limit, "signup-address", ip)

    @asynccontextmanager
    async def hashing(self) -> AsyncIterator[None]:
        """A slot to compute a password hash in; raises Busy when too many already wait."""
        if self._slots.locked() and self._waiting >= self._queue:
            raise Busy(_("the server is busy checking passwords; try again in a few seconds"))
        self._waiting += 1
        try:
            await self._slots.acquire()
        finally:
            self._waiting -= 1
        try:
            yield
        finally:
            self._slots.release()

    async def run(self, work: Callable[..., T], *args: object) -> T:
        """Run a password hash or check (inside :meth:`hashing`) on a low-priority thread."""
        return await asyncio.get_running_loop().run_in_executor(self._pool, work, *args)

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)

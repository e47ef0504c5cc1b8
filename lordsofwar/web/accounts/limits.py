"""Limits on accounts: sign-ups per address, sign-in attempts, and password hashes at once.

Counting is done by the ``limits`` library (a moving window), in memory for one process
(:class:`LocalStorage`) or in Redis when LOW_REDIS_URL is set, so that the limits hold across
server processes. Keys start with the installation's prefix (Settings.redis_namespace): two
installations sharing one Redis keep apart. :func:`hit_all` counts one hit in several windows
at once, or in none (one round trip to Redis).

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
import weakref
from collections import Counter
from collections.abc import AsyncIterator, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from typing import Any, TypeVar

from limits import RateLimitItem, RateLimitItemPerHour, RateLimitItemPerSecond
from limits.aio.storage import MovingWindowSupport, RedisStorage, Storage
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


PRUNE_EVERY = 60.0
"""Seconds between two sweeps of :class:`LocalStorage`'s expired windows."""


class LocalStorage(Storage, MovingWindowSupport):
    """The limits of one process, in memory: the moving windows (and fixed counters) of the
    ``limits`` library's storage interface, with nothing that waits. Every method runs to its
    end without giving the event loop a turn, so a test and a hit of several windows made
    together (:func:`hit_all`) cannot be split by another request.

    The library's own MemoryStorage is not used: after each hit it sweeps every key, one hop to
    a thread per key, again and again while hits come; with a thousand chatting players that
    kept half a core busy. Here expired windows are dropped in one pass a minute."""

    STORAGE_SCHEME = None

    def __init__(self) -> None:
        super().__init__()
        self.windows: dict[str, list[float]] = {}
        """Each key's hit times, newest first, at most its limit."""
        self.ends: dict[str, float] = {}
        """When each key's window (or counter) is empty again."""
        self.counters: Counter[str] = Counter()
        self.pruned = time.time()

    @property
    def base_exceptions(self) -> type[Exception] | tuple[type[Exception], ...]:
        return ValueError

    def _prune(self, now: float) -> None:
        if now - self.pruned < PRUNE_EVERY:
            return
        self.pruned = now
        for key in [k for k, end in self.ends.items() if end <= now]:
            self.ends.pop(key, None)
            self.windows.pop(key, None)
            self.counters.pop(key, None)

    async def acquire_entry(self, key: str, limit: int, expiry: int, amount: int = 1) -> bool:
        if amount > limit:
            return False
        now = time.time()
        self._prune(now)
        window = self.windows.setdefault(key, [])
        if len(window) > limit - amount and window[limit - amount] >= now - expiry:
            return False
        window[:0] = [now] * amount
        del window[limit:]
        self.ends[key] = now + expiry
        return True

    async def get_moving_window(self, key: str, limit: int, expiry: int) -> tuple[float, int]:
        now = time.time()
        inside = [t for t in self.windows.get(key, ()) if t >= now - expiry]
        return (inside[-1], len(inside)) if inside else (now, 0)

    async def incr(self, key: str, expiry: int, amount: int = 1) -> int:
        now = time.time()
        self._prune(now)
        if self.ends.get(key, now) <= now:
            self.counters.pop(key, None)
        if key not in self.counters:
            self.ends[key] = now + expiry
        self.counters[key] += amount
        return self.counters[key]

    async def get(self, key: str) -> int:
        return self.counters[key] if self.ends.get(key, 0.0) > time.time() else 0

    async def get_expiry(self, key: str) -> float:
        return self.ends.get(key, time.time())

    async def check(self) -> bool:
        return True

    async def reset(self) -> int | None:
        count = len(self.ends)
        self.windows.clear()
        self.ends.clear()
        self.counters.clear()
        return count

    async def clear(self, key: str) -> None:
        self.windows.pop(key, None)
        self.ends.pop(key, None)
        self.counters.pop(key, None)


HIT_ALL_LUA = """
-- KEYS: the moving windows; ARGV: now, then each window's limit and expiry (seconds).
-- The limits library's moving window (a list of hit times, newest first): a hit in every
-- window, or in none; the number (from 1) of the first full window, or 0.
local now = tonumber(ARGV[1])
for i = 1, #KEYS do
    local limit = tonumber(ARGV[2 * i])
    local entry = redis.call('lindex', KEYS[i], limit - 1)
    if entry and tonumber(entry) >= now - tonumber(ARGV[2 * i + 1]) then
        return i
    end
end
for i = 1, #KEYS do
    local limit = tonumber(ARGV[2 * i])
    redis.call('lpush', KEYS[i], now)
    redis.call('ltrim', KEYS[i], 0, limit - 1)
    redis.call('expire', KEYS[i], tonumber(ARGV[2 * i + 1]))
end
return 0
"""
_scripts: weakref.WeakKeyDictionary[Storage, Any] = weakref.WeakKeyDictionary()
"""Each Redis storage's registered :data:`HIT_ALL_LUA` (run by its hash, loaded when missing)."""


async def hit_all(storage: Storage, checks: Sequence[tuple[RateLimitItem, Sequence[str]]]) -> int | None:
    """Count one hit in each moving window of ``checks`` (an item and its identifiers, as
    ``MovingWindowRateLimiter.hit`` takes them) if none of them is full, else in none: None
    when counted, or the index in ``checks`` of the first full window. With Redis one round
    trip, run as one script (atomic across processes); in memory without a pause."""
    if isinstance(storage, RedisStorage):
        bridge: Any = storage.bridge
        script = _scripts.get(storage)
        if script is None:
            script = _scripts[storage] = bridge.get_connection().register_script(HIT_ALL_LUA)
        keys = [bridge.prefixed_key(item.key_for(*ids)) for item, ids in checks]
        args: list[float] = [time.time()]
        for item, _ids in checks:
            args += [item.amount, item.get_expiry()]
        full = int(await script(keys, args))
        return None if full == 0 else full - 1
    limiter = MovingWindowRateLimiter(storage)
    for index, (item, ids) in enumerate(checks):
        if not await limiter.test(item, *ids):
            return index
    for item, ids in checks:
        await limiter.hit(item, *ids)
    return None


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
            storage = LocalStorage()
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

"""A player's sessions as the settings page lists them: when each was opened and last used,
the browser (a short name read from its User-Agent by ``ua-parser``), and the network it was
opened from (the /24 of an IPv4 address, the /48 of an IPv6 one: never the whole address).
A player signs out one session or every other one; the sockets of a closed session close too,
on every server process (lordsofwar.web.games.hub.Hub.drop_sessions)."""

from __future__ import annotations

import asyncio
import ipaddress
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.requests import HTTPConnection
from ua_parser import parse

from lordsofwar.web.accounts import service as accounts
from lordsofwar.web.models import AuthSession, utcnow

USER_AGENT_MAX = 512
"""Only so much of a User-Agent header is read."""
BROWSER_MAX = 60
ID_LENGTH = 16
"""A session is named to its owner by the first characters of its token's hash: enough to tell
a player's sessions apart, and only ever matched among that player's own sessions."""


@lru_cache(maxsize=256)
def browser_name(user_agent: str) -> str | None:
    """"Firefox, Windows" (browser and system by ua-parser's rules); None when neither is known."""
    found = parse(user_agent[:USER_AGENT_MAX])
    browser = found.user_agent.family if found.user_agent and found.user_agent.family != "Other" else None
    system = found.os.family if found.os and found.os.family != "Other" else None
    name = ", ".join(part for part in (browser, system) if part)
    return name[:BROWSER_MAX] or None


def network(ip: str) -> str | None:
    """The network an address belongs to, as kept: ``203.0.113.0/24`` or ``2001:db8:1::/48``;
    None for what is not an address (a test client, a Unix socket)."""
    try:
        address = ipaddress.ip_address(ip)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    prefix = 24 if isinstance(address, ipaddress.IPv4Address) else 48
    return str(ipaddress.ip_network(f"{address}/{prefix}", strict=False))


async def details(conn: HTTPConnection, ip: str) -> dict[str, str | None]:
    """What a new session keeps of the request that opens it: ``browser`` and ``address``. The
    first parse compiles ua-parser's rules (a fraction of a second): on a thread, not in the loop."""
    agent = conn.headers.get("user-agent", "")
    browser = await asyncio.to_thread(browser_name, agent[:USER_AGENT_MAX]) if agent else None
    return {"browser": browser, "address": network(ip)}


def session_id(hashed: str) -> str:
    return hashed[:ID_LENGTH]


def current_hash(conn: HTTPConnection) -> str | None:
    """The hash of the session this request comes with (None: no session cookie)."""
    token = conn.cookies.get(accounts.SESSION_COOKIE)
    return accounts.token_hash(token) if token and len(token) <= 100 else None


@dataclass(frozen=True)
class SessionRow:
    id: str
    created_at: datetime
    last_seen_at: datetime
    browser: str | None
    address: str | None
    current: bool


async def listing(db: AsyncSession, user_id: int, current: str | None) -> list[SessionRow]:
    """The player's unexpired sessions, the one in use first, then the most recently seen."""
    rows = await db.scalars(
        select(AuthSession).where(AuthSession.user_id == user_id, AuthSession.expires_at > utcnow())
    )
    found = [
        SessionRow(
            id=session_id(row.token_hash),
            created_at=row.created_at,
            last_seen_at=row.last_seen_at or row.created_at,
            browser=row.browser,
            address=row.address,
            current=row.token_hash == current,
        )
        for row in rows
    ]
    return sorted(found, key=lambda r: (not r.current, -r.last_seen_at.timestamp()))


async def close(db: AsyncSession, user_id: int, *, only: str | None = None, keep: str | None = None) -> list[str]:
    """Delete the player's sessions: the one named ``only`` (its id), or every one but ``keep``
    (a token hash; None: all). The hashes of those deleted (for closing their sockets); the
    caller commits."""
    hashes = list(await db.scalars(select(AuthSession.token_hash).where(AuthSession.user_id == user_id)))
    if only is not None:
        doomed = [h for h in hashes if session_id(h) == only and len(only) == ID_LENGTH]
    else:
        doomed = [h for h in hashes if h != keep]
    if doomed:
        await db.execute(delete(AuthSession).where(AuthSession.user_id == user_id, AuthSession.token_hash.in_(doomed)))
    return doomed

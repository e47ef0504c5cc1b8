"""Accounts: Argon2id password hashes, server-side sessions, CSRF tokens, sign-in limits."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import re
import secrets
from datetime import datetime, timedelta

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from sqlalchemy import delete, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from lordsofwar.web.models import AuthSession, LoginFailure, User, utcnow
from lordsofwar.web.settings import Settings

SESSION_COOKIE = "low_session"
CSRF_COOKIE = "low_csrf"
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
NAME_MIN, NAME_MAX = 3, 24
PASSWORD_MIN, PASSWORD_MAX = 8, 200
RESERVED = {"admin", "bot", "random", "greedy", "system", "spectator", "anonymous"}


class AuthError(ValueError):
    """A sign-up or sign-in refused, with a message for the user."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


class Passwords:
    """Argon2id (a memory-hard hash) with the library's default cost unless settings lower it."""

    def __init__(self, settings: Settings):
        self.hasher = PasswordHasher(time_cost=settings.argon2_time_cost, memory_cost=settings.argon2_memory_kib)

    def hash(self, password: str) -> str:
        return self.hasher.hash(password)

    def verify(self, stored: str, password: str) -> bool:
        try:
            return self.hasher.verify(stored, password)
        except (VerifyMismatchError, VerificationError, InvalidHashError):
            return False


def check_name(name: str) -> str:
    name = name.strip()
    if not NAME_MIN <= len(name) <= NAME_MAX:
        raise AuthError(f"the name must be {NAME_MIN} to {NAME_MAX} characters long (it has {len(name)})")
    if not NAME_RE.match(name):
        raise AuthError("the name may hold only letters, digits, '_', '.' and '-', and must start with a letter or digit")
    if name.lower() in RESERVED:
        raise AuthError(f"the name {name!r} is reserved; choose another")
    return name


def check_password(password: str) -> str:
    if len(password) < PASSWORD_MIN:
        raise AuthError(f"the password must be at least {PASSWORD_MIN} characters long")
    if len(password) > PASSWORD_MAX:
        raise AuthError(f"the password must be at most {PASSWORD_MAX} characters long")
    return password


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    return secrets.token_urlsafe(32)


def same_token(a: str | None, b: str | None) -> bool:
    return bool(a) and bool(b) and hmac.compare_digest(str(a), str(b))


async def sign_up(db: AsyncSession, passwords: Passwords, name: str, password: str) -> User:
    name = check_name(name)
    check_password(password)
    taken = await db.scalar(select(User.id).where(User.name_key == name.lower()))
    await db.rollback()  # hand the connection back while hashing
    if taken is not None:
        raise AuthError(f"the name {name!r} is taken; choose another", 409)
    # Argon2 takes a good fraction of a second by design: off the event loop, so games go on
    hashed = await asyncio.to_thread(passwords.hash, password)
    user = User(name=name, name_key=name.lower(), password_hash=hashed)
    db.add(user)
    try:
        await db.flush()
    except IntegrityError:  # the same name, signed up at the same moment
        await db.rollback()
        raise AuthError(f"the name {name!r} is taken; choose another", 409) from None
    return user


async def _failures(db: AsyncSession, keys: list[str], since: datetime) -> int:
    count = await db.scalar(select(func.count()).where(LoginFailure.key.in_(keys), LoginFailure.at >= since))
    return int(count or 0)


_name_locks: dict[str, asyncio.Lock] = {}


async def sign_in(db: AsyncSession, passwords: Passwords, settings: Settings, name: str, password: str, ip: str) -> User:
    """The user, or AuthError; too many recent failures for the name or the address → 429.

    Each attempt is recorded as a failure before the password is checked (and the record
    removed when it was right), and attempts on one name are checked one at a time in a
    process: parallel guesses cannot slip past the limit.
    """
    name = name.strip()[: NAME_MAX + 1]
    key = name.lower()
    lock = _name_locks.setdefault(key, asyncio.Lock())
    try:
        async with lock:
            return await _sign_in(db, passwords, settings, name, password, ip)
    finally:
        if not lock.locked() and not lock._waiters:  # type: ignore[attr-defined]
            _name_locks.pop(key, None)


async def _sign_in(db: AsyncSession, passwords: Passwords, settings: Settings, name: str, password: str, ip: str) -> User:
    now = utcnow()
    keys = [f"name:{name.lower()}", f"ip:{ip}"]
    window = timedelta(seconds=settings.login_window_s)
    await db.execute(delete(LoginFailure).where(LoginFailure.at < now - window))
    attempt = [LoginFailure(key=k, at=now) for k in keys]
    db.add_all(attempt)
    await db.commit()  # recorded before the check; the connection goes back while verifying
    if await _failures(db, keys[:1], now - window) > settings.login_attempts or await _failures(
        db, keys[1:], now - window
    ) > settings.login_attempts * 4:
        await db.commit()
        minutes = max(1, settings.login_window_s // 60)
        raise AuthError(f"too many failed sign-ins; try again in {minutes} minutes", 429)
    user = await db.scalar(select(User).where(User.name_key == name.lower()))
    await db.commit()
    ok = user is not None and len(password) <= PASSWORD_MAX
    if ok:
        assert user is not None
        ok = await asyncio.to_thread(passwords.verify, user.password_hash, password)
    if not ok or user is None:
        raise AuthError("wrong name or password", 401)
    if passwords.hasher.check_needs_rehash(user.password_hash):
        user.password_hash = await asyncio.to_thread(passwords.hash, password)
        db.add(user)
    # a right password clears the name's failures, this attempt's included
    await db.execute(delete(LoginFailure).where(LoginFailure.key == keys[0]))
    await db.execute(delete(LoginFailure).where(LoginFailure.id.in_([a.id for a in attempt])))
    return user


async def open_session(db: AsyncSession, user: User, settings: Settings) -> str:
    token = new_token()
    db.add(
        AuthSession(
            token_hash=token_hash(token), user_id=user.id, expires_at=utcnow() + timedelta(days=settings.session_days)
        )
    )
    return token


async def session_user(db: AsyncSession, token: str | None) -> User | None:
    if not token or len(token) > 100:
        return None
    row = await db.execute(
        select(User, AuthSession.expires_at)
        .join(AuthSession, AuthSession.user_id == User.id)
        .where(AuthSession.token_hash == token_hash(token))
    )
    found = row.first()
    if found is None or found[1] <= utcnow():
        return None
    return found[0]


async def close_session(db: AsyncSession, token: str | None) -> None:
    if token:
        await db.execute(delete(AuthSession).where(AuthSession.token_hash == token_hash(token)))

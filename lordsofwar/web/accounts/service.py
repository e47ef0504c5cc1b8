"""Accounts: Argon2id password hashes, server-side sessions, CSRF tokens derived from the
session, sign-up and sign-in."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from datetime import timedelta

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from babel.dates import format_date
from sqlalchemy import Table, delete, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.requests import HTTPConnection

from lordsofwar import i18n
from lordsofwar.bots import BOTS
from lordsofwar.i18n import N_, _
from lordsofwar.web.accounts.limits import Guard
from lordsofwar.web.db import upsert
from lordsofwar.web.models import AuthSession, HeldName, ServerSecret, User, utcnow
from lordsofwar.web.settings import Settings

SESSION_COOKIE = "low_session"
BROWSER_COOKIE = "low_csrf"
"""A random id per browser (HttpOnly): what a signed-out visitor's CSRF token is derived from."""
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
NAME_MIN, NAME_MAX = 3, 24
PASSWORD_MIN, PASSWORD_MAX = 8, 200
USERS: Table = User.__table__  # type: ignore[assignment]
RESERVED = {"admin", "bot", "random", "greedy", "system", "spectator", "anonymous"}
CLOSED_PREFIX = "closed-"
"""A closed account's placeholder name is this and the account's number (accounts.closing): no
new name may start with it, so a placeholder is never anyone else's."""


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
        raise AuthError(
            _("the name must be {min} to {max} characters long (it has {length})").format(
                min=NAME_MIN, max=NAME_MAX, length=len(name)
            )
        )
    if not NAME_RE.match(name):
        raise AuthError(
            _("the name may hold only letters, digits, '_', '.' and '-', and must start with a letter or digit")
        )
    if name.lower() in RESERVED:
        raise AuthError(_("the name {name!r} is reserved; choose another").format(name=name))
    if name.lower().startswith(CLOSED_PREFIX):
        raise AuthError(_("names starting with {prefix!r} are kept for closed accounts; choose another").format(prefix=CLOSED_PREFIX))
    return name


async def find_user(db: AsyncSession, name: str) -> User | None:
    """The user called ``name`` (case does not count), or None. A text that cannot be a name is
    nobody's, and never reaches the database (PostgreSQL refuses NUL characters, for one); a
    built-in bot's account (``General bot``) is found by its name too; a closed account
    (accounts.closing) is nobody's: it cannot be challenged, looked up or signed in to."""
    name = name.strip()
    key = name.lower()
    if key not in BOT_ACCOUNT_KEYS and (not NAME_MIN <= len(name) <= NAME_MAX or not NAME_RE.fullmatch(name)):
        return None
    return await db.scalar(select(User).where(User.name_key == key, User.closed_at.is_(None)))


BOT_ACCOUNTS = {level: f"{level.capitalize()} bot" for level in BOTS}
"""The account name of each built-in bot level: with a space, so no player can sign up as one."""
BOT_ACCOUNT_KEYS = {name.lower() for name in BOT_ACCOUNTS.values()}
NO_PASSWORD = "!"
"""A bot account's password hash: no password verifies against it."""


async def bot_account(db: AsyncSession, level: str) -> User:
    """The account a built-in bot level plays under (in tournaments), made on first use; one
    statement makes it, so two processes doing it at once get the same account."""
    if level not in BOT_ACCOUNTS:
        raise AuthError(
            _("there is no bot level {level!r} (known: {known})").format(level=level[:20], known=", ".join(BOT_ACCOUNTS)), 422
        )
    name = BOT_ACCOUNTS[level]
    values = {"name": name, "name_key": name.lower(), "password_hash": NO_PASSWORD, "created_at": utcnow(), "bot": level}
    await upsert(db, USERS, values, "name_key")
    user = await db.scalar(select(User).where(User.name_key == name.lower()))
    assert user is not None and user.bot == level, "the bot's account was just made"
    return user


def check_password(password: str) -> str:
    if len(password) < PASSWORD_MIN:
        raise AuthError(_("the password must be at least {n} characters long").format(n=PASSWORD_MIN))
    if len(password) > PASSWORD_MAX:
        raise AuthError(_("the password must be at most {n} characters long").format(n=PASSWORD_MAX))
    return password


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    return secrets.token_urlsafe(32)


class CsrfTokens:
    """CSRF tokens bound to the session: HMAC-SHA256, with the server's key, of the session
    token's hash (signed in) or of the browser's pre-session id (signed out). A token taken from
    one session, or made up and planted as a cookie, is worth nothing in another."""

    def __init__(self, key: bytes | None = None):
        self.key = key

    def token(self, conn: HTTPConnection, browser_id: str | None = None) -> str:
        """The token for this request's cookies (``browser_id``: a pre-session id being set now)."""
        return self.of(conn.cookies.get(SESSION_COOKIE), browser_id or conn.cookies.get(BROWSER_COOKIE))

    def of(self, session: str | None, browser_id: str | None) -> str:
        """The token for a session cookie (signed in) or else a browser id (signed out)."""
        if self.key is None:
            raise RuntimeError("the CSRF key is loaded when the application starts")
        if session and len(session) <= 100:
            basis = "session:" + token_hash(session)
        else:
            basis = "browser:" + (browser_id or "")[:100]
        return hmac.new(self.key, basis.encode(), hashlib.sha256).hexdigest()

    def valid(self, conn: HTTPConnection, sent: str | None) -> bool:
        if not sent or len(sent) > 100 or self.key is None:
            return False
        return hmac.compare_digest(self.token(conn), sent)


async def server_key(db: AsyncSession, settings: Settings) -> bytes:
    """The key CSRF tokens are derived with: LOW_SECRET_KEY, or one made at the first start and
    kept in the database (every process of the installation reads the same one)."""
    if settings.secret_key:
        return settings.secret_key.encode()
    table: Table = ServerSecret.__table__  # type: ignore[assignment]
    await upsert(db, table, {"name": "csrf", "value": secrets.token_hex(32)}, "name")  # the first one made stays
    await db.commit()
    value = await db.scalar(select(ServerSecret.value).where(ServerSecret.name == "csrf"))
    assert value is not None
    return bytes.fromhex(value)


async def sign_up(db: AsyncSession, passwords: Passwords, guard: Guard, name: str, password: str, ip: str) -> User:
    """A new account, signed in; AuthError when the name or password is refused, the name is
    taken, this address made too many accounts lately, or too many hashes wait (429)."""
    name = check_name(name)
    check_password(password)
    too_many = _("too many new accounts from your address; try again in an hour (at most {n} an hour)").format(
        n=guard.signups
    )
    if not await guard.sign_up_allowed(ip):  # refused at once, without waiting for a hash slot
        raise AuthError(too_many, 429)
    taken = await db.scalar(select(User.id).where(User.name_key == name.lower()))
    held = await db.scalar(select(HeldName.held_until).where(HeldName.name_key == name.lower(), HeldName.held_until > utcnow()))
    await db.rollback()  # hand the connection back while hashing
    if taken is not None:
        raise AuthError(_("the name {name!r} is taken; choose another").format(name=name), 409)
    if held is not None:  # a closed account's name, kept for a while (accounts.closing)
        when = format_date(held, format="long", locale=i18n.babel_locale())
        raise AuthError(
            _("the name {name!r} belonged to an account that was closed; it is free again from {date}").format(name=name, date=when),
            409,
        )
    # Argon2 takes a good fraction of a second by design: off the event loop, on a thread of
    # lower priority, one (by default) at a time, so that games go on
    async with guard.hashing():
        # counted once a slot is had: a request refused as busy costs the address nothing
        if not await guard.sign_up_attempt(ip):
            raise AuthError(too_many, 429)
        hashed = await guard.run(passwords.hash, password)
    user = User(name=name, name_key=name.lower(), password_hash=hashed, locale=i18n.current())
    db.add(user)
    try:
        await db.flush()
    except IntegrityError:  # the same name, signed up at the same moment
        await db.rollback()
        raise AuthError(_("the name {name!r} is taken; choose another").format(name=name), 409) from None
    return user


SIGN_IN_BLOCKED = {
    "for this name from your address": N_(
        "too many failed sign-ins for this name from your address; try again in {minutes} minutes"
    ),
    "from your address": N_("too many failed sign-ins from your address; try again in {minutes} minutes"),
    "for this name": N_("too many failed sign-ins for this name; try again in {minutes} minutes"),
}
"""The refusal for each limit :meth:`Guard.sign_in_attempt` names, a whole sentence each."""


async def sign_in(db: AsyncSession, passwords: Passwords, guard: Guard, name: str, password: str, ip: str) -> User:
    """The user, or AuthError (401 wrong, 429 too many attempts or the server busy hashing).

    Every attempt counts against three limits before the password is checked (so parallel
    guesses cannot slip past): per name from this address, per address, and per name from
    every address, the last much higher, so that nobody can lock an owner out from one address.
    A right password clears the count for the name from this address.
    """
    name = name.strip()[: NAME_MAX + 1]
    key = name.lower()
    blocked = await guard.sign_in_attempt(key, ip)
    if blocked is not None:
        raise AuthError(_(SIGN_IN_BLOCKED[blocked]).format(minutes=guard.login_minutes), 429)
    user = await find_user(db, name)
    await db.commit()  # the connection goes back while verifying
    ok = False
    if user is not None and user.bot is None and user.closed_at is None and len(password) <= PASSWORD_MAX:
        async with guard.hashing():
            ok = await guard.run(passwords.verify, user.password_hash, password)
    if not ok or user is None:
        raise AuthError(_("wrong name or password"), 401)
    from lordsofwar.web.moderation import service as moderation  # imported here: it imports accounts

    ban = await moderation.ban_of(db, user.id)
    if ban is not None:  # told only to whoever knows the password
        raise AuthError(moderation.ban_message(ban), 403)
    if passwords.hasher.check_needs_rehash(user.password_hash):
        async with guard.hashing():
            user.password_hash = await guard.run(passwords.hash, password)
        db.add(user)
    await guard.signed_in(key, ip)
    return user


async def open_session(
    db: AsyncSession, user: User, settings: Settings, browser: str | None = None, address: str | None = None
) -> str:
    """A new session's token (its hash is kept, with the browser's short name and the network
    it came from: accounts.sessions)."""
    token = new_token()
    now = utcnow()
    db.add(
        AuthSession(
            token_hash=token_hash(token),
            user_id=user.id,
            created_at=now,
            expires_at=now + timedelta(days=settings.session_days),
            last_seen_at=now,
            browser=browser,
            address=address,
        )
    )
    return token


LAST_SEEN_EVERY = timedelta(minutes=1)
"""A session's ``last_seen_at`` is written at most this often, not on every request."""


async def session_user(db: AsyncSession, token: str | None) -> User | None:
    if not token or len(token) > 100:
        return None
    hashed = token_hash(token)
    row = await db.execute(
        select(User, AuthSession.expires_at, AuthSession.last_seen_at)
        .join(AuthSession, AuthSession.user_id == User.id)
        .where(AuthSession.token_hash == hashed)
    )
    found = row.first()
    now = utcnow()
    if found is None or found[1] <= now:
        return None
    if found[2] is None or found[2] < now - LAST_SEEN_EVERY:
        await db.execute(
            update(AuthSession)
            .where(AuthSession.token_hash == hashed, or_(AuthSession.last_seen_at.is_(None), AuthSession.last_seen_at < now - LAST_SEEN_EVERY))
            .values(last_seen_at=now)
        )
        await db.commit()
    return found[0]


async def close_session(db: AsyncSession, token: str | None) -> None:
    if token:
        await db.execute(delete(AuthSession).where(AuthSession.token_hash == token_hash(token)))

"""Changing a password, and setting a new one through a link mailed to the confirmed address
when it is forgotten (docs/web.md, "Your account").

A reset link carries a random token (256 bits); only its SHA-256 is kept (``password_resets``).
It works once, for an hour, and no more after any later change of the password. Asking for one
answers the same whatever was typed: the request is counted against limits that do not depend
on whether an account exists (per address the request comes from, per name or email typed), the
answer is sent, and only then, after the response, is the account looked up and the mail queued
(a per-account limit there drops extra mails in silence), so neither the answer nor its timing
tells whether an account or an address exists.

A changed password signs out every other session of the player, and the sockets of those
sessions close on every server process; a mail tells the confirmed address what happened.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from limits import RateLimitItem, RateLimitItemPerHour
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from lordsofwar import i18n
from lordsofwar.i18n import _, ngettext
from lordsofwar.web.accounts import service as accounts
from lordsofwar.web.accounts import sessions
from lordsofwar.web.accounts.limits import Guard
from lordsofwar.web.models import MailOutbox, MailSettings, PasswordReset, User, utcnow
from lordsofwar.web.notify import service as notify
from lordsofwar.web.problem import Problem

log = logging.getLogger("lordsofwar.web.accounts")

RESET_VALID = timedelta(hours=1)
"""How long a reset link works."""
ASKS_PER_TEXT = 3
"""Requests an hour for one name or address typed (whoever asks)."""
ASKS_PER_ADDRESS = 10
"""Requests an hour from one network address (whatever is typed)."""
LINKS_PER_ACCOUNT = 3
"""Reset mails an hour for one account (more are dropped in silence: the answer never tells)."""
ACCOUNTS_PER_EMAIL = 5
"""An address confirmed by several accounts gets a link for each, for at most this many."""
WHO_MAX = 254
PER_TEXT: RateLimitItem = RateLimitItemPerHour(ASKS_PER_TEXT)
PER_ADDRESS: RateLimitItem = RateLimitItemPerHour(ASKS_PER_ADDRESS)
PER_ACCOUNT: RateLimitItem = RateLimitItemPerHour(LINKS_PER_ACCOUNT)


def _who_key(who: str) -> str:
    """What a request is counted under: the name or address as typed, case and spaces aside."""
    return " ".join(who.split()).lower()[:WHO_MAX]


async def ask(guard: Guard, who: str, ip: str) -> str:
    """Count a request for a reset link (the same whether or not anyone is called ``who``);
    Problem 422 for an empty or over-long text, 429 past a limit. The text to look up later."""
    if not who:
        raise Problem(422, _("type your name or your confirmed email address"))
    who = who.strip()  # nothing but spaces: counted, and answered, like any name nobody has
    if len(who) > WHO_MAX:
        raise Problem(422, _("at most {n} characters").format(n=WHO_MAX))
    too_many = _("too many requests for a new password; try again in an hour")
    if not await guard.limiter.hit(PER_ADDRESS, "reset-ask-address", ip):
        raise Problem(429, too_many)
    if not await guard.limiter.hit(PER_TEXT, "reset-ask-text", _who_key(who)):
        raise Problem(429, too_many)
    return who


async def _targets(db: AsyncSession, who: str) -> list[tuple[User, str]]:
    """The accounts a request is for, each with its confirmed address."""
    query = select(User, MailSettings.email).join(MailSettings, MailSettings.user_id == User.id)
    query = query.where(MailSettings.confirmed.is_(True), MailSettings.email.is_not(None), User.bot.is_(None))
    if "@" in who:
        try:
            address = notify.normalise(who)
        except Problem:
            return []
        found = await db.execute(query.where(MailSettings.email == address).order_by(User.id).limit(ACCOUNTS_PER_EMAIL))
    else:
        user = await accounts.find_user(db, who)
        if user is None:
            return []
        found = await db.execute(query.where(User.id == user.id))
    return [(user, str(email)) for user, email in found.all()]


async def send_links(db_sessions: async_sessionmaker[AsyncSession], mailer: notify.Mailer, guard: Guard, who: str) -> int:
    """Queue a reset mail for each account ``who`` names (run after the answer is sent); the
    number queued."""
    queued = 0
    try:
        async with db_sessions() as db:
            for user, email in await _targets(db, who):
                if not await guard.limiter.hit(PER_ACCOUNT, "reset-account", str(user.id)):
                    continue
                token = accounts.new_token()
                now = utcnow()
                db.add(
                    PasswordReset(
                        user_id=user.id, token_hash=accounts.token_hash(token), created_at=now, expires_at=now + RESET_VALID
                    )
                )
                _queue_reset(db, mailer, user, email, token)
                queued += 1
            await db.commit()
    except Exception:
        log.exception("a password reset mail could not be queued")
        return 0
    if queued:
        mailer.wake()
    return queued


def _mail(db: AsyncSession, user: User, kind: str, to: str, subject: str, body: str) -> None:
    now = utcnow()
    db.add(
        MailOutbox(
            user_id=user.id, kind=kind, to_addr=to, subject=subject[:200], body=body, headers={},
            status="queued", attempts=0, next_at=now, created_at=now,
        )  # fmt: skip
    )


def _queue_reset(db: AsyncSession, mailer: notify.Mailer, user: User, email: str, token: str) -> None:
    link = f"{mailer.settings.public_url}/reset?token={token}"
    minutes = int(RESET_VALID.total_seconds() // 60)
    with i18n.use(user.locale):
        body = (
            _("Hello {name},").format(name=user.name)
            + "\n\n"
            + _("Someone (you, we hope) asked Lords of War for a new password for the account {name}.").format(
                name=user.name
            )
            + "\n"
            + ngettext(
                "To choose one, open this link within {n} minute (it works once):",
                "To choose one, open this link within {n} minutes (it works once):",
                minutes,
            ).format(n=minutes)
            + f"\n\n{link}\n\n"
            + _("If it was not you, ignore this mail: your password stays as it is.")
            + "\n"
        )
        subject = _("Lords of War: a new password")
    _mail(db, user, notify.RESET_KIND, email, subject, body)


async def _queue_changed(db: AsyncSession, mailer: notify.Mailer, user: User) -> bool:
    """Tell the player's confirmed address that the password changed (False: none to tell)."""
    row = await db.get(MailSettings, user.id)
    if row is None or not row.confirmed or not row.email or not mailer.available:
        return False
    base = mailer.settings.public_url
    with i18n.use(user.locale):
        body = (
            _("Hello {name},").format(name=user.name)
            + "\n\n"
            + _("The password of your Lords of War account {name} was changed on {when} (UTC).").format(
                name=user.name, when=f"{utcnow():%Y-%m-%d %H:%M}"
            )
            + "\n"
            + _("Every other session of the account was signed out.")
            + "\n\n"
            + _("If it was you, there is nothing more to do.")
            + "\n"
            + _(
                "If it was not you, someone knows your password or can read your mail: choose a new password "
                "at {link} (the link goes to this address), and check the sessions on {settings}."
            ).format(link=f"{base}/forgot", settings=f"{base}/settings")
            + "\n"
        )
        subject = _("Lords of War: your password was changed")
    _mail(db, user, notify.PASSWORD_KIND, row.email, subject, body)
    return True


async def _spend_links(db: AsyncSession, user_id: int) -> None:
    """Every unused reset link of the player stops working (the password just changed)."""
    await db.execute(
        update(PasswordReset)
        .where(PasswordReset.user_id == user_id, PasswordReset.used_at.is_(None))
        .values(used_at=utcnow())
    )


async def change_password(
    db: AsyncSession, passwords: accounts.Passwords, guard: Guard, mailer: notify.Mailer,
    user: User, current: str, new: str, keep: str | None, ip: str,
) -> tuple[list[str], bool]:  # fmt: skip
    """Set a new password after checking the current one (each try counts as a sign-in
    attempt); every session but ``keep`` (the one in use) is deleted. The hashes of the sessions
    closed, and whether a mail was queued; the caller closes their sockets and wakes the mailer."""
    accounts.check_password(new)
    key = user.name_key
    blocked = await guard.sign_in_attempt(key, ip)
    if blocked is not None:
        raise accounts.AuthError(_(accounts.SIGN_IN_BLOCKED[blocked]).format(minutes=guard.login_minutes), 429)
    row = await db.get(User, user.id)
    if row is None:
        raise Problem(401, _("sign in first"))
    stored = row.password_hash
    await db.commit()  # the connection goes back while hashing
    async with guard.hashing():
        ok = len(current) <= accounts.PASSWORD_MAX and await guard.run(passwords.verify, stored, current)
        if not ok:
            raise accounts.AuthError(_("the current password is wrong"), 403)
        hashed = await guard.run(passwords.hash, new)
    await guard.signed_in(key, ip)
    closed = await _set_password(db, row, hashed, keep)
    mailed = await _queue_changed(db, mailer, row)
    await db.commit()
    return closed, mailed


async def _set_password(db: AsyncSession, user: User, hashed: str, keep: str | None) -> list[str]:
    await db.execute(update(User).where(User.id == user.id).values(password_hash=hashed))
    user.password_hash = hashed
    await _spend_links(db, user.id)
    return await sessions.close(db, user.id, keep=keep)


async def _link(db: AsyncSession, token: str) -> PasswordReset:
    """The reset link of ``token`` while it still works; Problem 400 saying why not."""
    row = None
    if token and len(token) <= 100:
        row = await db.scalar(select(PasswordReset).where(PasswordReset.token_hash == accounts.token_hash(token)))
    if row is None:
        raise Problem(404, _("this link to set a new password is not valid (altered or not ours)"))
    if row.used_at is not None:
        raise Problem(409, _("this link to set a new password was already used or replaced: ask for a new one"))
    if row.expires_at <= utcnow():
        raise Problem(409, _("this link to set a new password has expired: ask for a new one"))
    return row


async def check_link(db: AsyncSession, guard: Guard, token: str, ip: str) -> User:
    """Whose link ``token`` is, if it still works (nothing is spent); unknown tokens are counted
    against the address like unknown bearer tokens (429 past the limit)."""
    wait = await guard.bad_token_wait(ip)
    if wait:
        raise Problem(429, _("too many wrong links from your address; try again in {s} s").format(s=wait))
    try:
        row = await _link(db, token)
    except Problem:
        await guard.bad_token(ip)
        raise
    user = await db.get(User, row.user_id)
    if user is None:
        raise Problem(404, _("this link to set a new password is not valid (altered or not ours)"))
    return user


async def reset_password(
    db: AsyncSession, passwords: accounts.Passwords, guard: Guard, mailer: notify.Mailer, token: str, new: str, ip: str
) -> tuple[User, list[str]]:
    """Spend the link ``token`` and set ``new`` as the password: every session of the player is
    deleted (the caller opens a new one). The player, and the hashes of the sessions closed."""
    accounts.check_password(new)
    await check_link(db, guard, token, ip)
    await db.commit()
    async with guard.hashing():
        hashed = await guard.run(passwords.hash, new)
    row = await _link(db, token)  # again: it may have been spent while hashing
    spent = await db.execute(
        update(PasswordReset)
        .where(PasswordReset.id == row.id, PasswordReset.used_at.is_(None), PasswordReset.expires_at > utcnow())
        .values(used_at=utcnow())
    )
    if getattr(spent, "rowcount", 0) != 1:
        await db.rollback()
        raise Problem(409, _("this link to set a new password was already used or replaced: ask for a new one"))
    user = await db.get(User, row.user_id)
    if user is None:
        await db.rollback()
        raise Problem(404, _("this link to set a new password is not valid (altered or not ours)"))
    closed = await _set_password(db, user, hashed, None)
    await _queue_changed(db, mailer, user)
    return user, closed

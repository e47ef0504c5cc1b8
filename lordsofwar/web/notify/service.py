"""Email for turn-based games: players' addresses (confirmed by a signed link before any other
mail goes to them), "your turn" mails and daily digests, and the outbox they go through.

Nothing here runs in a request but writing rows: a request that sets an address inserts the
confirmation into the outbox (``mail_outbox``) and wakes the :class:`Mailer`; the mailer's own
background task looks for turn-based games waiting for players who want mail, queues what is
due, and sends what is queued through SMTP (aiosmtplib), with retries and backoff. A row is
claimed with a conditional UPDATE before it is sent, so several server processes never send
one mail twice; a row is only written once (its ``key`` is unique), so neither do they queue one
twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from email.message import EmailMessage
from email.utils import formatdate, make_msgid, parseaddr
from typing import Any
from urllib.parse import parse_qs, unquote, urlencode, urlsplit

import aiosmtplib
from babel.dates import format_datetime
from email_validator import EmailNotValidError, validate_email
from itsdangerous import BadSignature, SignatureExpired, URLSafeSerializer, URLSafeTimedSerializer
from sqlalchemy import Table, and_, case, func, or_, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from lordsofwar import i18n
from lordsofwar.i18n import _, ngettext
from lordsofwar.web.db import upsert
from lordsofwar.web.models import Game, MailOutbox, MailSettings, User, utcnow
from lordsofwar.web.problem import Problem
from lordsofwar.web.settings import Settings
from lordsofwar.web.tasks import stop_tasks
from lordsofwar.web.words import bot_name

log = logging.getLogger("lordsofwar.web.notify")

CHOICES = ("off", "turn", "digest")
EMAIL_MAX = 254
CONFIRM_DAYS = 2
"""How long a confirmation link works."""
CONFIRMS_PER_HOUR = 5
"""Confirmation mails one player may have sent in an hour (an address is not a mail cannon)."""
TURN_EVERY = timedelta(hours=24)
"""At most one "your turn" mail per game and player in this time; one digest per player too."""
CLAIM = timedelta(minutes=2)
"""How long a claimed row is a process's to send; after that (the process died?) anyone's."""
MAX_BACKOFF = 3600.0
OUTBOX: Table = MailOutbox.__table__  # type: ignore[assignment]
RESET_KIND, PASSWORD_KIND = "reset", "password"
"""Account mails (lordsofwar.web.accounts.recovery): a link to set a new password, and the
notice that the password changed. They go to a confirmed address whatever mails the player
chose; a reset mail's body (its link) is blanked once sent."""


def _when(moment: datetime) -> str:
    """A deadline in a mail (UTC): ``05 Mar 14:00`` in English, the month in the mail's language."""
    if i18n.current() == i18n.DEFAULT:
        return f"{moment:%d %b %H:%M}"
    locale = i18n.current() if i18n.current() in i18n.LOCALES else i18n.DEFAULT
    return format_datetime(moment, "dd MMM HH:mm", locale=locale)


class NotAvailable(Problem):
    def __init__(self) -> None:
        super().__init__(409, _("email is not available on this server"))


def normalise(address: str) -> str:
    """The address as kept (the domain lower-cased and IDNA-checked, Unicode normalised), or
    Problem 422 saying what is wrong with it. Deliverability is not checked (no DNS here)."""
    address = address.strip()
    if len(address) > EMAIL_MAX:
        raise Problem(422, _("the email address is too long (at most {n} characters)").format(n=EMAIL_MAX))
    try:
        checked = validate_email(address, check_deliverability=False, allow_smtputf8=True)
    except EmailNotValidError as exc:
        if i18n.current() == i18n.DEFAULT:  # the library explains in English only
            raise Problem(422, _("not a valid email address: {problem}").format(problem=str(exc)[:150])) from None
        raise Problem(422, _("not a valid email address")) from None
    normalised: str = checked.normalized
    if len(checked.local_part) > 64:  # RFC 5321's limit, which the library leaves to the server
        raise Problem(
            422, _("not a valid email address: the part before the @-sign is too long (at most 64 characters)")
        )
    if len(normalised) > EMAIL_MAX or any(c in normalised for c in "\r\n<>,"):
        raise Problem(422, _("not a valid email address"))
    return normalised


@dataclass(frozen=True)
class Smtp:
    """LOW_SMTP_URL read: smtp://[user[:password]@]host[:port][?starttls=1|0], or smtps:// (TLS)."""

    host: str
    port: int
    username: str | None
    password: str | None
    use_tls: bool
    start_tls: bool | None
    """True: STARTTLS required; False: never; None: when the server offers it (aiosmtplib's way)."""

    @classmethod
    def parse(cls, url: str) -> Smtp:
        parts = urlsplit(url)
        if parts.scheme not in ("smtp", "smtps") or not parts.hostname:
            raise ValueError(
                f"LOW_SMTP_URL: expected smtp://host:port or smtps://host:port, got scheme {parts.scheme!r}"
            )
        tls = parts.scheme == "smtps"
        option = parse_qs(parts.query).get("starttls", [""])[0].lower()
        start_tls = {"1": True, "true": True, "yes": True, "0": False, "false": False, "no": False}.get(option)
        return cls(
            host=parts.hostname,
            port=parts.port or (465 if tls else 25),
            username=unquote(parts.username) if parts.username else None,
            password=unquote(parts.password) if parts.password else None,
            use_tls=tls,
            start_tls=False if tls else start_tls,
        )


class Tokens:
    """Signed tokens for the links in mails (itsdangerous, with the server's key and a salt of
    their own, so that neither can pass for the other nor for a CSRF token)."""

    def __init__(self, key: bytes):
        self.confirm = URLSafeTimedSerializer(key, salt="lordsofwar.email-confirm")
        self.unsubscribe = URLSafeSerializer(key, salt="lordsofwar.email-unsubscribe")

    def confirm_token(self, user_id: int, email: str) -> str:
        return self.confirm.dumps([user_id, email])

    def read_confirm(self, token: str) -> tuple[int, str]:
        try:
            user_id, email = self.confirm.loads(token[:1000], max_age=CONFIRM_DAYS * 86400)
        except SignatureExpired:
            raise Problem(
                400, _("this confirmation link has expired: set the address again on the settings page")
            ) from None
        except (BadSignature, ValueError, TypeError):
            raise Problem(
                400, _("this confirmation link is not valid (altered or not ours): nothing changed")
            ) from None
        return int(user_id), str(email)

    def unsubscribe_token(self, user_id: int, email: str) -> str:
        return self.unsubscribe.dumps([user_id, email])

    def read_unsubscribe(self, token: str) -> tuple[int, str]:
        try:
            user_id, email = self.unsubscribe.loads(token[:1000])
        except (BadSignature, ValueError, TypeError):
            raise Problem(400, _("this unsubscribe link is not valid (altered or not ours): nothing changed")) from None
        return int(user_id), str(email)


async def settings_of(db: AsyncSession, user_id: int) -> MailSettings:
    row = await db.get(MailSettings, user_id)
    return row if row is not None else MailSettings(user_id=user_id, email=None, confirmed=False, notify="off")


def describe(row: MailSettings, available: bool) -> dict[str, Any]:
    return {"email": row.email, "confirmed": bool(row.confirmed), "notifications": row.notify, "available": available}


async def _saved(db: AsyncSession, row: MailSettings) -> None:
    table: Table = MailSettings.__table__  # type: ignore[assignment]
    values = {
        "user_id": row.user_id,
        "email": row.email,
        "confirmed": bool(row.confirmed),
        "notify": row.notify,
        "updated_at": utcnow(),
    }
    await upsert(db, table, values, "user_id", ["email", "confirmed", "notify", "updated_at"])


class Mailer:
    """Queues and sends the mails; its loop is started and stopped with the application."""

    def __init__(self, settings: Settings, sessions: async_sessionmaker[AsyncSession]):
        self.settings = settings
        self.sessions = sessions
        self.smtp = Smtp.parse(settings.smtp_url) if settings.smtp_url else None
        self.tokens: Tokens | None = None
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    @property
    def available(self) -> bool:
        return self.smtp is not None

    def start(self, key: bytes) -> None:
        self.tokens = Tokens(key)
        if self.available:
            self._task = asyncio.get_running_loop().create_task(self._forever())

    async def close(self) -> None:
        task, self._task = self._task, None
        for error in await stop_tasks([task]):  # cancelled again if the SMTP client loses a cancel
            log.error("the mailer's loop ended with an error", exc_info=error)

    def wake(self) -> None:
        self._wake.set()

    def _tokens(self) -> Tokens:
        if self.tokens is None:
            raise RuntimeError("the mailer's key is set when the application starts")
        return self.tokens

    # --- the settings ---------------------------------------------------------------------------

    async def change(
        self, db: AsyncSession, user: User, fields: set[str], email: str | None, notify: str | None
    ) -> dict[str, Any]:
        """Apply a player's change (``fields``: those sent); a new address gets a confirmation
        mail (queued in the same transaction) and receives nothing else until confirmed."""
        row = await settings_of(db, user.id)
        queue_confirm = False
        if "email" in fields:
            if email is None or not email.strip():
                row.email, row.confirmed = None, False
            else:
                if not self.available:
                    raise NotAvailable()
                address = normalise(email)
                if address != row.email or not row.confirmed:
                    recent = await db.scalar(
                        select(func.count())
                        .select_from(MailOutbox)
                        .where(
                            MailOutbox.user_id == user.id,
                            MailOutbox.kind == "confirm",
                            MailOutbox.created_at > utcnow() - timedelta(hours=1),
                        )
                    )
                    if (recent or 0) >= CONFIRMS_PER_HOUR:
                        raise Problem(
                            429,
                            _("at most {n} confirmation mails an hour: try again later").format(n=CONFIRMS_PER_HOUR),
                        )
                    row.email, row.confirmed = address, False
                    queue_confirm = True
        if "notifications" in fields and notify is not None:
            if notify not in CHOICES:
                raise Problem(422, _("notifications: one of {choices}").format(choices=", ".join(CHOICES)))
            row.notify = notify
        await _saved(db, row)
        if queue_confirm and row.email is not None:
            self._queue_confirm(db, user, row.email)
        await db.commit()
        if queue_confirm:
            self.wake()
        return describe(row, self.available)

    def _queue_confirm(self, db: AsyncSession, user: User, email: str) -> None:
        link = f"{self.settings.public_url}/settings/confirm?{urlencode({'token': self._tokens().confirm_token(user.id, email)})}"
        with i18n.use(user.locale):  # the mail speaks the player's own language (None: English)
            body = (
                _("Hello {name},").format(name=user.name)
                + "\n\n"
                + _("Someone (you, we hope) asked Lords of War to send game mail to this address.")
                + "\n"
                + ngettext(
                    "To confirm it, open this link within {n} day:",
                    "To confirm it, open this link within {n} days:",
                    CONFIRM_DAYS,
                ).format(n=CONFIRM_DAYS)
                + f"\n\n{link}\n\n"
                + _("If it was not you, ignore this mail: nothing will be sent to this address.")
                + "\n"
            )
            subject = _("Lords of War: confirm your email address")
        db.add(
            MailOutbox(
                user_id=user.id,
                kind="confirm",
                to_addr=email,
                subject=subject,
                body=body,
                headers={},
                status="queued",
                attempts=0,
                next_at=utcnow(),
                created_at=utcnow(),
            )
        )

    async def confirm(self, db: AsyncSession, token: str) -> tuple[User, str]:
        user_id, email = self._tokens().read_confirm(token)
        row = await db.get(MailSettings, user_id)
        user = await db.get(User, user_id)
        if row is None or user is None or row.email != email:
            raise Problem(409, _("this address is no longer the one on your settings: nothing changed"))
        if not row.confirmed:
            await db.execute(
                update(MailSettings)
                .where(MailSettings.user_id == user_id, MailSettings.email == email)
                .values(confirmed=True, updated_at=utcnow())
            )
            await db.commit()
        return user, email

    def unsubscribe_link(self, user_id: int, email: str) -> str:
        return f"{self.settings.public_url}/unsubscribe?{urlencode({'token': self._tokens().unsubscribe_token(user_id, email)})}"

    async def unsubscribe_target(self, db: AsyncSession, token: str) -> tuple[User, MailSettings | None, str]:
        """Who a (valid) unsubscribe token is for; Problem 400 for a forged or altered one."""
        user_id, email = self._tokens().read_unsubscribe(token)
        user = await db.get(User, user_id)
        if user is None:
            raise Problem(404, _("this account no longer exists"))
        row = await db.get(MailSettings, user_id)
        return user, row if row is not None and row.email == email else None, email

    async def unsubscribe(self, db: AsyncSession, token: str) -> tuple[User, str, bool]:
        """Turn the token's player's mails off (when the address is still theirs: True); idempotent."""
        user, row, email = await self.unsubscribe_target(db, token)
        if row is not None:
            await db.execute(
                update(MailSettings)
                .where(MailSettings.user_id == user.id, MailSettings.email == email)
                .values(notify="off", updated_at=utcnow())
            )
            await db.commit()
        return user, email, row is not None

    # --- queueing the game mails ----------------------------------------------------------------

    async def scan(self, now: datetime | None = None) -> int:
        """Queue the "your turn" mails and digests due now; the number queued. Safe in several
        processes at once: each row's key is unique, and inserting a key there already does nothing."""
        now = now or utcnow()
        waiting_user = case((Game.waiting_for == 1, Game.player1_id), (Game.waiting_for == 2, Game.player2_id))
        async with self.sessions() as db:
            rows = (
                await db.execute(
                    select(
                        Game.id,
                        Game.version,
                        Game.deadline_at,
                        Game.player1_id,
                        Game.player2_id,
                        Game.bot1,
                        Game.bot2,
                        MailSettings.user_id,
                        MailSettings.email,
                        MailSettings.notify,
                    )  # fmt: skip
                    .join(MailSettings, MailSettings.user_id == waiting_user)
                    .where(
                        Game.status == "running",
                        Game.mode == "turn",
                        MailSettings.confirmed.is_(True),
                        MailSettings.email.is_not(None),
                        MailSettings.notify.in_(("turn", "digest")),
                    )
                    .order_by(Game.id)
                )
            ).all()
            if not rows:
                return 0
            since = now - TURN_EVERY
            recent = set(
                (
                    await db.execute(
                        select(MailOutbox.kind, MailOutbox.user_id, MailOutbox.game_id).where(
                            MailOutbox.kind.in_(("turn", "digest")), MailOutbox.created_at > since
                        )
                    )
                ).all()
            )
            users = {r.player1_id for r in rows} | {r.player2_id for r in rows}
            names: dict[int, str] = {}
            locales: dict[int, str | None] = {}
            for uid, name, locale in await db.execute(
                select(User.id, User.name, User.locale).where(User.id.in_(users))
            ):
                names[uid], locales[uid] = name, locale
            queued = 0
            digests: dict[int, list[Any]] = {}
            for r in rows:
                if r.notify == "digest":
                    digests.setdefault(r.user_id, []).append(r)
                    continue
                if ("turn", r.user_id, r.id) in recent:
                    continue  # at most one a day per game
                with i18n.use(locales.get(r.user_id)):  # composed in the recipient's language
                    queued += await self._insert(
                        db, r.user_id, "turn", r.id, f"turn:{r.id}:{r.user_id}:{r.version}", r.email,
                        _("Lords of War: your turn against {opponent} (game {game})").format(
                            opponent=self._opponent(r, names), game=r.id
                        ),
                        self._turn_body(names.get(r.user_id, ""), r, names), now,
                    )  # fmt: skip
            for user_id, games in digests.items():
                if any(k == "digest" and u == user_id for k, u, _g in recent):
                    continue
                n = len(games)
                with i18n.use(locales.get(user_id)):  # composed in the recipient's language
                    queued += await self._insert(
                        db, user_id, "digest", None, f"digest:{user_id}:{now.date().isoformat()}", games[0].email,
                        ngettext(
                            "Lords of War: {n} game waiting for you", "Lords of War: {n} games waiting for you", n
                        ).format(n=n),
                        self._digest_body(names.get(user_id, ""), games, names), now,
                    )  # fmt: skip
            await db.commit()
        if queued:
            self.wake()
        return queued

    @staticmethod
    def _opponent(r: Any, names: dict[int, str]) -> str:
        if r.user_id == r.player1_id:
            return names.get(r.player2_id) or bot_name(r.bot2 or "")
        return names.get(r.player1_id) or bot_name(r.bot1 or "")

    def _game_line(self, r: Any, names: dict[int, str]) -> str:
        link = f"{self.settings.public_url}/games/{r.id}"
        opponent = self._opponent(r, names)
        if r.deadline_at is None:
            return _("- against {opponent}: {link}").format(opponent=opponent, link=link)
        return _("- against {opponent} (before {when} UTC): {link}").format(
            opponent=opponent, when=_when(r.deadline_at), link=link
        )

    def _turn_body(self, name: str, r: Any, names: dict[int, str]) -> str:
        hello = _("Hello {name},").format(name=name)
        intro = _("It is your turn in a turn-based game:")
        return f"{hello}\n\n{intro}\n\n{self._game_line(r, names)}\n"

    def _digest_body(self, name: str, games: list[Any], names: dict[int, str]) -> str:
        lines = "\n".join(self._game_line(r, names) for r in games)
        hello = _("Hello {name},").format(name=name)
        intro = _("These turn-based games are waiting for you:")
        return f"{hello}\n\n{intro}\n\n{lines}\n"

    async def _insert(
        self, db: AsyncSession, user_id: int, kind: str, game_id: int | None, key: str, to: str,
        subject: str, body: str, now: datetime,
    ) -> int:  # fmt: skip
        link = self.unsubscribe_link(user_id, to)
        body += (
            "\n"
            + _("You get these mails because you asked for them on {url}").format(
                url=f"{self.settings.public_url}/settings"
            )
            + "\n"
            + _("To get no more, open: {link}").format(link=link)
            + "\n"
        )
        headers = {"List-Unsubscribe": f"<{link}>", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"}
        values = {
            "user_id": user_id, "kind": kind, "game_id": game_id, "key": key, "to_addr": to, "subject": subject[:200],
            "body": body, "headers": headers, "status": "queued", "attempts": 0, "next_at": now, "created_at": now,
        }  # fmt: skip
        insert = pg_insert if db.get_bind().dialect.name == "postgresql" else sqlite_insert
        if await db.scalar(select(MailOutbox.id).where(MailOutbox.key == key)) is not None:
            return 0
        statement = insert(OUTBOX).values(values).on_conflict_do_nothing(index_elements=["key"])
        made = (await db.execute(statement.returning(OUTBOX.c.id))).first()
        return 0 if made is None else 1  # None: another process's row is there

    # --- sending --------------------------------------------------------------------------------

    async def deliver(self, now: datetime | None = None) -> int:
        """Send every queued mail that is due (claiming each first); the number sent."""
        if self.smtp is None:
            return 0
        now = now or utcnow()
        async with self.sessions() as db:
            due = list(
                await db.scalars(
                    select(MailOutbox.id)
                    .where(
                        or_(
                            and_(MailOutbox.status == "queued", MailOutbox.next_at <= now),
                            and_(MailOutbox.status == "sending", MailOutbox.claimed_until < now),
                        )
                    )
                    .order_by(MailOutbox.id)
                    .limit(100)
                )
            )
        sent = 0
        for mail_id in due:
            sent += await self._send_one(mail_id, now)
        return sent

    async def _claim(self, db: AsyncSession, mail_id: int, now: datetime) -> MailOutbox | None:
        claimed = await db.execute(
            update(MailOutbox)
            .where(
                MailOutbox.id == mail_id,
                or_(
                    and_(MailOutbox.status == "queued", MailOutbox.next_at <= now),
                    and_(MailOutbox.status == "sending", MailOutbox.claimed_until < now),
                ),
            )
            .values(status="sending", claimed_until=now + CLAIM, attempts=MailOutbox.attempts + 1)
        )
        await db.commit()
        if getattr(claimed, "rowcount", 0) != 1:
            return None  # another process has it (or had it)
        return await db.get(MailOutbox, mail_id)

    async def _still_wanted(self, db: AsyncSession, mail: MailOutbox) -> bool:
        """Whether the mail should still go: the address is the player's (and confirmed, for a
        game mail), the choice still asks for it, and a "your turn" game still waits for them."""
        row = await db.get(MailSettings, mail.user_id)
        if row is None or row.email != mail.to_addr:
            return False
        if mail.kind == "confirm":
            return not row.confirmed
        if mail.kind in (RESET_KIND, PASSWORD_KIND):
            return bool(row.confirmed)
        if not row.confirmed or row.notify != mail.kind:
            return False
        if mail.kind == "turn" and mail.game_id is not None:
            game = await db.get(Game, mail.game_id)
            if game is None or game.status != "running" or game.waiting_for is None:
                return False
            return (game.player1_id, game.player2_id)[game.waiting_for - 1] == mail.user_id
        return True

    async def _send_one(self, mail_id: int, now: datetime) -> int:
        assert self.smtp is not None
        async with self.sessions() as db:
            mail = await self._claim(db, mail_id, now)
            if mail is None:
                return 0
            if not await self._still_wanted(db, mail):
                await self._mark(db, mail_id, status="dropped")
                return 0
            message = self._message(mail)
            attempts = mail.attempts
            scrub = {"body": ""} if mail.kind == RESET_KIND else {}
            await db.rollback()  # no connection held while talking to the SMTP server
            try:
                await aiosmtplib.send(
                    message,
                    hostname=self.smtp.host,
                    port=self.smtp.port,
                    username=self.smtp.username,
                    password=self.smtp.password,
                    use_tls=self.smtp.use_tls,
                    start_tls=self.smtp.start_tls,
                    timeout=30,
                )
            except (aiosmtplib.SMTPException, OSError, TimeoutError) as exc:
                error = f"{type(exc).__name__}: {exc}"[:200]
                if attempts >= self.settings.mail_attempts:
                    log.warning("mail %s given up after %s attempts: %s", mail_id, attempts, error)
                    await self._mark(db, mail_id, status="failed", error=error)
                else:
                    wait = min(self.settings.mail_retry * 2 ** (attempts - 1), MAX_BACKOFF)
                    log.info("mail %s not sent (attempt %s), again in %.0f s: %s", mail_id, attempts, wait, error)
                    await self._mark(
                        db, mail_id, status="queued", error=error, next_at=utcnow() + timedelta(seconds=wait)
                    )
                return 0
            await self._mark(db, mail_id, status="sent", sent_at=utcnow(), error=None, **scrub)
            return 1

    @staticmethod
    async def _mark(db: AsyncSession, mail_id: int, **values: Any) -> None:
        await db.execute(
            update(MailOutbox)
            .where(MailOutbox.id == mail_id, MailOutbox.status == "sending")
            .values(claimed_until=None, **values)
        )
        await db.commit()

    def _message(self, mail: MailOutbox) -> EmailMessage:
        message = EmailMessage()
        message["From"] = self.settings.mail_from
        message["To"] = mail.to_addr
        message["Subject"] = mail.subject
        message["Date"] = formatdate(usegmt=True)
        domain = parseaddr(self.settings.mail_from)[1].rpartition("@")[2] or "localhost"
        message["Message-ID"] = make_msgid(f"low{mail.id}", domain=domain)
        message["Auto-Submitted"] = "auto-generated"
        for name, value in (mail.headers or {}).items():
            message[name] = value
        message.set_content(mail.body)
        return message

    # --- the loop -------------------------------------------------------------------------------

    async def run_once(self, now: datetime | None = None) -> int:
        """One round: queue what is due, send what is queued; the number sent."""
        await self.scan(now)
        return await self.deliver(now)

    async def _forever(self) -> None:
        while True:
            self._wake.clear()
            try:
                await self.run_once()
            except Exception:
                log.exception("the mailer failed")
            # asyncio.timeout, not wait_for: on Python 3.11 wait_for can swallow the cancel that
            # close() sends when a wake comes at the same moment, and close() then waits forever.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.settings.mail_interval):
                    await self._wake.wait()

"""Reports and moderation: players report a chat message or a player; moderators handle the queue
of open reports and act on players (warn, mute, ban, close the account) or dismiss a report.

Like every service of the web package, the functions take the request's ``AsyncSession`` (the
``deps.get_db`` session) and do not commit unless they say so.

Every action is a row of the moderation log (``moderation_actions``: who, what, why, when);
warnings, mutes and bans are read from it: :func:`muted_until` (the chat refuses a muted player
until then) and :func:`is_banned` (sign-in refuses a banned player; a ban signs them out
everywhere when it is given). Lifting a mute or a ban ends it now (its ``until``) and is logged too.
"""

from __future__ import annotations

import importlib
import inspect
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, Select, delete, func, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased

from lordsofwar.i18n import N_, _
from lordsofwar.web.accounts import closing
from lordsofwar.web.accounts import sessions as account_sessions
from lordsofwar.web.deps import Services
from lordsofwar.web.models import ApiToken, ChatMessage, Game, ModerationAction, Moderator, Report, User, utcnow
from lordsofwar.web.problem import Problem

log = logging.getLogger("lordsofwar.web.moderation")

REASONS: dict[str, str] = {
    "abuse": N_("insults or harassment"),
    "cheating": N_("cheating or unfair play"),
    "spam": N_("spam or advertising"),
    "name": N_("an offensive name"),
    "other": N_("something else"),
}
"""The reasons a report may give (key -> the words shown)."""
ACTIONS = ("warn", "mute", "ban", "close", "lift", "dismiss")
"""What a moderator may do: warn (a notice the player reads on their next page), mute (the chat
refuses them until the end), ban (signed out everywhere, sign-in refused until the end, or for
good), close the account (as the player's own closing does), lift (end a mute or ban now), dismiss
(a report needs nothing)."""
TEXT_MAX = 500
"""Characters of a report's free text, and of a moderator's reason."""
REPORTS_PER_HOUR = 10
"""Reports one player may file in an hour."""
MUTE_HOURS_MAX = 24 * 90
BAN_DAYS_MAX = 3650
HISTORY = 20
"""Actions and past reports of a player shown beside a report."""
CONTEXT = 10
"""Chat messages shown before and after a reported one."""


# --- what other parts read ----------------------------------------------------------------------


def mute_end(user_id: int | ColumnElement[int], now: datetime | ColumnElement[datetime]) -> Select[datetime | None]:
    """The query of :func:`muted_until` (one value: the end of the mute in force, or NULL), for a
    caller that asks it together with other questions in one statement (the chat's post, which
    builds it once with bound parameters)."""
    return select(func.max(ModerationAction.until)).where(
        ModerationAction.target_id == user_id, ModerationAction.action == "mute", ModerationAction.until > now
    )


async def muted_until(db: AsyncSession, user_id: int, now: datetime | None = None) -> datetime | None:
    """Until when the player is muted (the chat refuses their messages), or None: they may talk."""
    return await db.scalar(mute_end(user_id, now or utcnow()))


async def ban_of(db: AsyncSession, user_id: int, now: datetime | None = None) -> ModerationAction | None:
    """The ban in force on the player (a ban for good first, else the one that ends last), or None."""
    now = now or utcnow()
    return await db.scalar(
        select(ModerationAction)
        .where(
            ModerationAction.target_id == user_id,
            ModerationAction.action == "ban",
            or_(ModerationAction.until.is_(None), ModerationAction.until > now),
        )
        .order_by(ModerationAction.until.is_(None).desc(), ModerationAction.until.desc())
        .limit(1)
    )


async def is_banned(db: AsyncSession, user_id: int, now: datetime | None = None) -> bool:
    """Whether a ban is in force on the player: they cannot sign in."""
    return await ban_of(db, user_id, now) is not None


async def is_moderator(db: AsyncSession, user_id: int) -> bool:
    return await db.scalar(select(Moderator.user_id).where(Moderator.user_id == user_id)) is not None


async def require_moderator(db: AsyncSession, user: User) -> None:
    if not await is_moderator(db, user.id):
        raise Problem(403, _("only moderators may do this"), code="moderator")


# --- reports --------------------------------------------------------------------------------------


def _clean(text: str, what: str) -> str:
    text = " ".join(text.split())
    if len(text) > TEXT_MAX:
        raise Problem(400, _("{what}: at most {limit} characters").format(what=what, limit=TEXT_MAX))
    return text


async def _target(db: AsyncSession, name: str) -> User:
    user = await db.scalar(
        select(User).where(User.name_key == name.strip().lower()[:30], User.closed_at.is_(None))
    )
    if user is None:
        raise Problem(404, _("there is no player called {name!r}").format(name=name.strip()[:30]))
    return user


async def file_report(
    db: AsyncSession, reporter: User, reason: str, text: str, player: str | None, message_id: int | None
) -> Report:
    """File a report of a player (``player``: their name) or of a chat message (``message_id``, which
    the reporter must have been able to read). Refused: an unknown reason, an over-long text, oneself,
    a bot, too many reports in the hour, a report of the same player still open. Commits."""
    if reason not in REASONS:
        raise Problem(400, _("choose one of the reasons listed"), code="reason")
    text = _clean(text, _("the report"))
    game_id: int | None = None
    if (player is None) == (message_id is None):
        raise Problem(400, _("report either a player or a chat message"))
    if message_id is not None:
        message = await db.get(ChatMessage, message_id)
        game = await db.get(Game, message.game_id) if message is not None else None
        if message is None or game is None:
            raise Problem(404, _("there is no such chat message"))
        playing = reporter.id in (game.player1_id, game.player2_id)
        if not playing and (message.room == "players" or not game.public):  # a private game's chat is its players'
            raise Problem(403, _("you cannot report a message you could not read"))
        target = await db.get(User, message.user_id)
        if target is None or target.closed_at is not None:
            raise Problem(404, _("there is no such chat message"))
        game_id = game.id
    else:
        assert player is not None
        target = await _target(db, player)
    if target.id == reporter.id:
        raise Problem(403, _("you cannot report yourself"))
    if target.bot is not None:
        raise Problem(403, _("a built-in bot cannot be reported"))
    recent = await db.scalar(
        select(func.count()).select_from(Report).where(
            Report.reporter_id == reporter.id, Report.created_at > utcnow() - timedelta(hours=1)
        )
    )
    if (recent or 0) >= REPORTS_PER_HOUR:
        raise Problem(429, _("you have sent many reports in the last hour: try again later"))
    row = Report(
        reporter_id=reporter.id, target_id=target.id, message_id=message_id, game_id=game_id,
        reason=reason, text=text, status="open", created_at=utcnow(),
    )
    db.add(row)
    name, ids = target.name, (reporter.id, target.id)
    try:
        await db.commit()
    except IntegrityError:  # the partial unique index: one open report per reporter and player
        await db.rollback()
        raise Problem(
            409, _("you have already reported {name}; a moderator will look at it").format(name=name), code="open"
        ) from None
    log.info("report %s: user %s reported user %s (%s)", row.id, *ids, reason)
    return row


# --- the queue ------------------------------------------------------------------------------------


@dataclass
class HistoryItem:
    at: datetime
    action: str
    moderator: str | None
    reason: str
    until: datetime | None


@dataclass
class PastReport:
    id: int
    at: datetime
    reason: str
    status: str
    reporter: str


@dataclass
class QueueItem:
    id: int
    at: datetime
    reporter: str
    target: str
    reason: str
    text: str
    game_id: int | None
    context: dict[str, Any] | None
    """The reported message with its neighbours (chat's ``messages_for_report``), or None."""
    muted_until: datetime | None
    banned: bool
    history: list[HistoryItem] = field(default_factory=list)
    reports: list[PastReport] = field(default_factory=list)


async def _message_context(db: AsyncSession, message_id: int) -> dict[str, Any] | None:
    """The chat part's ``messages_for_report`` (looked up at call time)."""
    try:
        chat = importlib.import_module("lordsofwar.web.chat.service")
    except ImportError:
        return None
    found: Callable[..., Any] | None = getattr(chat, "messages_for_report", None)
    if found is None:
        return None
    result = found(db, message_id, CONTEXT)
    if inspect.isawaitable(result):
        result = await result
    return result if isinstance(result, dict) else None


async def history(db: AsyncSession, user_id: int) -> list[HistoryItem]:
    """What moderators did to the player, newest first."""
    mod = aliased(User)
    rows = (
        await db.execute(
            select(ModerationAction, mod.name)
            .outerjoin(mod, mod.id == ModerationAction.moderator_id)
            .where(ModerationAction.target_id == user_id)
            .order_by(ModerationAction.id.desc())
            .limit(HISTORY)
        )
    ).all()
    return [HistoryItem(a.created_at, a.action, name, a.reason, a.until) for a, name in rows]


async def past_reports(db: AsyncSession, user_id: int, but: int | None = None) -> list[PastReport]:
    """Reports about the player (but the one named), newest first."""
    reporter = aliased(User)
    query = (
        select(Report, reporter.name)
        .join(reporter, reporter.id == Report.reporter_id)
        .where(Report.target_id == user_id)
        .order_by(Report.id.desc())
        .limit(HISTORY)
    )
    if but is not None:
        query = query.where(Report.id != but)
    rows = (await db.execute(query)).all()
    return [PastReport(r.id, r.created_at, r.reason, r.status, name) for r, name in rows]


QUEUE_PAGE = 50
"""Open reports on one page of the queue."""
ORDERS = ("oldest", "newest")
"""The queue's orders: the oldest report first (the default: the longest waiting), or the newest."""


async def open_reports(db: AsyncSession) -> int:
    """How many reports are open (the queue's length)."""
    return await db.scalar(select(func.count()).select_from(Report).where(Report.status == "open")) or 0


async def queue(db: AsyncSession, page: int = 1, order: str = "oldest") -> tuple[list[QueueItem], int]:
    """One page (from 1; :data:`QUEUE_PAGE` reports) of the open reports, oldest or newest first
    (``order``), each with its context; and how many are open. A page past the last is empty."""
    per_page = QUEUE_PAGE
    if order not in ORDERS:
        raise Problem(400, _("the order is oldest or newest"), code="order")
    reporter, target = aliased(User), aliased(User)
    rows = (
        await db.execute(
            select(Report, reporter.name, target.name)
            .join(reporter, reporter.id == Report.reporter_id)
            .join(target, target.id == Report.target_id)
            .where(Report.status == "open")
            .order_by(Report.id.desc() if order == "newest" else Report.id)
            .offset((max(1, page) - 1) * per_page)
            .limit(per_page)
        )
    ).all()
    total = await open_reports(db)
    items: list[QueueItem] = []
    for report, reporter_name, target_name in rows:
        items.append(
            QueueItem(
                id=report.id, at=report.created_at, reporter=reporter_name, target=target_name,
                reason=report.reason, text=report.text, game_id=report.game_id,
                context=await _message_context(db, report.message_id) if report.message_id is not None else None,
                muted_until=await muted_until(db, report.target_id),
                banned=await is_banned(db, report.target_id),
                history=await history(db, report.target_id),
                reports=await past_reports(db, report.target_id, report.id),
            )
        )
    return items, total


# --- actions --------------------------------------------------------------------------------------


def _until(action: str, hours: int | None, days: int | None) -> datetime | None:
    now = utcnow()
    if action == "mute":
        if hours is None or not 1 <= hours <= MUTE_HOURS_MAX:
            raise Problem(400, _("a mute lasts from 1 to {most} hours").format(most=MUTE_HOURS_MAX), code="duration")
        return now + timedelta(hours=hours)
    if action == "ban":
        if days is None:
            return None  # for good
        if not 1 <= days <= BAN_DAYS_MAX:
            raise Problem(400, _("a ban lasts from 1 to {most} days, or for good").format(most=BAN_DAYS_MAX), code="duration")
        return now + timedelta(days=days)
    if hours is not None or days is not None:
        raise Problem(400, _("only a mute or a ban has a duration"), code="duration")
    return None


async def act(
    db: AsyncSession, svc: Services, moderator: User, action: str, player: str, reason: str,
    report_id: int | None = None, hours: int | None = None, days: int | None = None,
) -> ModerationAction:
    """A moderator's action on a player (and on the open report named, which it settles), logged.
    A sanction settles every open report about the player; ``dismiss`` settles only its report.
    Refused, changing nothing: not a moderator (403), oneself (403), no reason, an unknown action,
    a report not open or not about the player, a duration that does not fit. Commits."""
    await require_moderator(db, moderator)
    if action not in ACTIONS:
        raise Problem(400, _("unknown action"), code="action")
    reason = _clean(reason, _("the reason"))
    if not reason:
        raise Problem(400, _("say why: the reason is kept in the log"), code="reason")
    target = await _target(db, player)
    if target.id == moderator.id:
        raise Problem(403, _("a moderator cannot act on their own account"), code="self")
    if target.bot is not None:
        raise Problem(403, _("a built-in bot cannot be moderated"))
    until = _until(action, hours, days)
    name = target.name  # the row expires at a rollback
    report: Report | None = None
    if report_id is not None:
        report = await db.get(Report, report_id)
        if report is None or report.target_id != target.id:
            raise Problem(404, _("there is no such report about {name}").format(name=target.name))
        if report.status != "open":
            raise Problem(409, _("this report was already handled"), code="handled")
    elif action == "dismiss":
        raise Problem(400, _("dismiss a report: name it"))
    if action == "lift":
        ended = await db.execute(
            update(ModerationAction)
            .where(
                ModerationAction.target_id == target.id,
                ModerationAction.action.in_(("mute", "ban")),
                or_(ModerationAction.until.is_(None), ModerationAction.until > utcnow()),
            )
            .values(until=utcnow())
        )
        if ended.rowcount == 0:  # type: ignore[attr-defined]
            await db.rollback()
            raise Problem(409, _("{name} is neither muted nor banned").format(name=name), code="nothing")
    now = utcnow()
    entry = ModerationAction(
        moderator_id=moderator.id, target_id=target.id, action=action, reason=reason, until=until,
        report_id=report_id, created_at=now,
    )
    db.add(entry)
    settled = update(Report).values(status="dismissed" if action == "dismiss" else "actioned", handled_at=now,
                                    handled_by_id=moderator.id)
    if action == "dismiss":
        assert report is not None
        done = await db.execute(settled.where(Report.id == report.id, Report.status == "open"))
        if done.rowcount != 1:  # type: ignore[attr-defined]
            await db.rollback()
            raise Problem(409, _("this report was already handled"), code="handled")
    elif action != "lift":
        await db.execute(settled.where(Report.target_id == target.id, Report.status == "open"))
    hashes: list[str] = []
    if action == "ban":  # signed out everywhere; a bot account's tokens end too (new ones after the ban)
        hashes = await account_sessions.close(db, target.id)
        await db.execute(delete(ApiToken).where(ApiToken.user_id == target.id))
    uid = target.id
    await db.commit()
    log.info("moderation: user %s did %s to user %s (report %s)", moderator.id, action, uid, report_id)
    if action == "ban":
        svc.hub.drop_user(uid)  # the player's sockets in this process
        svc.hub.drop_sessions(uid, hashes)  # and in the others, through Redis
    elif action == "close":
        player_row = await db.get(User, uid)
        assert player_row is not None
        await closing.finish_closing(db, svc, player_row)
        await db.refresh(entry)  # closing rolls back on its way: the row is read again
    return entry


# --- warnings the player reads --------------------------------------------------------------------


async def notices(db: AsyncSession, user_id: int) -> list[ModerationAction]:
    """The warnings the player has not acknowledged yet, oldest first."""
    return list(
        await db.scalars(
            select(ModerationAction)
            .where(ModerationAction.target_id == user_id, ModerationAction.action == "warn",
                   ModerationAction.seen_at.is_(None))
            .order_by(ModerationAction.id)
        )
    )


async def acknowledge(db: AsyncSession, user_id: int, notice_id: int) -> None:
    """The player read the warning; 404 for anyone else's or an unknown one. Commits."""
    done = await db.execute(
        update(ModerationAction)
        .where(ModerationAction.id == notice_id, ModerationAction.target_id == user_id,
               ModerationAction.action == "warn", ModerationAction.seen_at.is_(None))
        .values(seen_at=utcnow())
    )
    if done.rowcount != 1:  # type: ignore[attr-defined]
        await db.rollback()
        raise Problem(404, _("there is no such notice"))
    await db.commit()


# --- sign-in --------------------------------------------------------------------------------------


def ban_message(ban: ModerationAction) -> str:
    """What sign-in says to a banned player: the ban, its end and its reason."""
    from babel.dates import format_datetime

    from lordsofwar import i18n

    if ban.until is None:
        return _("this account is banned for good by a moderator: {reason}").format(reason=ban.reason)
    when = format_datetime(ban.until, format="medium", tzinfo=ban.until.tzinfo, locale=i18n.babel_locale())
    return _("this account is banned by a moderator until {until} (UTC): {reason}").format(until=when, reason=ban.reason)

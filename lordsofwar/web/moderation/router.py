"""Reports (any signed-in player) and moderation (moderators only: the queue page and its API)."""

# no `from __future__ import annotations`: FastAPI reads the route annotations

from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from babel.dates import format_datetime
from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from lordsofwar import i18n
from lordsofwar.i18n import _
from lordsofwar.web import pages
from lordsofwar.web.deps import Csrf, Db, MaybeUser, SignedIn, Svc
from lordsofwar.web.errors import COMMON, refusals
from lordsofwar.web.models import User
from lordsofwar.web.moderation import service as moderation
from lordsofwar.web.moderation.schemas import (
    ActionIn,
    ActionOut,
    BanIn,
    ChatLine,
    HistoryOut,
    MessageContext,
    MessageReport,
    MuteIn,
    NoticeOut,
    NoticesOut,
    PastReportOut,
    PlayerReport,
    QueueItemOut,
    QueueOut,
    ReportIn,
    ReportOut,
)

router = APIRouter(responses=COMMON)
Id = Annotated[int, Path(ge=1, le=2**31 - 1)]
Order = Literal["oldest", "newest"]
Page = Annotated[int, Query(ge=1, le=100_000, description="the page of the queue, from 1 (50 reports a page)")]
OrderQuery = Annotated[Order, Query(description="oldest: the longest waiting report first; newest: the newest first")]


@router.post("/api/reports", dependencies=[Csrf], status_code=201, responses=refusals(401, 403, 404, 409))
async def api_report(body: ReportIn, user: SignedIn, db: Db) -> ReportOut:
    """Report a player or a chat message to the moderators (one open report per player you report;
    429: too many reports in the last hour)."""
    player = body.player if isinstance(body, PlayerReport) else None
    message = body.message if isinstance(body, MessageReport) else None
    row = await moderation.file_report(db, user, body.reason, body.text, player, message)
    return ReportOut(id=row.id, status="open")


def _line(doc: dict[str, Any]) -> ChatLine:
    return ChatLine(**{k: doc[k] for k in ChatLine.model_fields})


def _context(doc: dict[str, Any] | None) -> MessageContext | None:
    if doc is None:
        return None
    return MessageContext(
        message=_line(doc["message"]), before=[_line(d) for d in doc["before"]], after=[_line(d) for d in doc["after"]]
    )


def _queue_out(items: list[moderation.QueueItem], total: int, page: int, order: Order) -> QueueOut:
    return QueueOut(
        open=total,
        page=page,
        pages=max(1, -(-total // moderation.QUEUE_PAGE)),
        order=order,
        reports=[
            QueueItemOut(
                id=i.id, at=i.at, reporter=i.reporter, player=i.target, reason=i.reason, text=i.text,  # type: ignore[arg-type]
                game=i.game_id, context=_context(i.context), muted_until=i.muted_until, banned=i.banned,
                history=[HistoryOut(at=h.at, action=h.action, moderator=h.moderator, reason=h.reason, until=h.until)  # type: ignore[arg-type]
                         for h in i.history],
                reports=[PastReportOut(id=r.id, at=r.at, reason=r.reason, status=r.status, reporter=r.reporter)  # type: ignore[arg-type]
                         for r in i.reports],
            )
            for i in items
        ],
    )


@router.get("/api/moderation/reports", responses=refusals(401, 403))
async def api_queue(user: SignedIn, db: Db, page: Page = 1, order: OrderQuery = "oldest") -> QueueOut:
    """The open reports, 50 a page, oldest first (``order=newest``: the newest first), each with
    its context and the player's history (moderators only)."""
    await moderation.require_moderator(db, user)
    items, total = await moderation.queue(db, page, order)
    return _queue_out(items, total, page, order)


@router.post("/api/moderation/actions", dependencies=[Csrf], status_code=201, responses=refusals(401, 403, 404, 409))
async def api_act(body: ActionIn, user: SignedIn, db: Db, svc: Svc) -> ActionOut:
    """Act on a player (moderators only, never on themselves): warn, mute (``hours``), ban (``days``,
    none: for good), close the account, lift a mute or ban, or dismiss a report (``report``).
    Every action is logged with its reason."""
    hours = body.hours if isinstance(body, MuteIn) else None
    days = body.days if isinstance(body, BanIn) else None
    entry = await moderation.act(db, svc, user, body.action, body.player, body.reason, body.report, hours, days)
    target = await db.get(User, entry.target_id)
    return ActionOut(id=entry.id, action=body.action, player=target.name if target else body.player, until=entry.until)


async def _notices(db: Db, user: User) -> NoticesOut:
    rows = await moderation.notices(db, user.id)
    waiting = await moderation.open_reports(db) if await moderation.is_moderator(db, user.id) else None
    return NoticesOut(notices=[NoticeOut(id=n.id, at=n.created_at, reason=n.reason) for n in rows], open_reports=waiting)


@router.get("/api/moderation/notices", responses=refusals(401))
async def api_notices(user: SignedIn, db: Db) -> NoticesOut:
    """The moderators' warnings to you that you have not acknowledged yet; for a moderator also
    how many reports are open (every page shows it beside the *Moderation* link)."""
    return await _notices(db, user)


@router.post("/api/moderation/notices/{notice_id}/seen", dependencies=[Csrf], responses=refusals(401, 403, 404))
async def api_notice_seen(notice_id: Id, user: SignedIn, db: Db) -> NoticesOut:
    """Acknowledge a warning; the answer lists those left."""
    await moderation.acknowledge(db, user.id, notice_id)
    return await _notices(db, user)


@router.get("/moderation", response_class=HTMLResponse, include_in_schema=False)
async def moderation_page(
    request: Request, db: Db, user: MaybeUser, page: Page = 1, order: OrderQuery = "oldest"
) -> Response:
    if user is None:
        return RedirectResponse("/signin?next=/moderation", 303)
    await moderation.require_moderator(db, user)
    items, total = await moderation.queue(db, page, order)
    ctx = {
        "queue": _queue_out(items, total, page, order),
        "reasons": moderation.REASONS,
        "mute_hours": MUTE_CHOICES,
        "ban_days": BAN_CHOICES,
        "when": _when,
        "action_names": {
            "warn": _("Warn"), "mute": _("Mute"), "ban": _("Ban"), "close": _("Close the account"),
            "lift": _("Lift the mute or ban"), "dismiss": _("Dismiss the report"),
        },
        "status_names": {"open": _("open"), "actioned": _("acted on"), "dismissed": _("dismissed")},
    }
    return pages.render(request, "moderation.html", ctx, user)


def _when(at: datetime) -> str:
    """A moment as the page shows it: the reader's language, UTC."""
    return format_datetime(at, format="short", tzinfo=UTC, locale=i18n.babel_locale()) + " UTC"


def _reasons() -> list[tuple[str, str]]:
    """The reasons a report may give, in the reader's language (the profile's report box)."""
    return [(key, i18n.gettext(words)) for key, words in moderation.REASONS.items()]


pages.templates.env.globals["report_reasons"] = _reasons


MUTE_CHOICES = (1, 24, 24 * 7, 24 * 30)
"""The mute lengths the page offers (hours); the API takes any within the limit."""
BAN_CHOICES = (1, 7, 30, 365)
"""The ban lengths the page offers (days), besides a ban for good."""

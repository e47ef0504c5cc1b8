"""Email settings (page and JSON API), the confirmation link, and the one-click unsubscribe
link (RFC 8058), which needs no sign-in: its signature is the authority."""

# no `from __future__ import annotations`: FastAPI reads the route annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from starlette.requests import HTTPConnection

from lordsofwar.i18n import _
from lordsofwar.web import pages
from lordsofwar.web.accounts.security_router import security_context
from lordsofwar.web.deps import Csrf, Db, MaybeUser, SignedIn, signed_in_form
from lordsofwar.web.errors import COMMON, refusals
from lordsofwar.web.notify import service as notify
from lordsofwar.web.notify.schemas import MailSettingsIn, MailSettingsOut
from lordsofwar.web.problem import Problem

router = APIRouter(responses=COMMON)


def mailer(conn: HTTPConnection) -> notify.Mailer:
    m: notify.Mailer = conn.app.state.mailer
    return m


@router.get("/api/settings", responses=refusals(401))
async def api_settings(request: Request, user: SignedIn, db: Db) -> MailSettingsOut:
    """Your email address and the mails you get."""
    row = await notify.settings_of(db, user.id)
    return MailSettingsOut(**notify.describe(row, mailer(request).available))


@router.post("/api/settings", dependencies=[Csrf], responses=refusals(401, 403, 409, 429))
async def api_change_settings(request: Request, body: MailSettingsIn, user: SignedIn, db: Db) -> MailSettingsOut:
    """Change your address or the mails you get; a new address gets a confirmation mail (409:
    this server sends no email; 429: too many confirmation mails lately)."""
    done = await mailer(request).change(db, user, set(body.model_fields_set), body.email, body.notifications)
    return MailSettingsOut(**done)


async def _page(
    request: Request, user: MaybeUser, db: Db, message: str | None, error: str | None, status: int = 200,
    typed: str | None = None,
) -> Response:
    """The settings page; after a refusal, ``typed`` is the address the player sent, kept in its
    field so that they can correct it rather than type it again."""
    assert user is not None
    row = await notify.settings_of(db, user.id)
    ctx = {"mail": notify.describe(row, mailer(request).available), "message": message, "error": error, "typed": typed}
    ctx["security"] = await security_context(request, db, user)
    ctx["chat_enabled"] = await request.app.state.chat.is_enabled(db, user.id)  # the chat panel's switch too
    return pages.render(request, "settings.html", ctx, user, status)


@router.get("/settings", response_class=HTMLResponse, include_in_schema=False)
async def settings_page(request: Request, user: MaybeUser, db: Db) -> Response:
    if user is None:
        return RedirectResponse("/signin?next=/settings", 303)
    return await _page(request, user, db, None, None)


@router.post("/settings", response_class=HTMLResponse, include_in_schema=False)
async def settings_form(request: Request, user: MaybeUser, db: Db) -> Response:
    form, user = await signed_in_form(request, user)
    email = pages.field(form, "email", 1000)
    choice = pages.field(form, "notifications", 20) or None
    fields = {"notifications"} | ({"email"} if "email" in form else set())
    try:
        await mailer(request).change(db, user, fields, email, choice)
    except Problem as exc:
        await db.rollback()
        return await _page(request, user, db, None, exc.message, exc.status, email if "email" in form else None)
    return await _page(request, user, db, _("Saved."), None)


@router.get("/settings/confirm", response_class=HTMLResponse, include_in_schema=False)
async def confirm_page(request: Request, user: MaybeUser, db: Db, token: str = "") -> Response:
    if not token:
        raise Problem(400, _("this confirmation link is incomplete"))
    player, email = await mailer(request).confirm(db, token)
    ctx = {
        "title": _("Address confirmed"),
        "text": _("{email} is confirmed for {name}: game mail can go to it now.").format(email=email, name=player.name),
    }
    return pages.render(request, "mail_done.html", ctx, user)


@router.get("/unsubscribe", response_class=HTMLResponse, include_in_schema=False)
async def unsubscribe_page(request: Request, user: MaybeUser, db: Db, token: str = "") -> Response:
    """Asks before turning mail off (a GET changes nothing: link checkers open links)."""
    if not token:
        raise Problem(400, _("this unsubscribe link is incomplete"))
    player, row, email = await mailer(request).unsubscribe_target(db, token)
    ctx = {"player": player.name, "email": email, "token": token, "current": row is not None}
    return pages.render(request, "unsubscribe.html", ctx, user)


@router.post("/unsubscribe", response_class=HTMLResponse, include_in_schema=False)
async def unsubscribe(request: Request, user: MaybeUser, db: Db) -> Response:
    """The one-click unsubscribe (RFC 8058: the mail client POSTs ``List-Unsubscribe=One-Click``
    to the link), or the confirm page's button. No sign-in and no CSRF token: the link's
    signature is the proof."""
    token = request.query_params.get("token", "")
    if not token and request.headers.get("content-type", "").startswith(
        ("application/x-www-form-urlencoded", "multipart/")
    ):
        token = pages.field(await pages.read_form(request), "token", 2000)
    if not token:
        raise Problem(400, _("this unsubscribe link is incomplete"))
    player, email, current = await mailer(request).unsubscribe(db, token)
    if current:
        text = _(
            "No more game mail goes to {email} for {name}. You can turn it on again on your settings page."
        ).format(email=email, name=player.name)
    else:
        text = _("{email} is no longer {name}'s address here: no game mail goes to it.").format(
            email=email, name=player.name
        )
    ctx = {"title": _("Unsubscribed"), "text": text}
    return pages.render(request, "mail_done.html", ctx, user)

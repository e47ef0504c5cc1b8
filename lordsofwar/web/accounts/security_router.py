"""The account's security: changing the password, a forgotten password (the request page and
the page a reset link opens), and the list of sessions with signing them out (the JSON API and
the forms of the settings page). docs/web.md, "Your account"; docs/web-api.md."""

# no `from __future__ import annotations`: FastAPI reads the route annotations

from typing import Any

from fastapi import APIRouter, BackgroundTasks, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlalchemy.ext.asyncio import AsyncSession

from lordsofwar.i18n import _
from lordsofwar.web import pages
from lordsofwar.web.accounts import recovery, sessions
from lordsofwar.web.accounts import service as accounts
from lordsofwar.web.accounts.limits import Busy
from lordsofwar.web.accounts.schemas import SessionInfo, SessionUser
from lordsofwar.web.accounts.security_schemas import (
    PasswordChange,
    PasswordChanged,
    PasswordReset,
    ResetRequest,
    ResetRequested,
    SessionList,
    SessionOut,
    SessionsClosed,
)
from lordsofwar.web.deps import Csrf, Db, MaybeUser, SignedIn, Svc, check_csrf, client_ip, signed_in_form
from lordsofwar.web.errors import COMMON, refusals
from lordsofwar.web.middleware import set_cookie
from lordsofwar.web.models import MailSettings, User
from lordsofwar.web.notify import service as notify
from lordsofwar.web.problem import Problem

router = APIRouter(responses=COMMON)


def _mailer(request: Request) -> notify.Mailer:
    m: notify.Mailer = request.app.state.mailer
    return m


def asked_text() -> str:
    return _(
        "If an account has this name or confirmed address, a link to choose a new password is on its way to its "
        "confirmed address. It works once, for an hour. No mail? Check the spelling and your spam folder."
    )


async def _open_session(request: Request, response: Response, db: AsyncSession, svc: Svc, user: User) -> str:
    details = await sessions.details(request, client_ip(request))
    token = await accounts.open_session(db, user, svc.settings, details["browser"], details["address"])
    await db.commit()
    set_cookie(request, response, accounts.SESSION_COOKIE, token, svc.settings.session_days * 86400)
    return token


def _closed(svc: Svc, request: Request, user_id: int, hashes: list[str], mailed: bool = True) -> None:
    svc.hub.drop_sessions(user_id, hashes)
    if mailed:
        _mailer(request).wake()


async def security_context(request: Request, db: AsyncSession, user: User) -> dict[str, Any]:
    """What the settings page shows of the account's security (``security`` in its context)."""
    row = await db.get(MailSettings, user.id)
    return {
        "sessions": await sessions.listing(db, user.id, sessions.current_hash(request)),
        "recoverable": bool(row is not None and row.confirmed and row.email),
        "error": getattr(request.state, "security_error", None),
    }


# --- the JSON API -------------------------------------------------------------------------------


@router.post("/api/account/password", dependencies=[Csrf], responses=refusals(401, 403))
async def api_change_password(request: Request, body: PasswordChange, user: SignedIn, db: Db, svc: Svc) -> PasswordChanged:
    """Change your password (the current one is needed; 403 when it is wrong, 429 past the
    sign-in limits). Every other session is signed out, its sockets closed; a notice goes to
    your confirmed address."""
    closed, mailed = await recovery.change_password(
        db, svc.passwords, svc.guard, _mailer(request), user, body.current, body.password,
        sessions.current_hash(request), client_ip(request),
    )  # fmt: skip
    _closed(svc, request, user.id, closed, mailed)
    return PasswordChanged(signed_out=len(closed), mailed=mailed)


@router.post("/api/account/forgot", dependencies=[Csrf], status_code=202)
async def api_forgot(request: Request, body: ResetRequest, background: BackgroundTasks, svc: Svc) -> ResetRequested:
    """Ask for a link to choose a new password, by name or confirmed address. The answer is the
    same whether or not such an account exists; the mail is queued after it is sent. 429: too
    many requests from your address or for this name or address."""
    who = await recovery.ask(svc.guard, body.who, client_ip(request))
    background.add_task(recovery.send_links, svc.sessions, _mailer(request), svc.guard, who)
    return ResetRequested(message=asked_text())


@router.post("/api/account/reset", dependencies=[Csrf], responses=refusals(403, 404, 409))
async def api_reset(request: Request, response: Response, body: PasswordReset, db: Db, svc: Svc) -> SessionInfo:
    """Set a new password with a reset link's token (404: not a link of ours; 409: used,
    replaced by a later password change, or expired; 400: the password is refused).
    Every session of the account is signed out and a new one opened: the answer carries its
    CSRF token."""
    user, closed = await recovery.reset_password(
        db, svc.passwords, svc.guard, _mailer(request), body.token, body.password, client_ip(request)
    )
    token = await _open_session(request, response, db, svc, user)
    _closed(svc, request, user.id, closed)
    return SessionInfo(user=SessionUser(name=user.name), csrf=svc.csrf.of(token, None))


@router.get("/api/account/sessions", responses=refusals(401))
async def api_sessions(request: Request, user: SignedIn, db: Db) -> SessionList:
    """Your sessions (signed-in browsers): the one of this request first."""
    context = await security_context(request, db, user)
    listed = [
        SessionOut(
            id=s.id, created_at=s.created_at, last_seen_at=s.last_seen_at, browser=s.browser, network=s.address,
            current=s.current,
        )  # fmt: skip
        for s in context["sessions"]
    ]
    return SessionList(sessions=listed, recoverable=context["recoverable"])


async def _close_one(request: Request, db: AsyncSession, svc: Svc, user: User, session: str) -> list[str]:
    current = sessions.current_hash(request)
    if current is not None and sessions.session_id(current) == session:
        raise Problem(409, _("this is the session you are using: sign out instead"))
    closed = await sessions.close(db, user.id, only=session[: sessions.ID_LENGTH + 1])
    if not closed:
        raise Problem(404, _("there is no such session (already signed out?)"))
    await db.commit()
    _closed(svc, request, user.id, closed, False)
    return closed


@router.delete("/api/account/sessions/{session}", dependencies=[Csrf], responses=refusals(401, 403, 404, 409))
async def api_close_session(request: Request, session: str, user: SignedIn, db: Db, svc: Svc) -> SessionsClosed:
    """Sign out one of your other sessions (409 for the one in use: sign out instead)."""
    return SessionsClosed(signed_out=len(await _close_one(request, db, svc, user, session)))


@router.post("/api/account/sessions/others", dependencies=[Csrf], responses=refusals(401, 403))
async def api_close_others(request: Request, user: SignedIn, db: Db, svc: Svc) -> SessionsClosed:
    """Sign out every session but this one."""
    closed = await sessions.close(db, user.id, keep=sessions.current_hash(request))
    await db.commit()
    _closed(svc, request, user.id, closed, False)
    return SessionsClosed(signed_out=len(closed))


# --- the pages and their forms ------------------------------------------------------------------


async def _settings_refused(request: Request, user: User, db: AsyncSession, message: str, status: int) -> Response:
    """The settings page again, the refusal shown in its security part."""
    from lordsofwar.web.notify.router import _page  # the settings page is the notify domain's

    await db.rollback()
    request.state.security_error = message
    return await _page(request, user, db, None, None, status)


@router.post("/settings/password", response_class=HTMLResponse, include_in_schema=False)
async def password_form(request: Request, user: MaybeUser, db: Db, svc: Svc) -> Response:
    form, user = await signed_in_form(request, user)
    new = pages.field(form, "password")
    try:
        if new != pages.field(form, "password2"):
            raise accounts.AuthError(_("the two passwords differ"))
        closed, mailed = await recovery.change_password(
            db, svc.passwords, svc.guard, _mailer(request), user, pages.field(form, "current"), new,
            sessions.current_hash(request), client_ip(request),
        )  # fmt: skip
    except (accounts.AuthError, Busy) as exc:
        return await _settings_refused(request, user, db, str(exc), exc.status)
    _closed(svc, request, user.id, closed, mailed)
    return RedirectResponse("/settings?flash=password-changed#security", 303)


@router.post("/settings/sessions/close", response_class=HTMLResponse, include_in_schema=False)
async def close_session_form(request: Request, user: MaybeUser, db: Db, svc: Svc) -> Response:
    form, user = await signed_in_form(request, user)
    try:
        await _close_one(request, db, svc, user, pages.field(form, "session", 40))
    except Problem as exc:
        return await _settings_refused(request, user, db, exc.message, exc.status)
    return RedirectResponse("/settings?flash=session-closed#sessions", 303)


@router.post("/settings/sessions/others", response_class=HTMLResponse, include_in_schema=False)
async def close_others_form(request: Request, user: MaybeUser, db: Db, svc: Svc) -> Response:
    form, user = await signed_in_form(request, user)
    closed = await sessions.close(db, user.id, keep=sessions.current_hash(request))
    await db.commit()
    _closed(svc, request, user.id, closed, False)
    return RedirectResponse("/settings?flash=sessions-closed#sessions", 303)


@router.get("/forgot", response_class=HTMLResponse, include_in_schema=False)
async def forgot_page(request: Request, user: MaybeUser) -> Response:
    return pages.render(request, "forgot.html", {"error": None, "sent": None, "who": ""}, user)


@router.post("/forgot", response_class=HTMLResponse, include_in_schema=False)
async def forgot_form(request: Request, user: MaybeUser, svc: Svc, background: BackgroundTasks) -> Response:
    form = await pages.read_form(request)
    check_csrf(request, pages.field(form, "csrf"))
    typed = pages.field(form, "who", recovery.WHO_MAX)
    try:
        who = await recovery.ask(svc.guard, typed, client_ip(request))
    except Problem as exc:
        ctx = {"error": exc.message, "sent": None, "who": typed}
        return pages.render(request, "forgot.html", ctx, user, exc.status)
    background.add_task(recovery.send_links, svc.sessions, _mailer(request), svc.guard, who)
    return pages.render(request, "forgot.html", {"error": None, "sent": asked_text(), "who": ""}, user)


@router.get("/reset", response_class=HTMLResponse, include_in_schema=False)
async def reset_page(request: Request, user: MaybeUser, db: Db, svc: Svc, token: str = "") -> Response:
    """The form a reset link opens (opening it spends nothing: link checkers open links)."""
    try:
        owner = await recovery.check_link(db, svc.guard, token[:200], client_ip(request))
    except Problem as exc:
        ctx = {"error": exc.message, "token": None, "owner": None}
        return pages.render(request, "reset.html", ctx, user, exc.status)
    return pages.render(request, "reset.html", {"error": None, "token": token, "owner": owner.name}, user)


@router.post("/reset", response_class=HTMLResponse, include_in_schema=False)
async def reset_form(request: Request, user: MaybeUser, db: Db, svc: Svc) -> Response:
    form = await pages.read_form(request)
    check_csrf(request, pages.field(form, "csrf"))
    token, new = pages.field(form, "token", 200), pages.field(form, "password")
    try:
        if new != pages.field(form, "password2"):
            raise accounts.AuthError(_("the two passwords differ"))
        owner, closed = await recovery.reset_password(
            db, svc.passwords, svc.guard, _mailer(request), token, new, client_ip(request)
        )
    except (accounts.AuthError, Problem) as exc:
        await db.rollback()
        owner_name = None
        if isinstance(exc, accounts.AuthError | Busy):  # the password was refused: is the link still good?
            try:
                owner_name = (await recovery.check_link(db, svc.guard, token, client_ip(request))).name
            except Problem as refused:
                exc = refused
        ctx = {"error": str(exc), "token": token if owner_name else None, "owner": owner_name}
        return pages.render(request, "reset.html", ctx, user, exc.status)
    response = RedirectResponse("/?flash=password-set", 303)
    await _open_session(request, response, db, svc, owner)
    _closed(svc, request, owner.id, closed)
    return response

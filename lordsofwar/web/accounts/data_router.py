"""A player's own data on the web: the download of everything kept about them, closing the
account (JSON API and the confirmation page), and the privacy page that explains both."""

# no `from __future__ import annotations`: FastAPI reads the route annotations

import json
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from lordsofwar.web import pages
from lordsofwar.web.accounts import closing, export
from lordsofwar.web.accounts import service as accounts
from lordsofwar.web.deps import Csrf, Db, MaybeUser, SignedIn, Svc, client_ip, signed_in_form
from lordsofwar.web.errors import COMMON, refusals
from lordsofwar.web.problem import Problem

router = APIRouter(responses=COMMON)


class Closing(BaseModel):
    """Closing the account: the password, and the player's own name typed as the confirmation."""

    model_config = ConfigDict(extra="forbid", strict=True)
    password: str = Field(max_length=1000, description="the account's password")
    confirm: str = Field(max_length=100, description="the account's name, typed again (case does not count)")


class Closed(BaseModel):
    """The account is closed and this browser signed out."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(description="the placeholder the account's games show from now on (closed-<number>)")
    csrf: str = Field(description="the signed-out CSRF token to send from now on")


DATA_FILE: dict[int | str, dict[str, Any]] = {
    200: {
        "content": {"application/json": {}},
        "description": "a file download (Content-Disposition: attachment): everything kept about you, by section "
        "(docs/web-api.md, \"Your data\")",
    }
}


@router.get("/api/account/data", responses={**DATA_FILE, **refusals(401)})
async def api_account_data(db: Db, user: SignedIn, svc: Svc) -> Response:
    """Download everything the site keeps about you (JSON): profile, settings, decks, games with
    their records (a running game as you see it), ratings, tournaments, mails, sessions and tokens
    (without their hashes)."""
    doc = await export.export(db, svc.games, user)
    body = json.dumps(doc, indent=1, ensure_ascii=False)
    headers = {
        "Content-Disposition": f'attachment; filename="lordsofwar-data-{user.name}.json"',
        "Cache-Control": "no-store",
    }
    return Response(body, media_type="application/json", headers=headers)


@router.post("/api/account/close", dependencies=[Csrf], responses=refusals(401, 403, 409))
async def api_account_close(request: Request, body: Closing, response: Response, db: Db, user: SignedIn, svc: Svc) -> Closed:
    """Close your account, for good: your running games are resigned, your invitations and
    tournament entries withdrawn, your data deleted and every session signed out; your games stay
    for your opponents under a placeholder name, and your name is held from new accounts for 30
    days. 403: the confirmation is not your name (``code`` confirm) or the password is wrong
    (``code`` password); nothing changes."""
    name = await closing.close_account(db, svc, user, body.password, body.confirm, client_ip(request))
    response.delete_cookie(accounts.SESSION_COOKIE, path="/")
    return Closed(name=name, csrf=svc.csrf.of(None, request.cookies.get(accounts.BROWSER_COOKIE)))


@router.get("/settings/close", response_class=HTMLResponse, include_in_schema=False)
async def close_page(request: Request, user: MaybeUser) -> Response:
    if user is None:
        return RedirectResponse("/signin?next=/settings/close", 303)
    return pages.render(request, "close_account.html", {"error": None, "hold_days": closing.HOLD_DAYS}, user)


@router.post("/settings/close", response_class=HTMLResponse, include_in_schema=False)
async def close_form(request: Request, db: Db, user: MaybeUser, svc: Svc) -> Response:
    form, user = await signed_in_form(request, user)
    try:
        await closing.close_account(
            db, svc, user, pages.field(form, "password"), pages.field(form, "confirm", 100), client_ip(request)
        )
    except Problem as exc:
        await db.rollback()
        ctx = {"error": exc.message, "hold_days": closing.HOLD_DAYS}
        return pages.render(request, "close_account.html", ctx, user, exc.status)
    response = RedirectResponse("/?flash=closed", 303)
    response.delete_cookie(accounts.SESSION_COOKIE, path="/")
    return response


@router.get("/privacy", response_class=HTMLResponse, include_in_schema=False)
async def privacy_page(request: Request, user: MaybeUser, svc: Svc) -> Response:
    ctx = {
        "hold_days": closing.HOLD_DAYS,
        "session_days": svc.settings.session_days,
        "login_minutes": svc.guard.login_minutes,
    }
    return pages.render(request, "privacy.html", ctx, user)

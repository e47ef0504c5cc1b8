"""Accounts on the web: sign-up, sign-in and sign-out (JSON API and forms), and profile pages."""

# no `from __future__ import annotations`: FastAPI reads the route annotations


from typing import Annotated, Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from lordsofwar import i18n
from lordsofwar.bots import ladder
from lordsofwar.i18n import _
from lordsofwar.web import fields, pages
from lordsofwar.web.accounts import service as accounts
from lordsofwar.web.accounts import sessions
from lordsofwar.web.accounts.limits import Busy
from lordsofwar.web.accounts.schemas import SessionInfo, SessionUser
from lordsofwar.web.deps import Csrf, Db, MaybeUser, Svc, check_csrf, client_ip
from lordsofwar.web.errors import COMMON, refusals
from lordsofwar.web.lobby.service import game_json
from lordsofwar.web.middleware import LANGUAGE_COOKIE, set_cookie
from lordsofwar.web.models import Game, User
from lordsofwar.web.problem import Problem
from lordsofwar.web.ratings import service as ratings
from lordsofwar.web.social import router as social_router

router = APIRouter(responses=COMMON)


class Credentials(BaseModel):
    """A sign-in: any name and password (a wrong one is 401)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    name: str = Field(max_length=100)
    password: str = Field(max_length=1000)


def _player_name() -> dict[str, Any]:
    """accounts.check_name's rule: white space around it apart, 3 to 24 letters, digits, '_', '.'
    and '-', starting with a letter or digit, and not a reserved name nor one starting as a closed
    account's placeholder does (whatever its case)."""
    space = f"[{fields.spaces()}]*"
    first, rest = "[A-Za-z0-9]", f"[A-Za-z0-9_.\\-]{{{accounts.NAME_MIN - 1},{accounts.NAME_MAX - 1}}}"
    reserved = "|".join(fields.any_case(word) for word in sorted(accounts.RESERVED))
    closed = fields.any_case(accounts.CLOSED_PREFIX)
    return {"pattern": f"^{space}{first}{rest}{space}$", "not": {"pattern": f"^{space}(?:(?:{reserved}){space}$|{closed})"}}


class NewAccount(Credentials):
    """A sign-up: the name and password rules of the accounts service, declared."""

    name: Annotated[
        str,
        Field(max_length=100, description="3 to 24 letters (a-z, A-Z), digits, '_', '.' or '-'; case does not count"),
        fields.Declared(_player_name),
    ]
    password: Annotated[
        str,
        Field(max_length=1000, description=f"{accounts.PASSWORD_MIN} to {accounts.PASSWORD_MAX} characters"),
        fields.Declared(lambda: {"minLength": accounts.PASSWORD_MIN, "maxLength": accounts.PASSWORD_MAX}),
    ]


async def _signed_in(request: Request, response: Response, db: AsyncSession, svc: Svc, user: User) -> str:
    """Open a session for ``user`` and set its cookie on ``response``; the session token."""
    seen = await sessions.details(request, client_ip(request))
    token = await accounts.open_session(db, user, svc.settings, seen["browser"], seen["address"])
    await db.commit()
    set_cookie(request, response, accounts.SESSION_COOKIE, token, svc.settings.session_days * 86400)
    if user.locale:  # the browser speaks the player's language from now on, signed in or out
        set_cookie(request, response, LANGUAGE_COOKIE, user.locale, LANGUAGE_DAYS * 86400)
    return token


LANGUAGE_DAYS = 365


class LanguageChoice(BaseModel):
    """A language for the pages (and, signed in, the player's mails)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    language: Annotated[
        str, Field(max_length=8, description="en, de or pl"), fields.Declared(lambda: {"enum": list(i18n.LOCALES)})
    ]


async def _set_language(request: Request, response: Response, db: AsyncSession, user: User | None, code: str) -> None:
    if code not in i18n.available():
        raise Problem(422, _("unknown language {code!r}: choose one of {known}").format(
            code=code[:10], known=", ".join(i18n.LOCALES)))
    if user is not None:
        row = await db.get(User, user.id)
        if row is not None:
            row.locale = code
            await db.commit()
    i18n.activate(code)
    set_cookie(request, response, LANGUAGE_COOKIE, code, LANGUAGE_DAYS * 86400)


@router.post("/api/language", dependencies=[Csrf], responses=refusals(403))
async def api_language(request: Request, choice: LanguageChoice, db: Db, user: MaybeUser, response: Response) -> LanguageChoice:
    """Choose the language of the pages, the API's messages and, signed in, the player's mails
    (kept with the account; signed out, in a cookie)."""
    await _set_language(request, response, db, user, choice.language)
    return LanguageChoice(language=choice.language)


@router.post("/language", include_in_schema=False)
async def language_form(request: Request, db: Db, user: MaybeUser) -> Response:
    form = await pages.read_form(request)
    check_csrf(request, pages.field(form, "csrf"))
    target = urlsplit(pages.next_target(request, form))
    query = [(k, v) for k, v in parse_qsl(target.query, keep_blank_values=True) if k != "flash"] + [("flash", "language")]
    response = RedirectResponse(urlunsplit(("", "", target.path, urlencode(query), "")), 303)
    await _set_language(request, response, db, user, pages.field(form, "language", 20))
    return response


def _session(user: User | None, csrf: str) -> SessionInfo:
    return SessionInfo(user=None if user is None else SessionUser(name=user.name), csrf=csrf)


@router.get("/api/session")
async def api_session(request: Request, user: MaybeUser) -> SessionInfo:
    """Who is signed in, and the CSRF token to send as X-CSRF-Token."""
    return _session(user, request.state.csrf)


@router.post("/api/signup", dependencies=[Csrf], status_code=201, responses=refusals(400, 403, 409))
async def api_signup(request: Request, response: Response, body: NewAccount, db: Db, svc: Svc) -> SessionInfo:
    """Create an account and sign in; the answer carries the new CSRF token."""
    user = await accounts.sign_up(db, svc.passwords, svc.guard, body.name, body.password, client_ip(request))
    token = await _signed_in(request, response, db, svc, user)
    return _session(user, svc.csrf.of(token, None))


@router.post("/api/signin", dependencies=[Csrf], responses=refusals(401, 403))
async def api_signin(request: Request, response: Response, body: Credentials, db: Db, svc: Svc) -> SessionInfo:
    """Sign in; the answer carries the new CSRF token."""
    user = await accounts.sign_in(db, svc.passwords, svc.guard, body.name, body.password, client_ip(request))
    token = await _signed_in(request, response, db, svc, user)
    return _session(user, svc.csrf.of(token, None))


async def _sign_out(request: Request, db: AsyncSession, svc: Svc) -> None:
    token = request.cookies.get(accounts.SESSION_COOKIE)
    signed_out = await accounts.session_user(db, token)
    await accounts.close_session(db, token)
    await db.commit()
    if signed_out is not None:
        svc.hub.drop_user(signed_out.id)


@router.post("/api/signout", dependencies=[Csrf], responses=refusals(403))
async def api_signout(request: Request, response: Response, db: Db, svc: Svc) -> SessionInfo:
    """End this session (its sockets are closed); the answer carries the signed-out CSRF token."""
    await _sign_out(request, db, svc)
    response.delete_cookie(accounts.SESSION_COOKIE, path="/")
    return _session(None, svc.csrf.of(None, request.cookies.get(accounts.BROWSER_COOKIE)))


@router.get("/signup", response_class=HTMLResponse, include_in_schema=False)
async def signup_page(request: Request, user: MaybeUser) -> Response:
    return pages.render(request, "signup.html", {"error": None, "name": ""}, user)


@router.get("/signin", response_class=HTMLResponse, include_in_schema=False)
async def signin_page(request: Request, user: MaybeUser) -> Response:
    return pages.render(request, "signin.html", {"error": None, "name": "", "next": pages.next_target(request)}, user)


@router.post("/signup", response_class=HTMLResponse, include_in_schema=False)
async def signup_form(request: Request, db: Db, svc: Svc) -> Response:
    form = await pages.read_form(request)
    check_csrf(request, pages.field(form, "csrf"))
    name, password = pages.field(form, "name"), pages.field(form, "password")
    try:
        if password != pages.field(form, "password2"):
            raise accounts.AuthError(_("the two passwords differ"))
        user = await accounts.sign_up(db, svc.passwords, svc.guard, name, password, client_ip(request))
    except (accounts.AuthError, Busy) as exc:
        return pages.render(request, "signup.html", {"error": str(exc), "name": name[:30]}, None, exc.status)
    response = RedirectResponse("/?flash=welcome", 303)
    await _signed_in(request, response, db, svc, user)
    return response


@router.post("/signin", response_class=HTMLResponse, include_in_schema=False)
async def signin_form(request: Request, db: Db, svc: Svc) -> Response:
    form = await pages.read_form(request)
    check_csrf(request, pages.field(form, "csrf"))
    name = pages.field(form, "name")
    try:
        user = await accounts.sign_in(db, svc.passwords, svc.guard, name, pages.field(form, "password"), client_ip(request))
    except (accounts.AuthError, Busy) as exc:
        ctx = {"error": str(exc), "name": name[:30], "next": pages.next_target(request, form)}
        return pages.render(request, "signin.html", ctx, None, exc.status)
    response = RedirectResponse(pages.next_target(request, form), 303)
    await _signed_in(request, response, db, svc, user)
    return response


@router.post("/signout", include_in_schema=False)
async def signout_form(request: Request, db: Db, svc: Svc) -> Response:
    form = await pages.read_form(request)
    check_csrf(request, pages.field(form, "csrf"))
    await _sign_out(request, db, svc)
    response = RedirectResponse("/?flash=signed-out", 303)
    response.delete_cookie(accounts.SESSION_COOKIE, path="/")
    return response


@router.get("/players/{name}", response_class=HTMLResponse, include_in_schema=False)
async def profile_page(request: Request, name: str, db: Db, user: MaybeUser) -> Response:
    player = await accounts.find_user(db, name)
    if player is None:
        key = name.strip().lower()
        closed = None
        if key.startswith(accounts.CLOSED_PREFIX) and accounts.NAME_RE.fullmatch(key) and len(key) <= 30:
            closed = await db.scalar(select(User.name).where(User.name_key == key, User.closed_at.is_not(None)))
        if closed is not None:  # its games show the placeholder; the profile is gone
            raise Problem(404, _("the account {name} was closed by its owner").format(name=closed))
        raise Problem(404, _("there is no player called {name!r}").format(name=name[:30]))
    query = select(Game).where(or_(Game.player1_id == player.id, Game.player2_id == player.id))
    if user is None:
        query = query.where(Game.public.is_(True))
    else:  # private games only for their players
        query = query.where(or_(Game.public.is_(True), Game.player1_id == user.id, Game.player2_id == user.id))
    games = list(await db.scalars(query.order_by(Game.id.desc()).limit(200)))
    items = [await game_json(db, g, player) for g in games]
    if user is None or user.id != player.id:
        for item in items:  # "your turn" is the visitor's business only on their own page
            item["your_turn"] = False
    won = sum(1 for i in items if i["result"] and i["result"]["winner"] == i["you"])
    lost = sum(1 for i in items if i["result"] and i["result"]["winner"] not in (None, i["you"]))
    drawn = sum(1 for i in items if i["result"] and i["result"]["winner"] is None and not i["aborted"])
    aborted = sum(1 for i in items if i["aborted"])
    histories = {pool: await ratings.history(db, player.id, pool) for pool in ratings.POOLS}
    ctx = {
        "player": player,
        "games": items,
        "won": won,
        "lost": lost,
        "drawn": drawn,
        "aborted": aborted,
        "ratings": await ratings.player_ratings(db, player.id),
        "charts": {pool: ratings.chart(points) for pool, points in histories.items()},
        "pools": ratings.pool_names(),
        "results": ratings.results_by(games, player.id),
        "bot": None
        if player.bot is None
        else {"blurb": ladder.blurbs().get(player.bot, player.bot), "rating": ladder.ratings().get(player.bot)},
        "social": await social_router.profile_context(request, db, user, player),
    }
    return pages.render(request, "profile.html", ctx, user)

"""What every router needs, declared once: the application's services, a database session,
the signed-in user and the CSRF check (FastAPI dependencies used as ``Annotated`` types)."""

# no `from __future__ import annotations`: FastAPI reads these annotations at run time

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated

from fastapi import Depends, Request
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from starlette.datastructures import FormData
from starlette.requests import HTTPConnection

from lordsofwar import i18n
from lordsofwar.i18n import _
from lordsofwar.web import pages
from lordsofwar.web.accounts import service as accounts
from lordsofwar.web.accounts.limits import Guard
from lordsofwar.web.models import User
from lordsofwar.web.problem import Problem
from lordsofwar.web.settings import Settings

if TYPE_CHECKING:
    from lordsofwar.web.games.hub import Hub
    from lordsofwar.web.games.service import GameService


@dataclass
class Services:
    """The long-lived parts of one application, built by :func:`lordsofwar.web.app.create_app`."""

    settings: Settings
    sessions: async_sessionmaker[AsyncSession]
    games: "GameService"
    hub: "Hub"
    passwords: accounts.Passwords
    guard: Guard
    csrf: accounts.CsrfTokens


def services(conn: HTTPConnection) -> Services:
    svc: Services = conn.app.state.services
    return svc


Svc = Annotated[Services, Depends(services)]


async def get_db(svc: Svc) -> AsyncIterator[AsyncSession]:
    async with svc.sessions() as db:
        yield db


Db = Annotated[AsyncSession, Depends(get_db)]


async def current_user(conn: HTTPConnection, svc: Svc) -> User | None:
    """The user of the session cookie, or None. A session of its own, closed at once: the
    connection is not held for the whole request."""
    async with svc.sessions() as db:
        user = await accounts.session_user(db, conn.cookies.get(accounts.SESSION_COOKIE))
    if user is not None and user.locale:
        i18n.activate(user.locale)  # the player's own setting wins over the cookie and the browser
    return user


MaybeUser = Annotated[User | None, Depends(current_user)]


async def required_user(user: MaybeUser) -> User:
    if user is None:
        raise Problem(401, _("sign in first"))
    return user


SignedIn = Annotated[User, Depends(required_user)]


def check_csrf(request: Request, token: str | None) -> None:
    """The token sent (form field or header) must be the one derived from this browser's
    session (or, signed out, from its pre-session cookie) with the server's key."""
    if not request.app.state.services.csrf.valid(request, token):
        raise Problem(403, _("CSRF token missing or wrong: reload the page"))


async def signed_in_form(request: Request, user: User | None) -> tuple[FormData, User]:
    """A form posted by a signed-in player: its CSRF token checked first (403), then that
    someone is signed in (401)."""
    form = await pages.read_form(request)
    check_csrf(request, pages.field(form, "csrf"))
    if user is None:
        raise Problem(401, _("sign in first"))
    return form, user


async def csrf_header(request: Request) -> None:
    check_csrf(request, request.headers.get("x-csrf-token"))


Csrf = Depends(csrf_header)


def client_ip(conn: HTTPConnection) -> str:
    """The client's address: the socket's peer, or X-Forwarded-For's when the server is told
    to trust its proxy (Uvicorn's ``proxy_headers``, off unless LOW_TRUST_PROXY_HEADERS=1)."""
    return conn.client.host if conn.client else "?"

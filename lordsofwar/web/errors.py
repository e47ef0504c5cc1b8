"""Refusals: every error a request can get is ``{"detail": "one line"}`` with its status, on the
wire and in the OpenAPI description; pages get the same line on an error page."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match, Route

from lordsofwar.i18n import _
from lordsofwar.web import pages
from lordsofwar.web.accounts.service import AuthError
from lordsofwar.web.deps import current_user, services
from lordsofwar.web.games.service import GameError
from lordsofwar.web.problem import Problem


class ErrorBody(BaseModel):
    """A refused request: nothing changed."""

    detail: str
    code: str | None = None
    """Where a client must tell refusals apart: a word the same in every language (the deck
    editor's ``stale``: changed elsewhere, ``name``: the name is refused or taken)."""


MEANING = {
    400: "The request is malformed or not allowed as sent (a value the description refuses, e.g. an unknown bot)",
    401: "Sign in first (or wrong name or password)",
    403: "Not allowed for you: CSRF token wrong, another player's game, deck or challenge, a private game, "
    "or a challenge to yourself",
    404: "No such thing",
    409: "Refused in the current state (an action not legal now, stale version, game over, name taken...)",
    413: "The request body is too large",
    422: "A field is missing, of the wrong type, out of range or not as the description says",
    429: "Too many requests (or too many open invitations): try again later",
    503: "The server could not save the change: nothing changed, try again",
}


def refusals(*codes: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses`` declaring these refusals with the shape actually sent."""
    return {code: {"model": ErrorBody, "description": MEANING[code]} for code in codes}


COMMON = refusals(400, 413, 422, 429)
"""What any request can get: a body that is not JSON, over the limit, a bad field, a rate limit."""


def validation_message(errors: Any) -> str:
    parts = []
    for err in list(errors)[:3]:
        where = ".".join(str(p) for p in err.get("loc", ()) if p != "body")
        msg = err.get("msg")
        parts.append(
            _("{field}: {problem}").format(field=where or _("body"), problem=_("invalid") if msg is None else msg)
        )
    return "; ".join(parts)


async def _refuse(
    request: Request, status: int, message: str, headers: dict[str, str] | None = None, code: str | None = None
) -> Response:
    if pages.wants_html(request):
        user = await current_user(request, services(request))
        page = pages.render(request, "error.html", {"status": status, "message": message}, user, status)
        page.headers.update(headers or {})
        return page
    headers = dict(headers or {})
    if status == 429:
        headers.setdefault("Retry-After", "10")
    return JSONResponse({"detail": message} if code is None else {"detail": message, "code": code}, status, headers=headers)


def install(app: FastAPI) -> None:
    """Register the handlers that turn every refusal into its one-line answer."""

    async def on_refusal(request: Request, exc: Exception) -> Response:
        # each domain's refusal carries its status and a one-line message
        return await _refuse(request, getattr(exc, "status", 400), str(exc), code=getattr(exc, "code", None))

    for refusal in (Problem, GameError, AuthError):
        app.add_exception_handler(refusal, on_refusal)

    @app.exception_handler(RequestValidationError)
    async def on_validation(request: Request, exc: RequestValidationError) -> Response:
        return JSONResponse({"detail": validation_message(exc.errors())}, 422)

    @app.exception_handler(StarletteHTTPException)
    async def on_http(request: Request, exc: StarletteHTTPException) -> Response:
        message = exc.detail if isinstance(exc.detail, str) else _("request refused")
        if exc.status_code == 404:
            message = _("there is no page {path}").format(path=request.url.path[:200])
        headers = dict(exc.headers or {})
        if exc.status_code == 405:
            message = _("{method} is not allowed on {path}").format(method=request.method, path=request.url.path[:200])
            headers["Allow"] = allowed_methods(request)
        return await _refuse(request, exc.status_code, message, headers)


def allowed_methods(request: Request) -> str:
    """Every method some route takes on this path (Starlette's 405 names only the first route's)."""
    methods: set[str] = set()
    for route in request.app.router.routes:
        if isinstance(route, Route) and route.methods and route.matches(request.scope)[0] != Match.NONE:
            methods |= route.methods
    return ", ".join(sorted(methods))

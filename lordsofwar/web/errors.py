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

from lordsofwar.i18n import N_, _, ngettext
from lordsofwar.web import pages
from lordsofwar.web.accounts.service import AuthError
from lordsofwar.web.deps import current_user, services
from lordsofwar.web.games.runtime import GameError
from lordsofwar.web.problem import Problem


class ErrorBody(BaseModel):
    """A refused request: nothing changed."""

    detail: str
    code: str | None = None
    """Where a client must tell refusals apart: a word the same in every language (the deck
    editor's ``stale``: changed elsewhere, ``name``: the name is refused or taken)."""
    rule: str | None = None
    """An action the rules refuse: the address of the rules guide's section that explains why
    (``/learn/rules#deployment``; docs/learn.md, "How to play")."""


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


def _problem(err: dict[str, Any]) -> str:
    """pydantic's complaint about one field as a sentence in the request's language (pydantic's own
    messages are English only): by its error type and limits."""
    kind, ctx = err.get("type", ""), err.get("ctx") or {}
    if kind == "missing":
        return _("required")
    if kind in ("string_too_short", "too_short") and "min_length" in ctx:
        n = int(ctx["min_length"])
        if kind == "too_short":
            return ngettext("at least {n} item", "at least {n} items", n).format(n=n)
        return ngettext("at least {n} character", "at least {n} characters", n).format(n=n)
    if kind in ("string_too_long", "too_long") and "max_length" in ctx:
        n = int(ctx["max_length"])
        if kind == "too_long":
            return ngettext("at most {n} item", "at most {n} items", n).format(n=n)
        return ngettext("at most {n} character", "at most {n} characters", n).format(n=n)
    limits = {
        "greater_than_equal": ("ge", N_("at least {limit}")),
        "less_than_equal": ("le", N_("at most {limit}")),
        "greater_than": ("gt", N_("more than {limit}")),
        "less_than": ("lt", N_("less than {limit}")),
    }
    if kind in limits and limits[kind][0] in ctx:
        key, text = limits[kind]
        return _(text).format(limit=ctx[key])
    if kind in ("value_error", "assertion_error") and "error" in ctx:
        return str(ctx["error"])  # our own validators' messages, already in the language
    words = {
        "int_parsing": N_("a whole number is expected"),
        "int_type": N_("a whole number is expected"),
        "int_from_float": N_("a whole number is expected"),
        "float_parsing": N_("a number is expected"),
        "float_type": N_("a number is expected"),
        "string_type": N_("text is expected"),
        "bool_type": N_("true or false is expected"),
        "bool_parsing": N_("true or false is expected"),
        "list_type": N_("a list is expected"),
        "dict_type": N_("an object is expected"),
        "model_type": N_("an object is expected"),
        "model_attributes_type": N_("an object is expected"),
        "literal_error": N_("not one of the values allowed"),
        "enum": N_("not one of the values allowed"),
        "extra_forbidden": N_("not a known field"),
        "string_pattern_mismatch": N_("not in the form expected"),
        "json_invalid": N_("not valid JSON"),
        "json_type": N_("not valid JSON"),
    }
    return _(words.get(kind, N_("invalid")))


FIELDS = {
    "name": N_("name"), "rounds": N_("rounds"), "army": N_("army"), "minutes": N_("minutes"),
    "increment": N_("increment"), "days": N_("days"), "kind": N_("kind"), "opponent": N_("opponent"),
    "options": N_("options"), "description": N_("description"), "scopes": N_("scopes"),
    "email": N_("email address"), "password": N_("password"), "deck": N_("deck"), "cards": N_("cards"),
    "language": N_("language"), "notifications": N_("notifications"), "level": N_("level"),
    "action": N_("action"), "version": N_("version"), "mode": N_("mode"), "rated": N_("rated"),
}
"""The fields a player fills in, named in a refusal in the request's language (a program sending no
Accept-Language gets them in English, as the API names them). A refusal to a bot names them by
their JSON keys instead (:func:`for_program`)."""


def for_program(request: Request) -> bool:
    """Whether the request comes from a program rather than from the site's pages: the bot API
    (``/api/bot/...``) or any request with a bearer token. Its refusals name the fields it sent by
    their JSON keys (``action``, ``version``), in every language, so that the program's author
    can find them; only the sentence around them is translated."""
    return request.url.path.startswith("/api/bot/") or request.headers.get("authorization", "")[:7].lower() == "bearer "


def validation_message(errors: Any, keys: bool = False) -> str:
    """pydantic's complaints (the first three) as one line: each field, then what is wrong with
    it. The field is named in the request's language, or with ``keys`` by its JSON path."""
    parts = []
    for err in list(errors)[:3]:
        loc = [p for p in err.get("loc", ()) if p != "body"]
        where = ".".join(str(p) if keys or p not in FIELDS else _(FIELDS[p]) for p in loc)
        parts.append(_("{field}: {problem}").format(field=where or ("body" if keys else _("body")), problem=_problem(err)))
    return "; ".join(parts)


async def _refuse(
    request: Request,
    status: int,
    message: str,
    headers: dict[str, str] | None = None,
    code: str | None = None,
    rule: str | None = None,
) -> Response:
    if pages.wants_html(request):
        user = await current_user(request, services(request))
        page = pages.render(request, "error.html", {"status": status, "message": message}, user, status)
        page.headers.update(headers or {})
        return page
    headers = dict(headers or {})
    if status == 429:
        headers.setdefault("Retry-After", "10")
    body: dict[str, str] = {"detail": message}
    if code is not None:
        body["code"] = code
    if rule is not None:
        body["rule"] = rule
    return JSONResponse(body, status, headers=headers)


def install(app: FastAPI) -> None:
    """Register the handlers that turn every refusal into its one-line answer."""

    async def on_refusal(request: Request, exc: Exception) -> Response:
        # each domain's refusal carries its status and a one-line message
        return await _refuse(
            request, getattr(exc, "status", 400), str(exc), code=getattr(exc, "code", None), rule=getattr(exc, "rule", None)
        )

    for refusal in (Problem, GameError, AuthError):
        app.add_exception_handler(refusal, on_refusal)

    @app.exception_handler(RequestValidationError)
    async def on_validation(request: Request, exc: RequestValidationError) -> Response:
        return JSONResponse({"detail": validation_message(exc.errors(), keys=for_program(request))}, 422)

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

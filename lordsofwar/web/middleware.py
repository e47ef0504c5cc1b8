"""Middleware: the request-body limit, the browser cookie the signed-out CSRF token is derived
from, and security headers."""

from __future__ import annotations

import base64
import hashlib
import re
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import JSONResponse, Response

from lordsofwar import i18n
from lordsofwar.web.accounts import service as accounts

BODY_LIMIT = 64 * 1024


class BodyLimit:
    """Refuses request bodies over ``limit`` bytes, with or without a Content-Length: a body
    sent in chunks is counted as it arrives and refused once it passes the limit."""

    def __init__(self, app: Any, limit: int = BODY_LIMIT):
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        message = i18n.gettext("request body too large (at most {kb} KB)").format(kb=self.limit // 1024)
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.limit):
            await JSONResponse({"detail": message}, 413)(scope, receive, send)
            return
        seen = 0

        async def counted() -> Any:
            nonlocal seen
            msg = await receive()
            if msg["type"] == "http.request":
                seen += len(msg.get("body", b""))
                if seen > self.limit:
                    raise HTTPException(413, message)
            return msg

        await self.app(scope, counted, send)


LANGUAGE_COOKIE = "low_lang"


def request_locale(headers: dict[bytes, bytes]) -> str:
    """The language of a request before its player is known: the ``low_lang`` cookie (the menu's
    choice), else the best of Accept-Language, else English. A signed-in player's own setting
    replaces it (deps.current_user)."""
    cookie = headers.get(b"cookie", b"").decode("latin-1")
    for part in cookie.split(";"):
        key, _, value = part.strip().partition("=")
        if key == LANGUAGE_COOKIE and value in i18n.available():
            return value
    return i18n.negotiate(headers.get(b"accept-language", b"").decode("latin-1")) or i18n.DEFAULT


class Locale:
    """Sets the language of every HTTP request and WebSocket for what runs inside it."""

    def __init__(self, app: Any):
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] in ("http", "websocket"):
            with i18n.use(request_locale(dict(scope["headers"]))):
                await self.app(scope, receive, send)
            return
        await self.app(scope, receive, send)


def set_cookie(request: Request, response: Response, name: str, value: str, max_age: int | None = None) -> None:
    """A cookie as every cookie of the site: HttpOnly, SameSite=Lax, Secure on https."""
    settings = request.app.state.services.settings
    secure = settings.secure_cookies or request.url.scheme == "https"
    response.set_cookie(name, value, max_age=max_age, httponly=True, samesite="lax", secure=secure, path="/")


# The policy of every page (docs/web.md, Security): scripts and styles only from the site's own
# files (no inline script, no style attribute, no handler attribute), nothing framed or embedded.
POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'{sockets}; "
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
)
HOST = re.compile(r"[A-Za-z0-9.-]+(:[0-9]{1,5})?|\[[0-9A-Fa-f:.]+\](:[0-9]{1,5})?")
INLINE_SCRIPT = re.compile(rb"<script>(.*?)</script>", re.DOTALL)
DOCS_CDN = "https://cdn.jsdelivr.net"


def content_security_policy(request: Request) -> str:
    """The page's policy; the live socket of the same host is named as well as 'self' (browsers
    that predate CSP 3 do not count ws: and wss: as 'self')."""
    host = request.headers.get("host", "")
    sockets = f" ws://{host} wss://{host}" if HOST.fullmatch(host) else ""
    return POLICY.format(sockets=sockets)


async def with_docs_policy(request: Request, response: Any) -> Response:
    """The API's description pages (FastAPI's Swagger UI and ReDoc, from their CDN) with a policy
    of their own: their inline scripts allowed by their hashes, the CDN's scripts and styles,
    ReDoc's fonts and worker; nothing else."""
    body = b"".join([chunk async for chunk in response.body_iterator])
    hashes = " ".join(
        "'sha256-" + base64.b64encode(hashlib.sha256(m.group(1)).digest()).decode() + "'"
        for m in INLINE_SCRIPT.finditer(body)
    )
    policy = content_security_policy(request).replace(
        "script-src 'self'", f"script-src 'self' {DOCS_CDN} {hashes}"
    ).replace(
        "style-src 'self'", f"style-src 'self' {DOCS_CDN} https://fonts.googleapis.com 'unsafe-inline'"
    ).replace(
        "img-src 'self' data:", "img-src 'self' data: https://fastapi.tiangolo.com https://cdn.redoc.ly; "
        "font-src 'self' https://fonts.gstatic.com; worker-src 'self' blob:"
    )
    answer = Response(body, response.status_code)
    answer.raw_headers = list(response.raw_headers)  # the cookies too, each its own header
    answer.headers["Content-Security-Policy"] = policy
    return answer


def install(app: FastAPI) -> None:
    app.add_middleware(BodyLimit)
    app.add_middleware(Locale)

    @app.middleware("http")
    async def csrf_and_headers(request: Request, call_next: Any) -> Response:
        browser = request.cookies.get(accounts.BROWSER_COOKIE)
        fresh = None
        if not browser or len(browser) > 100:
            fresh = accounts.new_token()
        request.state.csrf = request.app.state.services.csrf.token(request, fresh)
        response: Response = await call_next(request)
        if fresh:
            set_cookie(request, response, accounts.BROWSER_COOKIE, fresh)
        if not request.url.path.startswith(("/static/", "/i18n/")):
            # pages and answers speak the language of the cookie or of Accept-Language
            vary = [v.strip() for v in response.headers.get("Vary", "").split(",") if v.strip()]
            response.headers["Vary"] = ", ".join(dict.fromkeys([*vary, "Accept-Language", "Cookie"]))
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("X-Frame-Options", "DENY")
        response.headers.setdefault("Referrer-Policy", "same-origin")
        if any(c.startswith(accounts.SESSION_COOKIE + "=") for c in response.headers.getlist("set-cookie")):
            response.headers["Cache-Control"] = "no-store"  # it opens or ends a session: never kept by a cache
        if response.headers.get("content-type", "").startswith("text/html"):
            app = request.app
            if request.url.path in (app.docs_url, app.redoc_url, app.swagger_ui_oauth2_redirect_url):
                return await with_docs_policy(request, response)
            response.headers["Content-Security-Policy"] = content_security_policy(request)
        return response

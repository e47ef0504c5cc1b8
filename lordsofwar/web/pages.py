"""Server-rendered pages: the templates, the one way to render a page, and form fields."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from babel.dates import format_date
from fastapi import Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates
from starlette.datastructures import FormData

from lordsofwar import i18n
from lordsofwar.web import facts, language, words
from lordsofwar.web.models import User
from lordsofwar.web.problem import Problem

HERE = Path(__file__).parent
templates = Jinja2Templates(directory=str(HERE / "templates"))
templates.env.add_extension("jinja2.ext.i18n")
templates.env.install_gettext_callables(i18n.gettext, i18n.ngettext, newstyle=True)  # type: ignore[attr-defined]
templates.env.globals["current_locale"] = i18n.current
templates.env.globals["js_catalogue_url"] = lambda: f"/i18n/{i18n.current()}.js?v={language.version(i18n.current())}"
templates.env.filters["army"] = i18n.army_name
templates.env.filters["rank"] = i18n.rank_name
templates.env.filters["unitclass"] = i18n.class_name
templates.env.filters["num"] = i18n.number
templates.env.filters["bot_name"] = words.bot_name
templates.env.filters["deck_kind"] = i18n.deck_kind
templates.env.filters["reason"] = i18n.result_reason
templates.env.filters["longdate"] = lambda d: format_date(d, format="long", locale=i18n.babel_locale())
templates.env.globals["languages"] = lambda: [(code, i18n.NAMES.get(code, code)) for code in i18n.available()]
templates.env.globals["page_facts"] = facts.page_facts
templates.env.globals["rank_counts_text"] = facts.rank_counts_text

N_ = i18n.N_
FLASHES = {
    "welcome": N_("Welcome! Start a game below: against a bot, or challenge a player."),
    "signed-out": N_("Signed out."),
    "posted": N_("Invitation posted."),
    "cancel": N_("Invitation cancelled."),
    "decline": N_("Invitation declined."),
    "language": N_("Language changed."),
    "password-changed": N_("Password changed. Every other session is signed out."),
    "password-set": N_("New password set: you are signed in, and every other session is signed out."),
    "session-closed": N_("That session is signed out."),
    "sessions-closed": N_("Every other session is signed out."),
    "closed": N_("Your account is closed, and you are signed out everywhere. Thank you for playing."),
}
"""The only messages a redirect can show (?flash=KEY): a link cannot put words on a page."""


def render(
    request: Request, name: str, context: dict[str, Any], user: User | None, status: int = 200
) -> HTMLResponse:
    """The page ``name`` for ``user``, with the CSRF token and any flash message."""
    flashes = []
    flash = FLASHES.get(request.query_params.get("flash", ""))
    if flash:
        flashes.append(("info", i18n.gettext(flash)))
    ctx = {"user": user, "csrf": request.state.csrf, "flashes": flashes, **context}
    return templates.TemplateResponse(request, name, ctx, status_code=status)


def wants_html(request: Request) -> bool:
    return not request.url.path.startswith("/api/") and "text/html" in request.headers.get("accept", "")


async def read_form(request: Request) -> FormData:
    return await request.form(max_files=0, max_fields=60)


def field(form: FormData, name: str, limit: int = 1000) -> str:
    """A text field of a posted form ('' when absent); over ``limit`` characters is refused."""
    value = form.get(name)
    if not isinstance(value, str):
        return ""
    if len(value) > limit:
        raise Problem(413, i18n.gettext("{name}: too long (at most {limit} characters)").format(name=name, limit=limit))
    return value


def next_target(request: Request, form: FormData | None = None) -> str:
    """Where to go after signing in: a path on this site only."""
    target = str((form.get("next") if form else None) or request.query_params.get("next") or "/")
    return target if target.startswith("/") and not target.startswith("//") and len(target) < 200 else "/"

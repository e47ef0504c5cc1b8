"""The search workers' page for moderators (/admin/workers): where this server's searches run,
the jobs waiting by kind and each worker's heartbeat (the same figures as ``lordsofwar workers``)."""

# no `from __future__ import annotations`: FastAPI reads the route annotations

import asyncio
import logging

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from lordsofwar.i18n import N_
from lordsofwar.web import pages
from lordsofwar.web.deps import Db, MaybeUser, Svc
from lordsofwar.web.errors import COMMON
from lordsofwar.web.moderation import service as moderation
from lordsofwar.web.workers import status

router = APIRouter(responses=COMMON)
log = logging.getLogger("lordsofwar.web")

KIND_NAMES = {"turn": N_("bot turns"), "hint": N_("hints"), "analysis": N_("analyses")}
"""The job kinds as the page names them, in the order the workers take them."""


@router.get("/admin/workers", response_class=HTMLResponse, include_in_schema=False)
async def workers_page(request: Request, db: Db, user: MaybeUser, svc: Svc) -> Response:
    if user is None:
        return RedirectResponse("/signin?next=/admin/workers", 303)
    await moderation.require_moderator(db, user)
    settings = svc.settings
    found: status.Status | None = None
    unreachable = False
    if settings.redis_url:
        try:
            found = await asyncio.to_thread(status.read_url, settings.redis_url, settings.redis_namespace())
        except Exception:
            log.exception("the search workers' status could not be read from Redis")
            unreachable = True
    ctx = {
        "local": settings.bot_workers,
        "redis": bool(settings.redis_url),
        "unreachable": unreachable,
        "status": found,
        "kind_names": KIND_NAMES,
    }
    return pages.render(request, "workers.html", ctx, user)

"""The rules guide, "How to play" (/learn/rules): the rules in the site's own words, in the
page's language, with the diagrams' positions in a JSON data block that js/guide.js draws
(docs/learn.md, "How to play")."""

# no `from __future__ import annotations`: FastAPI reads the route annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from lordsofwar import i18n
from lordsofwar.learn import guide
from lordsofwar.web import pages
from lordsofwar.web.deps import MaybeUser

router = APIRouter()


@router.get(guide.PATH, response_class=HTMLResponse, include_in_schema=False)
async def rules_page(request: Request, user: MaybeUser) -> Response:
    """Every section of the guide, server-rendered text in the page's language (English where
    the guide has no such language), with a contents list; the diagrams are drawn by the page's
    script from their data."""
    return pages.render(request, "guide.html", {"guide": guide.page(i18n.current())}, user)

"""The scripts' catalogue of each language as an ES module of its own, cached by browsers
(docs/i18n.md): a page in German or Polish names ``/i18n/de.js?v=HASH`` in ``<link rel="modulepreload"
id="catalogue">`` and the client's ``js/i18n.js`` imports it before the page's modules run; the hash
changes whenever the catalogue does, so the file may be kept for a year."""

# no `from __future__ import annotations`: FastAPI reads the route annotations

import hashlib
import json
from functools import cache

from fastapi import APIRouter, Request
from fastapi.responses import Response

from lordsofwar import i18n
from lordsofwar.i18n import _
from lordsofwar.web.problem import Problem

router = APIRouter()


@cache
def _catalogue(code: str) -> tuple[str, str]:
    """``code``'s catalogue as JSON and its hash (the version in its URLs)."""
    data = {"lang": code, "messages": i18n.js_catalogue(code)}
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text, hashlib.sha256(text.encode()).hexdigest()[:16]


def version(code: str) -> str:
    """The current hash of ``code``'s catalogue, for its URL."""
    return _catalogue(code)[1]


@router.get("/i18n/{code}.js", include_in_schema=False)
async def catalogue_module(request: Request, code: str) -> Response:
    text, digest = _known(code)
    return _answer(request, ("export default " + text + ";\n").encode(), digest)


def _known(code: str) -> tuple[str, str]:
    if code not in i18n.available() or code == i18n.DEFAULT:
        raise Problem(404, _("unknown language {code!r}: choose one of {known}").format(
            code=code[:10], known=", ".join(i18n.LOCALES)))
    return _catalogue(code)


def _answer(request: Request, body: bytes, digest: str) -> Response:
    """The catalogue kept for a year under its versioned URL (else revalidated), with its ETag."""
    fresh = request.query_params.get("v") == digest
    headers = {
        "Cache-Control": "public, max-age=31536000, immutable" if fresh else "no-cache",
        "ETag": f'"{digest}"',
    }
    if request.headers.get("if-none-match") == f'"{digest}"':
        return Response(status_code=304, headers=headers)
    return Response(body, media_type="text/javascript; charset=utf-8", headers=headers)

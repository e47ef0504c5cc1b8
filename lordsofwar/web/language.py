"""The scripts' catalogue of each language as a script of its own, cached by browsers (docs/i18n.md):
a page in German or Polish loads ``/i18n/de.js?v=HASH`` before its other scripts; the hash changes
whenever the catalogue does, so the file may be kept for a year."""

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
def _script(code: str) -> tuple[bytes, str]:
    data = {"lang": code, "messages": i18n.js_catalogue(code)}
    body = ("window.LOW_I18N_DATA = " + json.dumps(data, ensure_ascii=False, separators=(",", ":")) + ";\n").encode()
    return body, hashlib.sha256(body).hexdigest()[:16]


def version(code: str) -> str:
    """The current hash of ``code``'s catalogue script, for its URL."""
    return _script(code)[1]


@router.get("/i18n/{code}.js", include_in_schema=False)
async def catalogue_script(request: Request, code: str) -> Response:
    if code not in i18n.available() or code == i18n.DEFAULT:
        raise Problem(404, _("unknown language {code!r}: choose one of {known}").format(
            code=code[:10], known=", ".join(i18n.LOCALES)))
    body, digest = _script(code)
    fresh = request.query_params.get("v") == digest
    headers = {
        "Cache-Control": "public, max-age=31536000, immutable" if fresh else "no-cache",
        "ETag": f'"{digest}"',
    }
    if request.headers.get("if-none-match") == f'"{digest}"':
        return Response(status_code=304, headers=headers)
    return Response(body, media_type="text/javascript; charset=utf-8", headers=headers)

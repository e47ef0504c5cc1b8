"""The server's facts a page carries for its scripts (base.html's ``#facts`` data block,
lordsofwar/web/facts.py): read from a page's HTML, and changed on their way to a browser, which
shows that the scripts follow the server's facts rather than a copy of their own."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

FACTS_RE = re.compile(r'<script type="application/json" id="facts">(.*?)</script>', re.S)


def facts_of(html: str) -> dict[str, Any]:
    """The facts block of a page."""
    found = FACTS_RE.search(html)
    assert found is not None, "the page carries no #facts block"
    facts: dict[str, Any] = json.loads(found.group(1))
    return facts


def serve_changed_facts(page: Any, url: str, change: Callable[[dict[str, Any]], None]) -> None:
    """From now on, ``page`` gets the page at ``url`` from the server with its facts passed
    through ``change`` (the rest of the page and its headers, the content security policy
    included, as sent)."""

    def handle(route: Any) -> None:
        response = route.fetch()
        html = response.text()
        facts = facts_of(html)
        change(facts)
        block = json.dumps(facts).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
        body = FACTS_RE.sub(lambda _m: f'<script type="application/json" id="facts">{block}</script>', html, count=1)
        route.fulfill(response=response, body=body)

    page.route(url, handle)

"""Every answer that holds a secret (a new token) or opens or ends a session says
``Cache-Control: no-store``: no shared or browser cache keeps it (docs/web.md)."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.web.conftest import Player


def no_store(r: Any) -> bool:
    return "no-store" in r.headers.get("cache-control", "")


def form(p: Player, path: str, fields: dict[str, Any]) -> Any:
    r = p.use().post(path, data={"csrf": p.csrf, **fields}, follow_redirects=False)
    p._keep()
    return r


def test_answers_with_a_secret_or_a_session_are_never_cached(client: TestClient) -> None:
    walked: dict[str, Any] = {}
    alice = Player(client, "alice")
    alice.refresh()
    walked["POST /api/signup"] = alice.post("/api/signup", {"name": "alice", "password": alice.password})
    assert walked["POST /api/signup"].status_code == 201
    alice.refresh()
    made = alice.post("/api/tokens", {"description": "bot", "scopes": ["bot:play"]})
    assert made.status_code == 201 and made.json()["token"].startswith("low_")
    walked["POST /api/tokens"] = made
    page = form(alice, "/tokens", {"description": "page bot", "scopes": "bot:play"})
    assert page.status_code == 200 and "low_" in page.text
    walked["POST /tokens"] = page
    walked["GET /tokens"] = alice.get("/tokens")
    walked["POST /api/signout"] = alice.post("/api/signout")
    alice.refresh()
    walked["POST /api/signin"] = alice.post("/api/signin", {"name": "alice", "password": alice.password})
    assert walked["POST /api/signin"].status_code == 200
    alice.refresh()
    walked["POST /signout"] = form(alice, "/signout", {})
    alice.refresh()
    walked["POST /signin"] = form(alice, "/signin", {"name": "alice", "password": alice.password})
    assert walked["POST /signin"].status_code == 303
    bob = Player(client, "bob")
    bob.refresh()
    fields = {"name": "bob", "password": bob.password, "password2": bob.password}
    walked["POST /signup"] = form(bob, "/signup", fields)
    assert walked["POST /signup"].status_code == 303
    for what, r in walked.items():
        assert r.status_code < 400, (what, r.status_code, r.text[:200])
        assert no_store(r), f"{what} answered without Cache-Control: no-store ({r.headers.get('cache-control')!r})"
    # the session cookie is set or cleared by the sign-ins, sign-ups and sign-outs walked
    for what in ("POST /api/signup", "POST /api/signin", "POST /signin", "POST /signup", "POST /signout"):
        assert "low_session=" in walked[what].headers.get("set-cookie", ""), what
    # an answer without a secret is not concerned
    assert not no_store(alice.get("/api/session"))

"""Accounts: sign up, sign in, sign out, CSRF, sign-in limits, input limits (SQLite and PostgreSQL)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tests.web.conftest import Player


def test_sign_up_signs_in_and_sign_out_ends_the_session(client: TestClient) -> None:
    alice = Player(client, "Alice").signup()
    assert alice.get("/api/session").json()["user"] == {"name": "Alice"}
    assert "low_session" in alice.cookies
    old = dict(alice.cookies)
    r = alice.post("/api/signout")
    assert r.status_code == 200
    assert alice.get("/api/session").json()["user"] is None
    # the old session token no longer works even if replayed
    alice.cookies = old
    assert alice.get("/api/session").json()["user"] is None


def test_session_cookie_is_httponly_and_samesite(client: TestClient) -> None:
    p = Player(client, "carol")
    first = p.use().get("/api/session")
    browser = next(c for c in first.headers.get_list("set-cookie") if c.startswith("low_csrf="))
    assert "HttpOnly" in browser and "samesite=lax" in browser.lower()
    p._keep()
    p.csrf = first.json()["csrf"]
    r = p.post("/api/signup", {"name": "carol", "password": "password99"})
    cookies = r.headers.get_list("set-cookie")
    session = next(c for c in cookies if c.startswith("low_session="))
    assert "HttpOnly" in session and "samesite=lax" in session.lower()
    # signing in gives a new CSRF token (it is derived from the new session), in the answer
    assert r.json()["csrf"] != p.csrf
    assert r.json()["csrf"] == p.get("/api/session").json()["csrf"]


def test_password_is_stored_as_argon2id(client: TestClient) -> None:
    from sqlalchemy import create_engine, text

    Player(client, "dora", "secret-pass-1").signup()
    engine = create_engine(client.app.state.settings.sync_url())  # type: ignore[attr-defined]
    with engine.connect() as conn:
        hashed = conn.execute(text("SELECT password_hash FROM users WHERE name_key = 'dora'")).scalar_one()
    engine.dispose()
    assert hashed.startswith("$argon2id$")
    assert "secret-pass-1" not in hashed


@pytest.mark.parametrize(
    ("name", "password", "status", "message"),
    [
        ("al", "password1", 400, "3 to 24 characters"),
        ("a" * 25, "password1", 400, "3 to 24 characters"),
        ("bad name", "password1", 400, "letters, digits"),
        ("admin", "password1", 400, "reserved"),
        ("erin", "short", 400, "at least 8"),
        ("erin", "x" * 201, 400, "at most 200"),
        ("x" * 101, "password1", 422, "name"),
    ],
)
def test_bad_sign_up_is_refused_with_a_clear_message(
    client: TestClient, name: str, password: str, status: int, message: str
) -> None:
    p = Player(client, name, password)
    p.refresh()
    r = p.post("/api/signup", {"name": name, "password": password})
    assert r.status_code == status
    assert message in r.json()["detail"]
    assert p.get("/api/session").json()["user"] is None


def test_names_are_unique_whatever_the_case(client: TestClient) -> None:
    Player(client, "frank").signup()
    p = Player(client, "FRANK")
    p.refresh()
    r = p.post("/api/signup", {"name": "FRANK", "password": "password1"})
    assert r.status_code == 409
    assert "taken" in r.json()["detail"]


def test_sign_in_with_wrong_password_and_then_right(client: TestClient) -> None:
    Player(client, "gina", "right-password").signup()
    p = Player(client, "gina")
    p.refresh()
    r = p.post("/api/signin", {"name": "gina", "password": "wrong-password"})
    assert r.status_code == 401
    assert r.json()["detail"] == "wrong name or password"
    r = p.post("/api/signin", {"name": "GINA", "password": "right-password"})
    assert r.status_code == 200
    assert p.get("/api/session").json()["user"] == {"name": "gina"}


def test_too_many_failed_sign_ins_are_refused_even_with_the_right_password(client: TestClient) -> None:
    Player(client, "hank", "right-password").signup()
    p = Player(client, "hank")
    p.refresh()
    for _ in range(5):
        assert p.post("/api/signin", {"name": "hank", "password": "nope-nope"}).status_code == 401
    r = p.post("/api/signin", {"name": "hank", "password": "right-password"})
    assert r.status_code == 429
    assert "too many failed sign-ins" in r.json()["detail"]
    assert p.get("/api/session").json()["user"] is None


@pytest.mark.parametrize("token", [None, "", "forged-token"])
def test_state_changing_requests_need_the_csrf_token(client: TestClient, token: str | None) -> None:
    p = Player(client, "ivan")
    p.refresh()
    headers = {} if token is None else {"X-CSRF-Token": token}
    r = p.use().post("/api/signup", json={"name": "ivan", "password": "password1"}, headers=headers)
    assert r.status_code == 403
    assert "CSRF" in r.json()["detail"]
    assert p.get("/api/session").json()["user"] is None


def test_forms_need_the_csrf_token(client: TestClient) -> None:
    p = Player(client, "jade")
    p.refresh()
    r = p.use().post("/signup", data={"name": "jade", "password": "password1", "password2": "password1"})
    assert r.status_code == 403
    r = p.use().post(
        "/signup",
        data={"name": "jade", "password": "password1", "password2": "password1", "csrf": p.csrf},
        follow_redirects=False,
    )
    assert r.status_code == 303
    p._keep()
    assert p.get("/api/session").json()["user"] == {"name": "jade"}


def test_sign_up_form_shows_the_error_on_the_page(client: TestClient) -> None:
    p = Player(client, "kim")
    p.refresh()
    r = p.use().post("/signup", data={"name": "kim", "password": "password1", "password2": "password2", "csrf": p.csrf})
    assert r.status_code == 400
    assert "the two passwords differ" in r.text


def test_an_over_long_body_is_refused(client: TestClient) -> None:
    p = Player(client, "lena")
    p.refresh()
    r = p.use().post(
        "/api/signup", content=b"x" * 70_000, headers={"X-CSRF-Token": p.csrf, "content-type": "application/json"}
    )
    assert r.status_code == 413
    assert "too large" in r.json()["detail"]


def test_pages_render(client: TestClient) -> None:
    p = Player(client, "mona").signup()
    for path in ("/", "/signin", "/signup", "/players/mona"):
        r = p.get(path)
        assert r.status_code == 200, path
        assert 'name="csrf-token"' in r.text
    r = p.get("/players/nobody", headers={"accept": "text/html"})
    assert r.status_code == 404
    assert "there is no player called" in r.text

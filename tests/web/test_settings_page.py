"""The settings page (SQLite and PostgreSQL): a refused email address stays in its field, as the
player typed it, and nothing is saved; the stored address shows again once the player saved."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.web.conftest import Player
from tests.web.test_mail import mail_app, smtp  # noqa: F401 - fixtures


@pytest.fixture
def mclient(db_url: str, smtp: tuple[Any, int]) -> Iterator[TestClient]:  # noqa: F811
    with mail_app(db_url, smtp[1]) as c:
        yield c


def field(page: str) -> str:
    found = re.search(r'<input name="email" type="email"[^>]*value="([^"]*)"', page)
    assert found, "no address field"
    return html.unescape(found.group(1))


@pytest.mark.parametrize("typed", ["nope", "alice@", "a b@example.org", "<alice@example.org>"])
def test_a_refused_address_stays_in_its_field(mclient: TestClient, typed: str) -> None:
    alice = Player(mclient, "alice").signup()
    r = alice.use().post("/settings", data={"csrf": alice.csrf, "email": typed, "notifications": "turn"})
    alice._keep()
    assert r.status_code == 422 and 'id="form-error"' in r.text
    assert field(r.text) == typed
    # nothing was saved: the page, read again, has no address and the old choice
    assert field(alice.get("/settings").text) == ""
    assert alice.get("/api/settings").json()["notifications"] == "off"


def test_a_refused_change_keeps_the_typed_address_over_the_saved_one(mclient: TestClient) -> None:
    alice = Player(mclient, "alice").signup()
    r = alice.use().post("/settings", data={"csrf": alice.csrf, "email": "alice@example.org", "notifications": "off"})
    alice._keep()
    assert r.status_code == 200 and field(r.text) == "alice@example.org"
    r = alice.use().post("/settings", data={"csrf": alice.csrf, "email": "alice@example", "notifications": "off"})
    alice._keep()
    assert r.status_code == 422 and field(r.text) == "alice@example"
    assert field(alice.get("/settings").text) == "alice@example.org"


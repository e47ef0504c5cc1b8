"""The OpenAPI description tells the truth: every refusal is declared with the shape sent, and
Schemathesis (its default checks, fixed seed, bounded examples) finds nothing against a real
server, signed out and signed in."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from lordsofwar import decks
from lordsofwar.web.accounts import service as accounts
from lordsofwar.web.accounts.router import NewAccount
from lordsofwar.web.app import create_app
from lordsofwar.web.decks.schemas import DeckChange, NewDeck
from lordsofwar.web.lobby.schemas import Answer
from tests.web.conftest import settings_for
from tests.web.server import running_server

SCHEMATHESIS = Path(sys.executable).with_name("schemathesis")
SEED = 1
EXAMPLES = 15
ERROR_BODY = {"$ref": "#/components/schemas/ErrorBody"}
CONFIG = """
# The one refusal no schema can express: a deck file's content (unknown cards, a rank over its count...)
[[operations]]
include-name = "POST /api/decks/import"
checks.positive_data_acceptance.expected-statuses = ["2xx", "3xx", "401", "403", "404", "409", "422", "429", "5xx"]

# the things made before the run, drawn half of the time (else made up, and mostly 404)
[dictionaries.decks]
values = {decks}
[dictionaries.games]
values = {games}
[dictionaries.invitations]
values = {invitations}

[parameters]
"path.deck_id" = {{ dictionary = "decks", probability = 0.5 }}
"path.game_id" = {{ dictionary = "games", probability = 0.5 }}
"path.inv_id" = {{ dictionary = "invitations", probability = 0.5 }}
"""


# --- the description ------------------------------------------------------------------------------


def test_every_route_declares_its_refusals_as_sent_sqlite(tmp_path: Path) -> None:
    app = create_app(settings_for(f"sqlite:///{tmp_path / 'low.sqlite3'}"), run_migrations=False)
    doc = app.openapi()
    error = doc["components"]["schemas"]["ErrorBody"]
    assert error["required"] == ["detail"] and error["properties"]["detail"]["type"] == "string"
    seen = 0
    for path, item in doc["paths"].items():
        for method, op in item.items():
            seen += 1
            where = f"{method.upper()} {path}"
            responses = op["responses"]
            takes_input = "requestBody" in op or any(p["in"] == "path" for p in op.get("parameters", []))
            wanted = {"400", "413", "429"} | ({"422"} if takes_input else set())
            assert wanted <= set(responses), f"{where} declares {sorted(responses)}"
            for code, answer in responses.items():
                if code.startswith(("4", "5")):
                    assert answer["content"] == {"application/json": {"schema": ERROR_BODY}}, f"{where} {code}"
    assert seen >= 20


@cache
def _declared(model: type[BaseModel], field: str) -> Any:
    """A validator of the field as the description declares it, judged as Schemathesis judges."""
    jsonschema_rs = pytest.importorskip("jsonschema_rs")
    return jsonschema_rs.validator_for(model.model_json_schema()["properties"][field])


def _kept(name: str) -> bool:
    try:
        decks.clean_name(name)
    except ValueError:
        return False
    return True


def _allowed(name: str) -> bool:
    try:
        accounts.check_name(name)
    except accounts.AuthError:
        return False
    return True


ODD_NAMES = (  # control, invisible, blank, too long, longer case-folded (İ, ß) or normalised (U+0958, U+FB2C)...
    ["Orcs", " a ", "", "  ", "a\tb", "a\x00b", "a\u200bb", "\u200b", "\U000e0001x", "é" * 40, "x" * 41, "İ" * 21]
    + ["ß" * 40, "\u0958" * 40, "\ufb2c" * 14, "\U0001f600" * 40, "\ue000", "\U000e0100", "a\x85b", "a\u2028b"]
)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.sampled_from(ODD_NAMES), st.text(max_size=45)))
def test_a_deck_name_is_kept_when_the_description_says_sqlite(name: str) -> None:
    assert _kept(name) == _declared(NewDeck, "name").is_valid(name), repr(name)
    if _kept(name):  # and it fits the database: name and key at most 40 characters
        assert len(decks.clean_name(name)) <= 40 and len(decks.name_key(decks.clean_name(name))) <= 40


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.text(alphabet="aZ9_.- \t\n\u3000é", max_size=30),
        st.sampled_from(sorted(accounts.RESERVED)).map(lambda w: f" {w.upper()}\n"),
    )
)
def test_a_player_name_is_allowed_when_the_description_says_sqlite(name: str) -> None:
    assert _allowed(name) == _declared(NewAccount, "name").is_valid(name), repr(name)


def test_a_whole_number_may_come_as_a_float_sqlite() -> None:
    assert Answer.model_validate_json('{"deck": 7.0}').deck == 7  # JSON Schema's integer
    for bad in ('{"deck": 7.5}', '{"deck": "7"}', '{"deck": true}', '{"deck": 0}'):
        with pytest.raises(ValueError):
            Answer.model_validate_json(bad)
    assert DeckChange.model_validate_json('{"name": "x", "cards": [], "version": 2.0}').version == 2
    assert decks.name_key("İ" * 21) != decks.name_key("İ" * 20 + "x")  # a long key keeps a digest of the whole


# --- Schemathesis against a real server -----------------------------------------------------------


@dataclass
class World:
    base: str
    config: Path
    browser: dict[str, str]  # a signed-out visitor: its cookie and CSRF token
    player: dict[str, str]  # a signed-in player with a deck, games and challenges


def _session(client: httpx.Client) -> str:
    return str(client.get("/api/session").json()["csrf"])


def _sign_up(base: str, name: str) -> tuple[httpx.Client, str]:
    client = httpx.Client(base_url=base, timeout=10)
    r = client.post(
        "/api/signup", json={"name": name, "password": "password123"}, headers={"X-CSRF-Token": _session(client)}
    )
    assert r.status_code == 201, r.text
    return client, str(r.json()["csrf"])


def _made(r: httpx.Response, key: str) -> int:
    assert r.status_code in (200, 201), r.text
    return int(r.json()[key])


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    if not SCHEMATHESIS.exists():
        pytest.skip("schemathesis is not installed in this environment")
    data = tmp_path_factory.mktemp("openapi")
    with running_server(data) as base:
        ann, ann_csrf = _sign_up(base, "ann")
        ben, ben_csrf = _sign_up(base, "ben")

        def post(client: httpx.Client, csrf: str, path: str, body: Any) -> httpx.Response:
            return client.post(path, json=body, headers={"X-CSRF-Token": csrf})

        deck = _made(post(ann, ann_csrf, "/api/decks", {"name": "Horde", "army": "orcs"}), "id")
        playing = _made(post(ann, ann_csrf, "/api/invitations", {"bot": "random"}), "game")
        over = _made(post(ann, ann_csrf, "/api/invitations", {"bot": "greedy"}), "game")
        assert post(ann, ann_csrf, f"/api/games/{over}/resign", {}).status_code == 200
        invitations = [
            _made(post(ben, ben_csrf, "/api/invitations", {"opponent": "ann"}), "invitation"),
            _made(post(ben, ben_csrf, "/api/invitations", {}), "invitation"),
            _made(post(ann, ann_csrf, "/api/invitations", {"options": {"custom_decks": True}}), "invitation"),
        ]
        config = data / "schemathesis.toml"
        config.write_text(
            CONFIG.format(
                decks=json.dumps([deck]), games=json.dumps([playing, over]), invitations=json.dumps(invitations)
            )
        )
        visitor = httpx.Client(base_url=base, timeout=10)
        visitor_csrf = _session(visitor)
        browser = {"cookie": f"low_csrf={visitor.cookies['low_csrf']}", "csrf": visitor_csrf}
        player = {
            "cookie": f"low_session={ann.cookies['low_session']}; low_csrf={ann.cookies['low_csrf']}",
            "csrf": ann_csrf,
        }
        yield World(base, config, browser, player)
        for client in (ann, ben, visitor):
            client.close()


def schemathesis(world: World, who: dict[str, str], *extra: str) -> None:
    command = [
        str(SCHEMATHESIS), "--config-file", str(world.config), "--no-color",
        "run", f"{world.base}/api/openapi.json",
        "--seed", str(SEED), "-n", str(EXAMPLES), "--generation-database", "none", "--request-timeout", "10",
        "-H", f"Cookie: {who['cookie']}", "-H", f"X-CSRF-Token: {who['csrf']}", *extra,
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=world.config.parent)
    output = "\n".join(line[:400] for line in (done.stdout + done.stderr).splitlines())
    assert done.returncode == 0, f"schemathesis found something (exit status {done.returncode}):\n{output}"


def test_schemathesis_finds_nothing_signed_out_sqlite(world: World) -> None:
    """A visitor who has the signed-out CSRF token: signing up and in work, the rest is 401."""
    schemathesis(world, world.browser)


def test_schemathesis_finds_nothing_signed_in_sqlite(world: World) -> None:
    """A player with a deck, a running game and a finished one, and challenges to answer. Signing
    out would end the session the run uses: that operation is left out."""
    schemathesis(world, world.player, "--exclude-path", "/api/signout")

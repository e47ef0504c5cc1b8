"""What the game state's response model costs an answer of ``GET /api/games/{id}``
(docs/web-api.md, docs/web.md: Schemas).

Plays a game between two players through the real app (SQLite in a temporary directory,
``--actions`` legal actions chosen with a fixed seed), takes the state document the service
makes for player 1 after every ``--every`` actions, and times what FastAPI does with a route's
return value: before, the return type ``dict[str, Any]`` (validated and written as JSON by its
type adapter); now, the ``GameState`` model (validated, field by field, then written with
``exclude_unset``). Prints, per document, its size and the microseconds of each (the median of
``--repeat`` runs), and the ratio.

    python bench/response_models.py
    python bench/response_models.py --actions 200 --every 50 --repeat 300
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from pydantic import TypeAdapter

from lordsofwar.web.app import create_app
from lordsofwar.web.games.schemas import GameState
from lordsofwar.web.games.service import state_doc
from lordsofwar.web.settings import Settings


def _post(client: TestClient, csrf: str, path: str, body: Any) -> Any:
    r = client.post(path, json=body, headers={"X-CSRF-Token": csrf})
    assert r.status_code in (200, 201), r.text
    return r.json()


def _player(app: Any, name: str) -> tuple[TestClient, str]:
    client = TestClient(app, base_url="http://testserver")
    client.__enter__()
    csrf = client.get("/api/session").json()["csrf"]
    csrf = _post(client, csrf, "/api/signup", {"name": name, "password": "password123"})["csrf"]
    return client, csrf


def _timed(work: Any, repeat: int) -> float:
    """The median microseconds of ``work()``."""
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        runs.append(time.perf_counter() - start)
    return statistics.median(runs) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=120, help="legal actions to play (default 120)")
    parser.add_argument("--every", type=int, default=30, help="measure after every so many actions (default 30)")
    parser.add_argument("--repeat", type=int, default=200, help="runs per measurement (default 200)")
    args = parser.parse_args()

    before = TypeAdapter(dict[str, Any])
    after = TypeAdapter(GameState)
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(
            database_url=f"sqlite:///{Path(tmp) / 'bench.sqlite3'}",
            bot_delay=0.0,
            argon2_time_cost=1,
            argon2_memory_kib=8192,
        )
        app = create_app(settings)
        ann, ann_csrf = _player(app, "ann")
        ben, ben_csrf = _player(app, "ben")
        options = {"creator_side": "1", "creator_army": "orcs", "opponent_army": "dwarves", "mode": "turn"}
        inv = _post(ann, ann_csrf, "/api/invitations", {"opponent": "ben", "options": options})["invitation"]
        game = _post(ben, ben_csrf, f"/api/invitations/{inv}/accept", {})["game"]
        service = app.state.service
        rng = random.Random(7)
        print(f"{'actions':>7} {'bytes':>7} {'dict[str, Any] us':>18} {'GameState us':>13} {'ratio':>6}")
        played = 0
        while True:
            if played % args.every == 0 or played == args.actions:
                rt = ann.portal.call(service.runtime, game)  # type: ignore[union-attr]
                doc = state_doc(rt, 1)
                size = len(before.dump_json(before.validate_python(doc)))
                old = _timed(lambda d=doc: before.dump_json(before.validate_python(d)), args.repeat)
                new = _timed(lambda d=doc: after.dump_json(after.validate_python(d), exclude_unset=True), args.repeat)
                print(f"{played:>7} {size:>7} {old:>18.1f} {new:>13.1f} {new / old:>6.2f}")
            if played >= args.actions:
                break
            mover = None
            for client in (ann, ben):
                state = client.get(f"/api/games/{game}").json()
                if state["legal"]:
                    mover = (client, ann_csrf if client is ann else ben_csrf, state)
                    break
            if mover is None:  # the game is over
                break
            client, csrf, state = mover
            action = rng.choice(state["legal"])
            _post(client, csrf, f"/api/games/{game}/actions", {"action": action, "version": state["game"]["version"]})
            played += 1
        for client in (ann, ben):
            client.__exit__(None, None, None)


if __name__ == "__main__":
    main()

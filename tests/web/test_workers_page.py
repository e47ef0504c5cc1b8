"""The search workers' page (/admin/workers): moderators only; it shows what Redis holds (jobs
waiting by kind, the workers' heartbeats) and where this server's searches run."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from lordsofwar.cli import cli
from lordsofwar.web.app import create_app
from lordsofwar.web.workers import jobs, status
from lordsofwar.web.workers.worker import Worker
from tests.web.conftest import Player, settings_for
from tests.web.test_search_workers import REDIS


@pytest.fixture
def prefix() -> Iterator[str]:
    from redis import Redis
    from redis.exceptions import RedisError

    redis = Redis.from_url(REDIS, decode_responses=True)
    try:
        redis.ping()
    except RedisError as exc:
        pytest.skip(f"Redis not reachable at {REDIS}: {exc}")
    name = f"low-test-{uuid.uuid4().hex[:10]}"
    yield name
    keys = list(redis.scan_iter(f"{name}:*"))
    if keys:
        redis.delete(*keys)
    redis.close()


def _site(tmp_path: Path, prefix: str, **more: Any) -> TestClient:
    url = f"sqlite:///{tmp_path / 'low.sqlite3'}"
    return TestClient(
        create_app(settings_for(url, redis_url=REDIS, redis_prefix=prefix, **more)), base_url="http://testserver"
    )


def test_only_moderators_see_the_workers_page_and_it_shows_the_queues_and_workers(
    tmp_path: Path, prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with _site(tmp_path, prefix, bot_workers=0) as client:
        r = client.get("/admin/workers", follow_redirects=False)
        assert r.status_code == 303 and r.headers["location"] == "/signin?next=/admin/workers"
        alice = Player(client, "alice").signup()
        assert alice.get("/admin/workers").status_code == 403
        monkeypatch.setenv("LOW_DATABASE_URL", client.app.state.settings.database_url)  # type: ignore[attr-defined]
        assert CliRunner().invoke(cli, ["admin", "grant-moderator", "alice"]).exit_code == 0

        page = alice.get("/admin/workers").text
        assert "This server runs no search itself" in page and 'id="no-workers"' in page
        # a worker reports; a job waits (sent long ago: it has expired)
        worker = Worker(REDIS, prefix)
        worker.prepare()
        worker._beat()
        old = time.time() - 100
        redis = worker.redis
        redis.xadd(
            jobs.stream(prefix, "hint"),
            {"id": "j1", "fn": "hint", "args": "[]", "reply": "r", "sent": f"{old}", "expires": f"{old + 30}"},
        )
        page = alice.get("/admin/workers").text
        assert "1 worker running" in page and f'data-worker="{worker.name}"' in page and "idle" in page
        assert '<tr data-kind="hint"><td>hints</td><td class="num">1</td><td class="num">0</td>' in page
        assert '<tr data-kind="turn"><td>bot turns</td><td class="num">0</td>' in page
        # the worker drops the expired job unsearched: nothing waits, nothing was answered
        assert worker.step(block=False) is True and worker.tally.done == 0 and worker.tally.dropped == 1
        assert [q.waiting + q.running for q in status.read(redis, prefix).queues] == [0, 0, 0]
        assert redis.exists(jobs.done_key(prefix, "j1")) == 0
        worker._leave()
        page = alice.get("/admin/workers").text
        assert 'id="no-workers"' in page and "hints" in page


def test_the_page_of_a_server_that_searches_itself_without_redis(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"sqlite:///{tmp_path / 'low.sqlite3'}"
    with TestClient(create_app(settings_for(url, bot_workers=3)), base_url="http://testserver") as client:
        alice = Player(client, "alice").signup()
        monkeypatch.setenv("LOW_DATABASE_URL", url)
        assert CliRunner().invoke(cli, ["admin", "grant-moderator", "alice"]).exit_code == 0
        page = alice.get("/admin/workers").text
        assert "This server searches in 3 processes of its own" in page and 'id="no-redis"' in page
        for lang, words in (
            ("de", "Dieser Server sucht in 3 eigenen Prozessen"),
            ("pl", "Ten serwer wyszukuje w 3 własnych"),
        ):
            assert alice.post("/api/language", {"language": lang}).status_code == 200
            page = alice.get("/admin/workers").text
            assert f'<html lang="{lang}">' in page and words in page


def test_the_workers_command_prints_the_queues(prefix: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOW_REDIS_URL", REDIS)
    monkeypatch.setenv("LOW_REDIS_PREFIX", prefix)
    out = CliRunner().invoke(cli, ["workers"])
    assert out.exit_code == 0, out.output
    assert f"search workers of {prefix}: 0 running" in out.output and "no worker has reported" in out.output
    monkeypatch.delenv("LOW_REDIS_URL")
    out = CliRunner().invoke(cli, ["workers"])
    assert out.exit_code == 2 and "LOW_REDIS_URL" in out.output

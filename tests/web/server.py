"""A real `lordsofwar serve` process on 127.0.0.1 for browser tests, and Debian's Chromium."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path

import httpx

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path() -> str | None:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def running_server(data: Path, port: int | None = None, **env: str) -> Iterator[str]:
    """Start the server (on a free port unless given) with its own SQLite file in ``data``;
    yield its base URL; stop it."""
    with server_process(data, port, **env) as (_proc, base):
        yield base


@contextmanager
def running_servers(root: Path, names: Sequence[str] = ("a", "b"), **env: str) -> Iterator[list[str]]:
    """Start one server per name, each with its folder ``root / name`` (pass LOW_DATABASE_URL
    to put them all on one database); yield their base URLs in order; stop them."""
    with ExitStack() as stack:
        bases = []
        for name in names:
            data = root / name
            data.mkdir()
            bases.append(stack.enter_context(running_server(data, port=None, **env)))
        yield bases


@contextmanager
def server_process(data: Path, port: int | None = None, **env: str) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """As running_server, yielding the process too (a test may kill it) with the base URL."""
    port = port or free_port()
    environ = {
        **os.environ,
        "LOW_DATABASE_URL": f"sqlite:///{data / 'low.sqlite3'}",
        "LOW_ARGON2_TIME_COST": "1",
        "LOW_ARGON2_MEMORY_KIB": "8192",
        "LOW_BOT_DELAY": "0.05",
        "LOW_SIGNUPS_PER_HOUR": "10000",  # the tests sign many players up from 127.0.0.1
        **env,
    }
    log = open(data / "server.log", "wb")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(
        [sys.executable, "-m", "lordsofwar", "serve", "--host", "127.0.0.1", "--port", str(port)],
        env=environ,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60  # a start takes about a second, much longer on a busy machine
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"the server exited: {(data / 'server.log').read_text()[-2000:]}")
            try:
                if httpx.get(base + "/api/session", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("the server did not answer within 60 s")
            time.sleep(0.1)
        yield proc, base
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        log.close()

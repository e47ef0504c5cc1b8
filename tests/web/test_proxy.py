"""Two real server processes on PostgreSQL and Redis behind a real nginx that runs the
repository's own configuration (deploy/nginx/lordsofwar.conf, with the test's addresses, ports
on 127.0.0.1, certificate and log put in place of the examples; nothing else changed). Through
the proxy: sign-up and sign-in work, and either process answers any request of a session; a
move made on either process reaches a game socket opened through the proxy; the sign-in limits
count the client's address as nginx reports it, while an X-Forwarded-For a client writes is
believed neither through the proxy nor when a process is reached directly.

The clients connect from loopback addresses of their own (127.0.0.2, 127.0.0.3, ...), so that a
client's address differs from the proxy's (127.0.0.1, the processes' LOW_FORWARDED_ALLOW_IPS).
Which process answered a request is read from nginx's access log (``upstream=``), as an operator
would read it."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import ssl
import subprocess
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from tests.web.conftest import database
from tests.web.server import free_port, running_server
from tests.web.test_two_processes import Client, rated_game

CONFIG = Path(__file__).resolve().parents[2] / "deploy" / "nginx" / "lordsofwar.conf"
REDIS = os.environ.get("LOW_TEST_REDIS", "redis://127.0.0.1:6379/0")
PASSWORD = "correct horse"  # the one Client.signup sets

MAIN_CONFIG = """\
daemon off;
worker_processes 1;
pid {run}/nginx.pid;
error_log {run}/error.log notice;
{user}
events {{
    worker_connections 256;
}}
http {{
    client_body_temp_path {run}/body;
    proxy_temp_path {run}/proxy;
    fastcgi_temp_path {run}/fastcgi;
    uwsgi_temp_path {run}/uwsgi;
    scgi_temp_path {run}/scgi;
    include {run}/lordsofwar.conf;
}}
"""
"""The main configuration around the site's: nginx in the foreground, every file it writes in
the test's directory, so that it runs as any user."""


def nginx_path() -> str | None:
    return shutil.which("nginx", path=os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/sbin"]))


def _sub(pattern: str, replacement: str, text: str) -> str:
    new, found = re.subn(pattern, replacement, text, flags=re.MULTILINE)
    assert found, f"{CONFIG.name} has no line matching {pattern!r}: update the test's rendering of it"
    return new


def rendered(upstreams: list[str], https_port: int, http_port: int, run: Path) -> str:
    """deploy/nginx/lordsofwar.conf with the test's values: the upstream's server lines (one per
    process, with the first line's parameters), listeners on 127.0.0.1 only, the test's
    certificate and access log."""
    text = CONFIG.read_text()
    block = re.search(r"^upstream lordsofwar \{\n(.*?)^\}", text, flags=re.MULTILINE | re.DOTALL)
    assert block, f"{CONFIG.name} has no 'upstream lordsofwar' block"
    lines = block[1].splitlines(keepends=True)
    servers = [line for line in lines if re.match(r"\s*server\s", line)]
    assert servers, f"{CONFIG.name}: the upstream block names no server"
    first = re.match(r"(\s*server\s+)\S+(.*\n)", servers[0])
    assert first, servers[0]
    head, params = first.groups()
    body = "".join(line for line in lines if line not in servers[1:])
    body = body.replace(servers[0], "".join(f"{head}{address}{params}" for address in upstreams))
    text = text[: block.start(1)] + body + text[block.end(1) :]
    text = _sub(r"^\s*listen \[::\]:\d+[^;]*;\n", "", text)
    text = _sub(r"\blisten 443\b", f"listen 127.0.0.1:{https_port}", text)
    text = _sub(r"\blisten 80\b", f"listen 127.0.0.1:{http_port}", text)
    text = _sub(r"\bssl_certificate\s+\S+;", f"ssl_certificate {run / 'cert.pem'};", text)
    text = _sub(r"\bssl_certificate_key\s+\S+;", f"ssl_certificate_key {run / 'key.pem'};", text)
    return _sub(r"\baccess_log\s+\S+", f"access_log {run / 'access.log'}", text)


def self_signed_certificate(run: Path) -> None:
    """cert.pem and key.pem in ``run``: a certificate for 127.0.0.1, good for a day."""
    command = ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    command += ["-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"]
    command += ["-keyout", str(run / "key.pem"), "-out", str(run / "cert.pem")]
    subprocess.run(command, check=True, capture_output=True)


@contextmanager
def running_nginx(nginx: str, run: Path, port: int) -> Iterator[None]:
    """Start nginx with ``run``/nginx.conf and wait until it accepts connections on ``port``;
    stop it (and its worker) afterwards."""
    out = open(run / "nginx.out", "wb")  # noqa: SIM115 - closed below
    command = [nginx, "-p", str(run), "-c", str(run / "nginx.conf")]
    proc = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 10
        while True:
            if proc.poll() is not None:
                logs = [run / "nginx.out", run / "error.log"]
                raise RuntimeError("nginx exited: " + "".join(f.read_text() for f in logs if f.exists()))
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError("nginx did not listen within 10 s") from None
                time.sleep(0.05)
        yield
    finally:
        proc.terminate()  # fast shutdown: open sockets do not keep it alive
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        out.close()


@dataclass
class Site:
    """nginx on 127.0.0.1 in front of two server processes."""

    https: str
    """The site's address through the proxy."""
    http: str
    """nginx's plain-HTTP listener (it only redirects)."""
    processes: list[str]
    """Each process's own address, bypassing the proxy."""
    tls: ssl.SSLContext
    """Trusts the test's certificate."""
    access_log: Path

    def browser(self, address: str) -> Client:
        """A browser connecting to the site, through the proxy, from this loopback address."""
        return Client(self.https, transport=httpx.HTTPTransport(verify=self.tls, local_address=address))

    def direct(self, i: int, player: Client) -> httpx.Client:
        """The signed-in ``player`` on process ``i``, bypassing the proxy (in plain HTTP, so the
        session cookie, Secure, goes as a header)."""
        token = player.http.cookies["low_session"]
        headers = {"Cookie": f"low_session={token}", "X-CSRF-Token": player.csrf}
        return httpx.Client(base_url=self.processes[i], headers=headers, timeout=30)

    def answered_by(self, marker: str) -> str:
        """The process (its address) that nginx logged for the request whose line holds
        ``marker``; the line is written as the request ends, so it may take a moment."""
        deadline = time.monotonic() + 5
        while True:
            for line in self.access_log.read_text().splitlines():
                if marker in line:
                    upstream = re.search(r"upstream=(\S+)", line)
                    assert upstream, line
                    return "http://" + upstream[1]
            assert time.monotonic() < deadline, f"nginx logged no request with {marker!r}"
            time.sleep(0.05)


def _redis_or_skip() -> str:
    import redis

    try:
        redis.Redis.from_url(REDIS, socket_connect_timeout=2).ping()
    except Exception as exc:
        pytest.skip(f"Redis not reachable at {REDIS}: {exc}")
    return REDIS


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    nginx = nginx_path()
    if nginx is None:
        pytest.skip("nginx is not installed (scripts/install-proxy)")
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed (scripts/install-proxy): no certificate for the proxy")
    try:
        with socket.socket() as s:
            s.bind(("127.0.0.2", 0))
    except OSError as exc:
        pytest.skip(f"no loopback address 127.0.0.2 for a client that is not the proxy: {exc}")
    redis_url = _redis_or_skip()
    tmp = tmp_path_factory.mktemp("proxy")
    with ExitStack() as stack:
        url = stack.enter_context(database("postgresql", tmp))
        processes = []
        for name in ("a", "b"):
            data = tmp / name
            data.mkdir()
            # as deploy/systemd/lordsofwar@.service sets them; the proxy's address is 127.0.0.1
            server = running_server(
                data,
                LOW_DATABASE_URL=url,
                LOW_REDIS_URL=redis_url,
                LOW_TRUST_PROXY_HEADERS="1",
                LOW_FORWARDED_ALLOW_IPS="127.0.0.1",
            )
            processes.append(stack.enter_context(server))
        run = tmp / "nginx"
        run.mkdir()
        self_signed_certificate(run)
        https_port, http_port = free_port(), free_port()
        upstreams = [p.removeprefix("http://") for p in processes]
        (run / "lordsofwar.conf").write_text(rendered(upstreams, https_port, http_port, run))
        # As root, nginx's worker would become nobody, who may not enter pytest's directory.
        user = "user root;" if os.geteuid() == 0 else ""
        (run / "nginx.conf").write_text(MAIN_CONFIG.format(run=run, user=user))
        stack.enter_context(running_nginx(nginx, run, https_port))
        tls = ssl.create_default_context(cafile=str(run / "cert.pem"))
        proxy, redirect = f"https://127.0.0.1:{https_port}", f"http://127.0.0.1:{http_port}"
        yield Site(proxy, redirect, processes, tls, run / "access.log")


def test_sign_up_and_sign_in_through_the_proxy_and_either_process_answers(site: Site) -> None:
    alice = site.browser("127.0.0.2").signup("alice")
    site.browser("127.0.0.2").signup("bob")
    # X-Forwarded-Proto reached the process: the session cookie is for HTTPS only.
    assert next(c for c in alice.http.cookies.jar if c.name == "low_session").secure
    laptop = site.browser("127.0.0.3")
    r = laptop.post("/api/signin", {"name": "alice", "password": PASSWORD})
    assert r.status_code == 200, r.text
    laptop.csrf = r.json()["csrf"]
    # One session, no stickiness: every request is answered as alice's, by either process, and
    # the CSRF token one process derived is accepted by the other.
    for i in range(6):
        r = laptop.http.get(f"/api/session?probe=get{i}")
        assert r.json()["user"] == {"name": "alice"}, r.text
    for i in range(4):
        r = laptop.post(f"/api/invitations?probe=post{i}", {"opponent": "bob", "options": {}})
        assert r.status_code == 201, r.text
    assert {site.answered_by(f"probe=get{i}") for i in range(6)} == set(site.processes)
    assert {site.answered_by(f"probe=post{i}") for i in range(4)} == set(site.processes)


def test_a_move_on_either_process_reaches_a_socket_opened_through_the_proxy(site: Site) -> None:
    anna, boris = site.browser("127.0.0.2").signup("anna"), site.browser("127.0.0.2").signup("boris")
    game = rated_game(anna, boris)
    wss = site.https.replace("https://", "wss://")
    headers = {"Cookie": f"low_session={boris.http.cookies['low_session']}", "Origin": site.https}
    with connect(f"{wss}/api/games/{game}/ws", ssl=site.tls, additional_headers=headers, open_timeout=10) as ws:

        def seen(version: int) -> dict[str, Any]:
            deadline = time.monotonic() + 10
            while True:
                msg = json.loads(ws.recv(timeout=max(0.1, deadline - time.monotonic())))
                if msg.get("game", {}).get("version") == version:
                    return dict(msg)

        assert seen(0)["type"] == "state"
        # anna plays on process A, then on process B (which hears of A's move over Redis, or
        # reloads the game when the action names a version newer than its copy): whichever
        # process holds boris's socket, one of the two moves was made on the other.
        with site.direct(0, anna) as on_a, site.direct(1, anna) as on_b:
            first = on_a.get(f"/api/games/{game}").json()["legal"][0]
            r = on_a.post(f"/api/games/{game}/actions", json={"action": first, "version": 0})
            assert r.status_code == 200, r.text
            assert seen(1)["log"][-1]["action"] == first
            second = r.json()["legal"][0]
            r = on_b.post(f"/api/games/{game}/actions", json={"action": second, "version": 1})
            assert r.status_code == 200, r.text
            assert seen(2)["log"][-1]["action"] == second
    assert site.answered_by(f'GET /api/games/{game}/ws HTTP/1.1" 101') in site.processes


def test_sign_in_limits_count_the_address_nginx_reports_not_one_a_client_writes(site: Site) -> None:
    site.browser("127.0.0.3").signup("owner")
    wrong = {"name": "owner", "password": "not the password"}

    def guesses(client: Client, probe: str) -> list[int]:
        """Seven wrong passwords, each claiming another address in X-Forwarded-For."""
        statuses = []
        for i in range(7):
            headers = {"X-CSRF-Token": client.csrf, "X-Forwarded-For": f"203.0.113.{i}"}
            statuses.append(client.http.post(f"/api/signin?probe={probe}{i}", json=wrong, headers=headers).status_code)
        return statuses

    # Through the proxy, from 127.0.0.2: nginx replaces the header with the client's address,
    # so the guesser is one address, stopped after five guesses, although the guesses were
    # spread over both processes (the counts are in Redis).
    assert guesses(site.browser("127.0.0.2"), "proxied") == [401] * 5 + [429] * 2
    assert {site.answered_by(f"probe=proxied{i}") for i in range(7)} == set(site.processes)
    # Straight to a process, from 127.0.0.4 (not the proxy): the header is not believed either.
    direct = Client(site.processes[0], transport=httpx.HTTPTransport(local_address="127.0.0.4"))
    assert guesses(direct, "direct") == [401] * 5 + [429] * 2
    # The processes saw the clients' addresses, not the proxy's: from 127.0.0.2 even the right
    # password is refused now, while the owner, at 127.0.0.3 behind the same proxy, signs in.
    r = site.browser("127.0.0.2").post("/api/signin", {"name": "owner", "password": PASSWORD})
    assert r.status_code == 429, r.text
    r = site.browser("127.0.0.3").post("/api/signin", {"name": "owner", "password": PASSWORD})
    assert r.status_code == 200, r.text


def test_the_proxy_redirects_plain_http_and_stops_large_bodies_at_the_edge(site: Site) -> None:
    r = httpx.get(f"{site.http}/lobby?x=1")
    assert r.status_code == 301 and r.headers["location"] == "https://127.0.0.1/lobby?x=1"
    # A body over the server's 64 KB gets the server's own answer, which a page can show...
    r = site.browser("127.0.0.2").post("/api/signup", {"name": "x" * 100_000, "password": PASSWORD})
    assert r.status_code == 413 and "too large" in r.json()["detail"]
    # ...and one far over it is refused by nginx, before a process is bothered.
    port = int(site.https.rsplit(":", 1)[1])
    with (
        socket.create_connection(("127.0.0.1", port), timeout=10) as raw,
        site.tls.wrap_socket(raw, server_hostname="127.0.0.1") as s,
    ):
        s.sendall(b"POST /api/signup HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 10000000\r\n\r\n")
        assert s.recv(100).startswith(b"HTTP/1.1 413")

"""The web server benchmark (bench/server.py) runs end to end: a real server subprocess, a few
bot-vs-bot games over WebSockets, and one JSON object of figures."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_bench_server_quick_run() -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "server.py"), "--games", "3", "--duration", "4", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    figures = json.loads(proc.stdout.strip().splitlines()[-1])
    assert figures["database"] == "sqlite"
    assert figures["concurrent_games"] == 3
    assert figures["games"] >= 3
    assert figures["actions"] > 0
    assert figures["actions_per_s"] > 0
    assert figures["errors"] == 0, figures["error_messages"]
    assert figures["version_gaps"] == 0
    assert figures["disconnects"] == 0
    latency = figures["latency_ms"]
    assert 0 < latency["p50"] <= latency["p90"] <= latency["p99"] <= latency["max"]
    assert figures["argon2"] == {"time_cost": 1, "memory_kib": 8192}
    assert figures["server_cpu_s"] is not None and figures["server_cpu_s"] > 0


def test_bench_server_arena_quick_run() -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "server.py"), "--arena", "6", "--duration", "6", "--think-ms", "0", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    figures = json.loads(proc.stdout.strip().splitlines()[-1])
    assert figures["arena_players"] == 6 and figures["games"] >= 3 and figures["actions"] > 0
    assert figures["errors"] == 0, figures["error_messages"]
    assert figures["pairing_samples"] > 0  # games ended and their players were paired again
    pairing = figures["pairing_latency_ms"]
    assert 0 < pairing["p50"] <= pairing["p99"] <= pairing["max"]


def test_bench_server_with_bots_searching() -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "server.py"), "--games", "2", "--bot-games", "2", "--bot-level", "veteran",
         "--duration", "6", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    figures = json.loads(proc.stdout.strip().splitlines()[-1])
    assert figures["bot_games"] == 2 and figures["bot_level"] == "veteran"
    assert figures["errors"] == 0, figures["error_messages"]
    bots = figures["bot_decisions"]
    assert bots["decisions"] > 0, "the bots made no decision in the worker pool"
    assert 0 <= bots["search_ms"]["p50"] <= bots["search_ms"]["p99"] <= bots["search_ms"]["max"]
    assert bots["search_ms"]["p50"] <= bots["wall_ms"]["p99"] + 1
    assert bots["level_budget_ms"] == 250

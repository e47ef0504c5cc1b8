"""The package as a user installs it: a wheel built from this tree, installed without extras
into a fresh virtualenv (no repository, no dev tools), must run every console command, and
`lordsofwar serve` must serve the lobby. The wheel holds the compiled rules core; a wheel built
where the core cannot be compiled still works, on the Python engine, and says so once."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from lordsofwar import i18n
from tests.web.server import free_port

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str | Path, cwd: Path, env: dict[str, str] | None = None, timeout: int = 600) -> str:
    done = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{args}: exit {done.returncode}\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def install(where: Path, *build_options: str) -> Path:
    """A fresh virtualenv holding the wheel of this tree (built with ``build_options``) and its
    declared dependencies only."""
    wheels = where / "wheels"
    run(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", *build_options, "--wheel-dir", wheels, ROOT, cwd=where)
    (wheel,) = wheels.glob("lordsofwar-*.whl")
    venv = where / "venv"
    run(sys.executable, "-m", "venv", venv, cwd=where)
    run(venv / "bin" / "python", "-m", "pip", "install", "--quiet", wheel, cwd=where)
    return venv


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return install(tmp_path_factory.mktemp("clean-install"))


@pytest.fixture(scope="module")
def installed_without_core(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """As a machine without a C++ compiler gets it (the build's switch LOW_NATIVE=OFF), built in a
    folder of its own: configured in the tree's build folder, it would switch the developer's
    incremental build of the core off."""
    where = tmp_path_factory.mktemp("no-core-install")
    return install(
        where, "--config-settings=cmake.define.LOW_NATIVE=OFF", f"--config-settings=build-dir={where / 'build'}"
    )


USE_THE_CORE = """
import lordsofwar.core as core
from lordsofwar.rules.cards import CORE
game = core.Game.deal([CORE.standard_deck("orcs"), CORE.standard_deck("elves")], 7)
assert "deploy orcs:07 c3" in game.legal(), game.legal()
game.apply_id(game.legal_ids()[0])
import lordsofwar.core
print(core.IMPLEMENTATION, game.playout(3).winner in (1, 2, None), game.is_over)
"""


def test_the_wheel_holds_the_compiled_core(installed: Path, tmp_path: Path) -> None:
    done = subprocess.run([installed / "bin" / "python", "-c", USE_THE_CORE], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == ["native", "True", "True"]
    assert done.stderr == ""


def test_without_the_core_the_package_runs_on_the_python_engine_and_says_so_once(
    installed_without_core: Path, tmp_path: Path
) -> None:
    python = installed_without_core / "bin" / "python"
    assert not list((installed_without_core / "lib").glob("python*/site-packages/lordsofwar/core/_core*.so"))
    done = subprocess.run([python, "-c", USE_THE_CORE], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == ["python", "True", "True"]
    assert done.stderr.count("CoreFallbackWarning") == 1, done.stderr
    assert "lordsofwar.core runs on the Python engine" in done.stderr
    low = installed_without_core / "bin" / "lordsofwar"
    position = run(low, "new", "--armies", "orcs,dwarves", "--seed", "7", cwd=tmp_path)
    (tmp_path / "start.json").write_text(position)
    assert "deploy orcs:07 c3" in run(low, "legal", "start.json", cwd=tmp_path).splitlines()


def test_the_installed_package_holds_no_dev_tool(installed: Path) -> None:
    for tool in ("pytest", "playwright", "hypothesis"):
        done = subprocess.run([installed / "bin" / "python", "-c", f"import {tool}"], capture_output=True)
        assert done.returncode != 0, f"{tool} is installed: the clean install is not clean"


def test_the_console_commands_run_from_a_clean_install(installed: Path, tmp_path: Path) -> None:
    low = installed / "bin" / "lordsofwar"
    assert "serve" in run(low, "--help", cwd=tmp_path)
    position = run(low, "new", "--armies", "orcs,dwarves", "--seed", "7", cwd=tmp_path)
    (tmp_path / "start.json").write_text(position)
    assert "deploy orcs:07 c3" in run(low, "legal", "start.json", cwd=tmp_path).splitlines()
    assert "orcs:01" in run(low, "cards", "--army", "orcs", cwd=tmp_path)
    # the bots: a match, and an analysis of a short record (the search levels need the core)
    import json

    from lordsofwar.bots import make_bot
    from lordsofwar.rules import notation
    from lordsofwar.rules.cards import CORE
    from lordsofwar.rules.state import Variant

    match = json.loads(run(low, "match", "recruit", "random", "--games", "2", "--workers", "1", "--json", cwd=tmp_path))
    assert match["games"] == 2 and match["wins"] + match["draws"] + match["losses"] == 2
    # scout's and marshal's networks are in the wheel: scout plays from it with NumPy alone
    match = json.loads(run(low, "match", "scout", "random", "--games", "1", "--workers", "1", "--json", cwd=tmp_path))
    assert match["games"] == 1
    decks = [CORE.standard_deck(a) for a in ("orcs", "dwarves")]
    record = notation.GameRecord(decks, 3, Variant(), ["a", "b"], [], None)
    pos = notation.deal(decks, 3, Variant(), CORE)
    bot = make_bot("greedy", 1)
    for _ in range(12):
        action = str(bot.choose(notation.view(pos, pos.decider)))
        pos.push(action)
        record.actions.append(action)
    (tmp_path / "game.json").write_text(notation.dumps(record.to_json()))
    found = json.loads(run(low, "analyse", "game.json", "--iterations", "30", "--json", cwd=tmp_path))
    assert len(found["graph"]) == 13
    stored = installed.glob("lib/python*/site-packages/lordsofwar/bots/ladder.json")
    assert list(stored), "the measured ladder is not in the wheel"
    shipped = installed.glob("lib/python*/site-packages/lordsofwar/learn/data/puzzles.jsonl.gz")
    assert list(shipped), "the shipped puzzles are not in the wheel"
    guide = {p.name for p in installed.glob("lib/python*/site-packages/lordsofwar/learn/guide/*.json")}
    assert guide == {"sections.json", "diagrams.json", "en.json", "de.json", "pl.json"}, "the rules guide is not in the wheel"
    # a trained policy plays with NumPy alone (no RL extra, no PyTorch)
    import numpy as np

    from lordsofwar.bots.policy import save_policy

    size, actions = 38 * 42 + 264, 1724
    rng = np.random.default_rng(0)
    save_policy(tmp_path / "policy.npz", [(rng.normal(0, 0.1, (size, 8)), np.zeros(8)), (rng.normal(0, 0.1, (8, actions)), np.zeros(actions))],
                {"mat": "bordered", "frame": [21, 21], "observation_size": size, "num_actions": actions})
    match = json.loads(run(low, "match", "policy:policy.npz", "random", "--games", "1", "--json", cwd=tmp_path))
    assert match["games"] == 1
    for extra in ("pettingzoo", "gymnasium", "torch"):
        done = subprocess.run([installed / "bin" / "python", "-c", f"import {extra}"], capture_output=True)
        assert done.returncode != 0, f"{extra} is installed: the clean install is not clean"


def test_serve_from_a_clean_install_serves_the_lobby(installed: Path, tmp_path: Path) -> None:
    port = free_port()
    env = {
        "PATH": f"{installed / 'bin'}:/usr/bin:/bin",
        "HOME": str(tmp_path),
        "LOW_DATABASE_URL": f"sqlite:///{tmp_path / 'low.sqlite3'}",
    }
    log = open(tmp_path / "server.log", "wb")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(
        [installed / "bin" / "lordsofwar", "serve", "--port", str(port)],
        cwd=tmp_path, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, (tmp_path / "server.log").read_text()[-3000:]
            try:
                r = httpx.get(base + "/", timeout=2)
                break
            except httpx.HTTPError:
                assert time.monotonic() < deadline, "the server did not answer within 60 s"
                time.sleep(0.2)
        assert r.status_code == 200 and "Open challenges" in r.text
        # the browser client's modules, as committed (no Node on the machine)
        for module in ("js/game.js", "js/render.js", "js/i18n.js", "js/tournament.js", "js/profile.js", "js/flash.js"):
            served = httpx.get(f"{base}/static/{module}", timeout=5)
            assert served.status_code == 200 and "javascript" in served.headers["content-type"], module
        assert "content-security-policy" in httpx.get(base + "/", timeout=5).headers
        for lang in ("de", "pl"):  # the catalogues are in the wheel (compiled or read from the .po)
            page = httpx.get(base + "/", headers={"Accept-Language": lang}, timeout=5).text
            with i18n.use(lang):
                heading = i18n.gettext("Open challenges")
            assert f'<html lang="{lang}">' in page and heading != "Open challenges" and heading in page
        session = httpx.get(base + "/api/session", timeout=5).json()
        assert session["user"] is None and len(session["csrf"]) == 64
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
    assert "Traceback" not in (tmp_path / "server.log").read_text()

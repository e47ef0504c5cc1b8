"""Every shared acceptance case (``../shared/acceptance/cases/*.json``) as its own test.

The expect keys are those of ``../shared/acceptance/README.md``. The cases run through the engine
API the CLI uses (``notation.parse_position``, ``Position.push``, ``legal_actions``,
``position_to_json``); a handful also run through the CLI itself when it exists.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from lordsofwar.rules import mat
from lordsofwar.rules.errors import IllegalActionError, InvalidActionError
from lordsofwar.rules.events import Event
from lordsofwar.rules.notation import parse_position, position_to_json

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("LOW_SHARED", Path(__file__).resolve().parents[2] / "shared"))
CASES_DIR = SHARED / "acceptance" / "cases"
SKIP_REASON = "../shared/acceptance not found: acceptance cases skipped"

KNOWN_KEYS = {
    "illegal_at",
    "board",
    "lost",
    "hand",
    "to_move",
    "turn",
    "quiet_turns",
    "decider",
    "result",
    "legal",
    "legal_includes",
    "legal_excludes",
    "events_mention",
}


def _load_cases() -> list[Any]:
    if not CASES_DIR.is_dir():
        return [pytest.param(None, id="no-acceptance-cases", marks=pytest.mark.skip(reason=SKIP_REASON))]
    params = []
    for path in sorted(CASES_DIR.glob("*.json")):
        case = json.loads(path.read_text(encoding="utf-8"))
        params.append(pytest.param(case, id=case.get("name", path.stem)))
    if not params:
        return [pytest.param(None, id="no-acceptance-cases", marks=pytest.mark.skip(reason=SKIP_REASON))]
    return params


CASES = _load_cases()


# --- comparing an outcome with a case's expect ------------------------------------------------


def _square(text: str, bordered: bool) -> str:
    """The canonical name of a square (``3,2`` and ``d3`` are the same square)."""
    return mat.name(mat.parse(text, bordered))


def _board_multiset(entries: list[dict[str, Any]], bordered: bool) -> Counter[tuple[str, str, int]]:
    return Counter((_square(e["square"], bordered), e["card"], e["owner"]) for e in entries)


def _events_text(events: Sequence[Mapping[str, Any]]) -> str:
    return json.dumps([list(e.values()) for e in events]).lower()


def check_expect(
    name: str,
    expect: dict[str, Any],
    doc: dict[str, Any],
    legal_actions: list[str],
    events: Sequence[Mapping[str, Any]],
) -> None:
    """Assert every key of ``expect`` against a position document, its legal actions and events."""
    unknown = set(expect) - KNOWN_KEYS
    assert not unknown, f"{name}: expect keys this runner does not know: {sorted(unknown)}"
    bordered = doc["variant"].get("mat", "bordered") == "bordered"
    if "board" in expect:
        assert _board_multiset(doc["board"], bordered) == _board_multiset(expect["board"], bordered), (
            f"{name}: board {doc['board']}"
        )
    for key in ("lost", "hand"):
        for player, cards in expect.get(key, {}).items():
            got = doc["players"][str(player)][key]
            assert Counter(got) == Counter(cards), f"{name}: player {player}'s {key} is {got}, expected {cards}"
    for key in ("to_move", "turn", "quiet_turns"):
        if key in expect:
            assert doc[key] == expect[key], f"{name}: {key} is {doc[key]}, expected {expect[key]}"
    if "decider" in expect:
        decider = doc.get("turn_state", {}).get("decider", doc["to_move"])
        assert decider == expect["decider"], f"{name}: decider is {decider}, expected {expect['decider']}"
    if "result" in expect:
        want = expect["result"]
        got = doc["result"]
        if want is None:
            assert got is None, f"{name}: the game ended ({got}) but should still run"
        else:
            assert got is not None, f"{name}: the game should have ended ({want})"
            assert got["winner"] == want["winner"], f"{name}: result {got}, expected winner {want['winner']}"
    legal = set(legal_actions)
    if "legal" in expect:
        assert legal == set(expect["legal"]), (
            f"{name}: legal actions differ: extra {sorted(legal - set(expect['legal']))}, "
            f"missing {sorted(set(expect['legal']) - legal)}"
        )
    if "legal_includes" in expect:
        missing = set(expect["legal_includes"]) - legal
        assert not missing, f"{name}: legal actions lack {sorted(missing)}"
    if "legal_excludes" in expect:
        present = set(expect["legal_excludes"]) & legal
        assert not present, f"{name}: legal actions wrongly include {sorted(present)}"
    if "events_mention" in expect:
        text = _events_text(events)
        for group in expect["events_mention"]:
            assert any(word.lower() in text for word in group), f"{name}: no event mentions any of {group}: {events}"


# --- through the engine API ---------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES)
def test_acceptance_case(case: dict[str, Any]) -> None:
    name = case["name"]
    pos = parse_position(case["position"])
    expect = case["expect"]
    actions = case["actions"]
    events: list[Event] = []
    if "illegal_at" in expect:
        k = expect["illegal_at"]
        assert 0 <= k < len(actions), f"{name}: illegal_at {k} but only {len(actions)} actions"
        for action in actions[:k]:
            events.extend(pos.push(action))
        before = position_to_json(pos)
        with pytest.raises((IllegalActionError, InvalidActionError)) as info:
            pos.push(actions[k])
        assert str(info.value).strip(), f"{name}: the refusal of {actions[k]!r} has no message"
        assert position_to_json(pos) == before, f"{name}: the refused action {actions[k]!r} changed the position"
    else:
        for action in actions:
            events.extend(pos.push(action))
    check_expect(name, expect, position_to_json(pos), [str(a) for a in pos.legal_actions()], events)


# --- through the command line (when the CLI exists) -------------------------------------------

CLI_CASES = [
    "example_deathbringer_marauder_slugger",
    "forced_deployment_reveals_hand",
    "opponent_berserker_choice_in_my_turn",
    "engagement_rule_reject",
    "one_shot_per_ranged_unit",
    "special_free_deployment_empty_mat",
    "unbordered_deploy_off_mat",
    "general_kill_extra_turn",
]
CLI_PRESENT = (REPO / "lordsofwar" / "cli.py").exists() and (REPO / "lordsofwar" / "__main__.py").exists()


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lordsofwar", *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO,
    )


def _cli_params() -> list[Any]:
    by_name = {p.values[0]["name"]: p.values[0] for p in CASES if p.values[0] is not None}
    if not by_name:
        return [pytest.param(None, id="no-acceptance-cases", marks=pytest.mark.skip(reason=SKIP_REASON))]
    return [pytest.param(by_name[n], id=n) for n in CLI_CASES if n in by_name]


@pytest.mark.skipif(
    not CLI_PRESENT, reason="lordsofwar/cli.py or lordsofwar/__main__.py absent: CLI acceptance runs skipped"
)
@pytest.mark.parametrize("case", _cli_params())
def test_acceptance_case_through_cli(case: dict[str, Any], tmp_path: Path) -> None:
    name = case["name"]
    expect = case["expect"]
    actions = case["actions"]
    start = tmp_path / "position.json"
    start.write_text(json.dumps(case["position"]), encoding="utf-8")
    if "illegal_at" in expect:
        k = expect["illegal_at"]
        proc = _cli("apply", str(start), *actions[: k + 1])
        assert proc.returncode == 2, f"{name}: exit status {proc.returncode}, expected 2: {proc.stdout}{proc.stderr}"
        message = (proc.stdout + proc.stderr).strip()
        assert actions[k] in message, f"{name}: the refusal does not name the action: {message!r}"
        assert "Traceback" not in message
        if k == 0:
            after = start
        else:
            proc = _cli("apply", str(start), *actions[:k])
            assert proc.returncode == 0, proc.stderr
            after = tmp_path / "after.json"
            after.write_text(proc.stdout, encoding="utf-8")
        doc = json.loads(after.read_text(encoding="utf-8"))
        events: list[dict[str, Any]] = doc.pop("events", [])
    elif actions:
        proc = _cli("apply", str(start), *actions)
        assert proc.returncode == 0, f"{name}: exit status {proc.returncode}: {proc.stderr}"
        doc = json.loads(proc.stdout)
        events = doc.pop("events", [])
        after = tmp_path / "after.json"
        after.write_text(json.dumps(doc), encoding="utf-8")
    else:
        doc, events, after = case["position"], [], start
    proc = _cli("legal", str(after))
    assert proc.returncode == 0, f"{name}: legal exit status {proc.returncode}: {proc.stderr}"
    lines = [line for line in proc.stdout.splitlines() if line.strip()]
    assert lines == sorted(set(lines)), f"{name}: 'legal' must print sorted lines without duplicates"
    check_expect(name, expect, doc, lines, events)

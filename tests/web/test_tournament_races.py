"""Changes to a tournament's entrants racing its start or the pairing of a round, sent at the same
moment to two real server processes on one database (SQLite and PostgreSQL): a join is either
refused (409, code ``closed``) or paired in round 1; a withdrawal either comes before the pairing
(the player is left out of it) or after it (the round's game goes on); bots entered or taken out
by the organiser likewise. Each race is run several times: the outcome depends on the timing."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator, Sequence
from typing import Any

import httpx
import pytest

from tests.web.conftest import database
from tests.web.server import running_servers
from tests.web.test_two_processes import Client

TRIALS = 4


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def servers(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """Two server processes on one database, shared by the module's tests on that database (each
    test signs up players of its own, with a name prefix no other test uses, and makes its own
    tournaments)."""
    root = tmp_path_factory.mktemp(f"races-{request.param}")
    with database(request.param, root) as url, running_servers(root, LOW_DATABASE_URL=url) as bases:
        yield bases[0], bases[1]


ROUND_AFTER: dict[int, int] = {}
Call = tuple[Client, str, str]
"""A request: who sends it, its method and its path."""


def send(call: Call, body: dict[str, Any] | None = None) -> httpx.Response:
    client, method, path = call
    return client.http.request(
        method, path, json=(body or {}) if method == "POST" else None, headers={"X-CSRF-Token": client.csrf}
    )


def at_once(
    calls: Sequence[Call | tuple[Client, str, str, dict[str, Any]]], spread: float = 0.0, look: int | None = None
) -> list[httpx.Response]:
    """Send each request (a body after the path, if any) from its own thread, the threads
    released together (each after a random delay of up to ``spread`` seconds); the answers in
    order. With ``look`` (a tournament), each thread reads that tournament's round as soon as
    its answer came, into ``ROUND_AFTER`` (keyed by the answer's id): the round paired last is
    then at most that one when the request's change was made."""
    start = threading.Barrier(len(calls))
    answers: list[Any] = [None] * len(calls)
    delays = [random.uniform(0, spread) for _ in calls]

    def run(i: int) -> None:
        start.wait()
        if delays[i]:
            time.sleep(delays[i])
        client, method, path, *body = calls[i]
        answers[i] = send((client, method, path), *body)
        if look is not None:
            ROUND_AFTER[id(answers[i])] = client.http.get(f"/api/tournaments/{look}").json()["current_round"]

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return answers


def swiss(host: Client, trial: int, rounds: int, **options: Any) -> int:
    body = {"name": f"Race {trial}", "kind": "swiss", "rounds": rounds, "options": options}
    r = host.post("/api/tournaments", body)
    assert r.status_code == 201, r.text
    return int(r.json()["tournament"])


def players(a: str, b: str, prefix: str, n: int) -> list[Client]:
    """``n`` players signed up, every other one talking to the second process."""
    signed = [Client(a).signup(f"{prefix}{i}") for i in range(n)]
    return [p if i % 2 == 0 else p.elsewhere(b) for i, p in enumerate(signed)]


def settled(host: Client, tid: int, round_: int) -> dict[str, Any]:
    """The tournament once ``round_`` is paired (and nothing is still on its way)."""
    deadline = time.monotonic() + 30
    while True:
        t = host.http.get(f"/api/tournaments/{tid}").json()
        if t["status"] != "upcoming" and t["current_round"] >= round_:
            time.sleep(0.3)  # an answer still on its way has had its chance to change something
            return dict(host.http.get(f"/api/tournaments/{tid}").json())
        assert time.monotonic() < deadline, t
        time.sleep(0.05)


def seated(t: dict[str, Any], round_: int) -> list[str]:
    """Every name on a board of ``round_`` (a bye included), once per board seat."""
    boards: list[dict[str, Any]] = next((x["boards"] for x in t["rounds_played"] if x["round"] == round_), [])
    return [name for b in boards for name in (b["white"], b["black"]) if name is not None]


def consistent(t: dict[str, Any], round_: int) -> list[str]:
    """What is wrong in ``t`` once ``round_`` is paired: every entrant still in is on exactly one
    board, and every player on a board is an entrant."""
    wrong = []
    names = seated(t, round_)
    entries = {e["name"]: e for e in t["entries"]}
    for name, e in entries.items():
        if not e["withdrawn"] and names.count(name) != 1:
            wrong.append(f"{t['name']}: {name} is entered and on {names.count(name)} boards of round {round_}")
    for name in names:
        if name not in entries:
            wrong.append(f"{t['name']}: {name} is on a board of round {round_} with no entry")
    return wrong


def test_joins_racing_the_start_are_paired_or_refused(servers: tuple[str, str]) -> None:
    a, b = servers
    host, first, second = players(a, b, "joinhost", 3)
    joiners = players(a, b, "joiner", 10)
    wrong: list[str] = []
    refused = 0
    for trial in range(TRIALS):
        tid = swiss(host, trial, 1)
        for p in (first, second):
            assert p.post(f"/api/tournaments/{tid}/join").status_code == 200
        starter = host if trial % 2 == 0 else host.elsewhere(b)
        joins: list[Call] = [(p, "POST", f"/api/tournaments/{tid}/join") for p in joiners]
        answers = at_once([(starter, "POST", f"/api/tournaments/{tid}/start"), *joins])
        assert answers[0].status_code == 200, answers[0].text
        t = settled(host, tid, 1)
        entered = {e["name"] for e in t["entries"]}
        for p, r in zip(joiners, answers[1:], strict=True):
            if r.status_code == 200:
                if p.name not in entered:
                    wrong.append(f"{t['name']}: {p.name}'s join was answered 200 but is not an entry")
            else:
                refused += 1
                if r.status_code != 409 or r.json().get("code") != "closed":
                    wrong.append(f"{t['name']}: {p.name}'s join was answered {r.status_code} {r.text}")
                if p.name in entered:
                    wrong.append(f"{t['name']}: {p.name}'s join was refused, yet is an entry")
        wrong += consistent(t, 1)
    assert not wrong, "\n".join(wrong)
    assert refused < TRIALS * len(joiners)  # some joins did race the start


def test_withdrawals_racing_the_start_leave_the_player_out_or_come_after_the_pairing(servers: tuple[str, str]) -> None:
    a, b = servers
    host, *others = players(a, b, "leavehost", 33)
    wrong: list[str] = []
    for trial in range(TRIALS):
        tid = swiss(host, trial, 1)
        for p in (host, *others):
            assert p.post(f"/api/tournaments/{tid}/join").status_code == 200
        leaving = others[-16:]
        starter = host if trial % 2 == 0 else host.elsewhere(b)
        withdrawals: list[Call] = [(p, "POST", f"/api/tournaments/{tid}/withdraw") for p in leaving]
        answers = at_once([(starter, "POST", f"/api/tournaments/{tid}/start"), *withdrawals], spread=0.3, look=tid)
        assert answers[0].status_code == 200, answers[0].text
        t = settled(host, tid, 1)
        on_boards = seated(t, 1)
        for p, r in zip(leaving, answers[1:], strict=True):
            if r.status_code != 200:
                wrong.append(f"{t['name']}: {p.name}'s withdrawal was answered {r.status_code} {r.text}")
                continue
            # Round 1 still unpaired once the withdrawal was answered: the withdrawal came
            # first, so the player must not be on a board (after it, the round's game goes on).
            if ROUND_AFTER[id(r)] == 0 and p.name in on_boards:
                wrong.append(f"{t['name']}: {p.name} withdrew before round 1 was paired, yet is paired")
        wrong += consistent(t, 1)
    assert not wrong, "\n".join(wrong)


def test_bots_entered_or_taken_out_racing_the_start(servers: tuple[str, str]) -> None:
    a, b = servers
    host, guest = players(a, b, "bothost", 2)
    wrong: list[str] = []
    for trial in range(TRIALS):
        # Days per turn: no clock runs out meanwhile; games between two bots are played out
        # quickly by the four fastest levels.
        tid = swiss(host, trial, 1, mode="turn", days=3)
        for p in (host, guest):
            assert p.post(f"/api/tournaments/{tid}/join").status_code == 200
        added, removed = ("greedy", "veteran"), ("random", "recruit")
        for level in removed:
            assert host.post(f"/api/tournaments/{tid}/bots", {"level": level}).status_code == 200
        there = host.elsewhere(b)
        calls: list[Any] = [(host if trial % 2 == 0 else there, "POST", f"/api/tournaments/{tid}/start")]
        calls += [
            (there if i % 2 else host, "POST", f"/api/tournaments/{tid}/bots", {"level": x})
            for i, x in enumerate(added)
        ]
        calls += [
            (host if i % 2 else there, "DELETE", f"/api/tournaments/{tid}/bots/{x}") for i, x in enumerate(removed)
        ]
        answers = at_once(calls, look=tid)
        assert answers[0].status_code == 200, answers[0].text
        t = settled(host, tid, 1)
        names = {e["name"]: e for e in t["entries"]}
        bots = {e["bot"]: e for e in t["entries"] if e["bot"]}
        on_boards = seated(t, 1)
        for level, r in zip(added, answers[1 : 1 + len(added)], strict=True):
            if r.status_code == 200:
                if level not in bots:
                    wrong.append(f"{t['name']}: bot {level} was entered (200) but is not an entry")
            else:
                if r.status_code != 409 or r.json().get("code") != "closed":
                    wrong.append(f"{t['name']}: bot {level} was answered {r.status_code} {r.text}")
                if level in bots:
                    wrong.append(f"{t['name']}: bot {level} was refused, yet is an entry")
        for level, r in zip(removed, answers[1 + len(added) :], strict=True):
            if r.status_code != 200:
                wrong.append(f"{t['name']}: bot {level}'s withdrawal was answered {r.status_code} {r.text}")
                continue
            if ROUND_AFTER[id(r)] == 0 and level in bots and bots[level]["name"] in on_boards:
                wrong.append(f"{t['name']}: bot {level} was taken out before round 1 was paired, yet is paired")
        wrong += consistent(t, 1)
        assert names  # the page lists its entrants
    assert not wrong, "\n".join(wrong)


def test_withdrawals_racing_the_pairing_of_a_round(servers: tuple[str, str]) -> None:
    a, b = servers
    people = players(a, b, "player", 24)
    host = people[0]
    by_name = {p.name: p for p in people}
    wrong: list[str] = []
    for trial in range(TRIALS):
        tid = swiss(host, trial, 2)
        for p in people:
            assert p.post(f"/api/tournaments/{tid}/join").status_code == 200
        r = host.post(f"/api/tournaments/{tid}/start")
        assert r.status_code == 200, r.text
        boards = next(x["boards"] for x in r.json()["rounds_played"] if x["round"] == 1)
        *early, last = boards
        for board in early:
            assert by_name[board["black"]].post(f"/api/games/{board['game']}/resign").status_code == 200
        # The last game of round 1 ends (round 2 is paired right after) while players withdraw,
        # each after a random delay of up to 300 ms (pairing 12 boards takes a while).
        leaving = [p for p in people if p.name not in (last["white"], last["black"])][:16]
        ending: Call = (by_name[last["black"]], "POST", f"/api/games/{last['game']}/resign")
        answers = at_once(
            [ending, *((p, "POST", f"/api/tournaments/{tid}/withdraw") for p in leaving)], spread=0.3, look=tid
        )
        assert answers[0].status_code == 200, answers[0].text
        t = settled(host, tid, 2)
        on_boards = seated(t, 2)
        for p, r in zip(leaving, answers[1:], strict=True):
            if r.status_code != 200:
                wrong.append(f"{t['name']}: {p.name}'s withdrawal was answered {r.status_code} {r.text}")
                continue
            if ROUND_AFTER[id(r)] == 1 and p.name in on_boards:
                wrong.append(f"{t['name']}: {p.name} withdrew before round 2 was paired, yet is paired")
        wrong += consistent(t, 2)
    assert not wrong, "\n".join(wrong)


def test_withdrawals_racing_an_arena_wave(servers: tuple[str, str]) -> None:
    a, b = servers
    people = players(a, b, "arena", 24)
    host = people[0]
    by_name = {p.name: p for p in people}
    wrong: list[str] = []
    for trial in range(2 * TRIALS):  # the window is narrower: more races
        r = host.post("/api/tournaments", {"name": f"Arena {trial}", "kind": "arena", "minutes": 30})
        assert r.status_code == 201, r.text
        tid = r.json()["tournament"]
        for p in people:
            assert p.post(f"/api/tournaments/{tid}/join").status_code == 200
        r = host.post(f"/api/tournaments/{tid}/start")
        assert r.status_code == 200, r.text
        boards = next(x["boards"] for x in r.json()["rounds_played"] if x["round"] == 1)
        # Six games end (each makes a wave of pairings) while eight of their twelve players
        # withdraw; the other four are paired at the latest when the last game ends.
        ending = boards[:6]
        leaving = [*(by_name[board["black"]] for board in ending[:2]), *(by_name[board["white"]] for board in ending)]
        calls: list[Call] = [
            (by_name[board["black"]], "POST", f"/api/games/{board['game']}/resign") for board in ending
        ]
        calls += [(p, "POST", f"/api/tournaments/{tid}/withdraw") for p in leaving]
        answers = at_once(calls, spread=0.2, look=tid)
        assert [r.status_code for r in answers[:6]] == [200] * 6, [r.text for r in answers[:6]]
        t = settled(host, tid, 2)
        time.sleep(1.0)  # the other games' waves, if they make any, have been made
        t = host.http.get(f"/api/tournaments/{tid}").json()
        entries = {e["name"] for e in t["entries"]}
        for p, r in zip(leaving, answers[6:], strict=True):
            if r.status_code != 200:
                wrong.append(f"{t['name']}: {p.name}'s withdrawal was answered {r.status_code} {r.text}")
                continue
            # Wave k still the latest once the withdrawal was answered: the player is on no
            # board of a later wave.
            answered = ROUND_AFTER[id(r)]
            later = [
                x["round"] for x in t["rounds_played"] if x["round"] > answered and p.name in seated(t, x["round"])
            ]
            if later:
                wrong.append(f"{t['name']}: {p.name} withdrew at wave {answered}, yet is paired in wave {later[0]}")
        for x in t["rounds_played"]:
            wrong += [
                f"{t['name']}: {n} is on a board of wave {x['round']} with no entry"
                for n in seated(t, x["round"])
                if n not in entries
            ]
    assert not wrong, "\n".join(wrong)

"""The ``slow`` mark, put on at collection so that ``pytest -m "not slow"`` is a fast loop
(README, "The test command"): the rules, notation, bots and web API tests run in a few minutes on
two cores, the rules tests alone in about a second; ``scripts/test`` still runs everything.

A test is slow when it, a fixture it uses, or a function of the test files that these call:

- drives Chromium (the ``browser`` fixture) or starts a real server (``tests/web/server.py``);
- starts any other process (``subprocess``: the CLI as a process, fresh interpreters, tsc, a wheel);
- is a Hypothesis property run;
- or is one of the few others that take seconds each, listed below with what they took.
"""

from __future__ import annotations

import inspect
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

TESTS = Path(__file__).resolve().parent
SLOW_FIXTURES = frozenset({"browser"})
SLOW_NAMES = frozenset({"running_server", "running_servers", "server_process", "subprocess"})

# Seconds measured with `pytest -n 0 --durations` on two busy cores (5 s or more), for tests that
# reach none of the above. A test renamed here is no longer marked: keep the names in step.
SLOW_TESTS = {
    "tests/test_search_bot.py::test_the_top_level_beats_random_in_every_game": 114,
    "tests/test_tui.py::test_human_always_choosing_action_1_plays_a_whole_game_that_replays": 11,
    "tests/test_rl.py::test_openspiels_ismcts_plays_a_game": 5,
    "tests/test_greedy_bot.py::test_greedy_beats_random_in_a_clear_majority": 5,
}
# Whole games played at random, checked after every action (property runs without Hypothesis).
SLOW_NAME_PARTS = ("random_games",)


def _code_objects(code: types.CodeType) -> Iterator[types.CodeType]:
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _code_objects(const)


def _reaches(fn: Callable[..., Any], seen: set[Any]) -> bool:
    """Whether ``fn``, or a function of the test files it names, names something slow."""
    fn = inspect.unwrap(fn)
    code = getattr(fn, "__code__", None)
    if code is None or fn in seen:
        return False
    seen.add(fn)
    found = getattr(fn, "__globals__", {})
    for co in _code_objects(code):
        for name in co.co_names:
            if name in SLOW_NAMES:
                return True
            target = found.get(name)
            if (
                inspect.isfunction(target)
                and TESTS in Path(target.__code__.co_filename).parents
                and _reaches(target, seen)
            ):
                return True
    return False


def is_slow(item: pytest.Item) -> bool:
    if not isinstance(item, pytest.Function):
        return False
    if SLOW_FIXTURES & set(item.fixturenames):
        return True
    if getattr(item.obj, "is_hypothesis_test", False):
        return True
    nodeid = item.nodeid.split("[")[0]
    if nodeid in SLOW_TESTS or any(part in item.originalname for part in SLOW_NAME_PARTS):
        return True
    seen: set[Any] = set()
    functions = [item.obj]
    for name in item.fixturenames:
        for fixturedef in item._fixtureinfo.name2fixturedefs.get(name, ()):
            functions.append(fixturedef.func)
    return any(_reaches(fn, seen) for fn in functions)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if is_slow(item):
            item.add_marker(pytest.mark.slow)

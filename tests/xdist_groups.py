"""How `pytest -n N` hands the tests to its workers (scripts/test loads this plugin with
``-p tests.xdist_groups``; docs/web.md, Tests).

pytest-xdist's default (``--dist load``) deals the tests out in collection order, in runs of
many tests early on and of a few at the end, and a worker keeps what it was dealt. So a module
whose tests share a module-scoped server, Chromium or prepared site was set up again on each
worker that got some of its tests, and a run of long tests dealt late (the browser tests, the
two-process races) left one worker busy alone at the end.

Here each module in ``GROUPED`` is one unit that a single worker runs whole (its module fixtures
are set up once), the units with the most tests are handed out first, and every other test is a
unit of its own, dealt one after the other as the workers free up: the long modules start first
and the run ends on short tests. It takes effect with ``-n`` and the default ``--dist load``; an
explicit other ``--dist`` is left to pytest-xdist.
"""

from __future__ import annotations

import re

import pytest
from xdist.remote import Producer
from xdist.scheduler import LoadScopeScheduling

# The modules run whole by one worker: module-scoped servers, browsers or wheels, or long tests
# on real server processes. Paths from the repository root, as in the tests' ids.
GROUPED = re.compile(
    r"tests/("
    r"test_packaging"  # builds and installs two wheels, once each for the module
    r"|web/test_browser[a-z_]*"  # a server (or a prepared site) and Chromium per module
    r"|web/test_tournament_races|web/test_two_processes|web/test_scale"  # server processes
    r"|web/test_search_workers"  # two server processes and the search workers
    r"|web/test_response_models|web/test_openapi|web/test_proxy|web/test_csp|web/test_guide"
    r"|web/test_puzzle_pages|web/test_lessons_api|web/test_chat"  # one app for the module
    r")\.py"
)


class GroupedScheduling(LoadScopeScheduling):
    """``--dist loadscope`` with a scope per grouped module and a scope per test elsewhere (the
    scopes with the most tests first: pytest-xdist's ``--loadscope-reorder``, on by default)."""

    def __init__(self, config: pytest.Config, log: Producer | None = None) -> None:
        super().__init__(config, log)
        if log is not None:
            self.log = log.groupedsched

    def _split_scope(self, nodeid: str) -> str:
        path = nodeid.split("::", 1)[0]
        return path if GROUPED.fullmatch(path) else nodeid


@pytest.hookimpl(optionalhook=True)  # a run without pytest-xdist (-p no:xdist) has no such hook
def pytest_xdist_make_scheduler(config: pytest.Config, log: Producer) -> LoadScopeScheduling | None:
    if config.getvalue("dist") == "load":
        return GroupedScheduling(config, log)
    return None

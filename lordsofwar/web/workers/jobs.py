"""What a search job is on Redis: its streams, the functions a worker may run, and the keys.

Every key starts with the installation's prefix (``LOW_REDIS_PREFIX``, Settings.redis_namespace):

- ``<prefix>:search:turn``, ``<prefix>:search:hint``, ``<prefix>:search:analysis``: one stream per
  kind of job, read by the consumer group ``workers`` in that order, so that a bot's turn is
  taken before a hint and a hint before an analysis decision, on every worker;
- ``<prefix>:search:reply:<server>``: each server process's reply stream;
- ``<prefix>:search:done:<job>``: set once by the worker that answers a job (a second worker that
  finishes the same job after a takeover sends nothing);
- ``<prefix>:search:workers``: the workers' last heartbeats (a sorted set of worker names), and
  ``<prefix>:search:worker:<name>``: a worker's heartbeat hash.

A job carries only the arguments of its function: a player's view (``notation.view_json``: no
hidden card, no deck order), the cards that player knows, the player's own deck list and a job
seed derived from the server key, never the real position or the deal's seed.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from lordsofwar.web.games.botpool import ANALYSIS, HINT, TURN, choose_job, hint_job, judge_job
from lordsofwar.web.mistakes.judging import scores_job

GROUP = "workers"
"""The consumer group every worker reads the job streams with."""

KINDS: dict[int, str] = {TURN: "turn", HINT: "hint", ANALYSIS: "analysis"}
"""The job streams by priority, most urgent first: a worker reads them in this order."""

FUNCTIONS: dict[str, Callable[..., Any]] = {
    "choose": choose_job,
    "hint": hint_job,
    "judge": judge_job,
    "scores": scores_job,
}
"""The only functions a job may name (a job names one of these, never a module to import)."""

NAMES: dict[Callable[..., Any], str] = {fn: name for name, fn in FUNCTIONS.items()}

EXPIRES_S: dict[str, float] = {"turn": 120.0, "hint": 30.0, "analysis": 600.0}
"""How long a server waits for a job of each kind; a worker skips a job older than this (its
server gave up on it: a bot's turn is then sent again, a hint asked again)."""

STREAM_MAXLEN = 100_000
"""Jobs a stream keeps at most (approximately): far above any real queue."""

def stream(prefix: str, kind: str) -> str:
    return f"{prefix}:search:{kind}"


def streams(prefix: str) -> list[str]:
    """The job streams in the order a worker reads them."""
    return [stream(prefix, kind) for kind in KINDS.values()]


def reply_stream(prefix: str, server: str) -> str:
    return f"{prefix}:search:reply:{server}"


def done_key(prefix: str, job: str) -> str:
    return f"{prefix}:search:done:{job}"


def workers_key(prefix: str) -> str:
    return f"{prefix}:search:workers"


def worker_key(prefix: str, name: str) -> str:
    return f"{prefix}:search:worker:{name}"


def encode(doc: dict[str, Any]) -> str:
    return json.dumps(doc, separators=(",", ":"))


FINISH = """
-- KEYS: the done mark, the reply stream, the job stream. ARGV: the job id, the entry id, the
-- group, the reply (JSON), the done mark's TTL, the reply stream's TTL.
if redis.call('SET', KEYS[1], '1', 'NX', 'EX', tonumber(ARGV[5])) then
  redis.call('XADD', KEYS[2], 'MAXLEN', '~', '10000', '*', 'job', ARGV[1], 'reply', ARGV[4])
  redis.call('EXPIRE', KEYS[2], tonumber(ARGV[6]))
  redis.call('XACK', KEYS[3], ARGV[3], ARGV[2])
  redis.call('XDEL', KEYS[3], ARGV[2])
  return 1
end
redis.call('XACK', KEYS[3], ARGV[3], ARGV[2])
redis.call('XDEL', KEYS[3], ARGV[2])
return 0
"""
"""A worker's answer, in one step: the first answer of a job is sent and marks it done; a later
one (a job taken over from a worker thought dead that still finished) is only acknowledged."""

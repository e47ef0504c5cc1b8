"""The bots' measured strength, as the lobby shows it: ``ladder.json`` beside this module is
written by ``python bench/bots.py --write lordsofwar/bots/ladder.json`` (a round-robin of every
level; docs/bots.md). Nothing here is estimated: a level missing from the file shows no rating."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from lordsofwar.bots import BOT_LEVELS

LADDER = Path(__file__).with_name("ladder.json")


@functools.cache
def load() -> dict[str, Any]:
    """The stored benchmark (empty when the file is missing or unreadable)."""
    try:
        doc = json.loads(LADDER.read_text())
    except (OSError, ValueError):
        return {}
    return doc if isinstance(doc, dict) else {}


def ratings() -> dict[str, int]:
    """Each measured level's rating (greedy fixed at 1000)."""
    return {row["name"]: int(row["rating"]) for row in load().get("levels", []) if "name" in row and "rating" in row}


def blurbs() -> dict[str, str]:
    """What each bot does, in a few words (English, :attr:`BotLevel.blurb`; translated where shown)."""
    return {level.name: level.blurb for level in BOT_LEVELS}

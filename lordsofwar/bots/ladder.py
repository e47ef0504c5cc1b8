"""The bots' measured strength, as the lobby shows it: ``ladder.json`` beside this module is
written by ``python bench/bots.py --write lordsofwar/bots/ladder.json`` (a round-robin of every
level; docs/bots.md). Nothing here is estimated: a level missing from the file shows no rating."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from lordsofwar.rules.i18n import N_

LADDER = Path(__file__).with_name("ladder.json")

BLURBS = {
    "random": N_("plays random legal actions"),
    "recruit": N_("a beginner: a small search, a turn ahead"),
    "greedy": N_("takes the most value each turn"),
    "veteran": N_("searches hundreds of lines"),
    "elite": N_("searches thousands of lines"),
    "general": N_("the strongest: 40,000 lines a decision"),
}
"""What each bot does, in a few words (English; marked for the catalogues, translated where shown)."""


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
    return dict(BLURBS)

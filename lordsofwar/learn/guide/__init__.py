"""The rules guide ("How to play", /learn/rules): the rules of Lords of War in the site's own words,
in English, German and Polish, each rule shown on small mats (docs/learn.md, "How to play").

The content is data in this folder:

- ``sections.json``: the sections in reading order (a first game, the intermediate rules, the
  variants, deck building), each with its stable anchor (``id``) and the diagrams it shows;
- ``diagrams.json``: each diagram's position, written compactly (:func:`position`), the squares it
  marks and the action it illustrates, with what the engine must say about that action: legal or
  not, the refusal's kind, the units it eliminates, the events it causes
  (``tests/test_guide_diagrams.py`` checks every claim against the engine);
- ``en.json``, ``de.json``, ``pl.json``: the texts, by section and diagram id; a text may hold
  placeholders (``{deck_size}``, ``{rank_counts}``...) that are filled from the rules' own facts
  (:func:`facts`), so no number of the rules is written twice.

``REFUSAL_SECTIONS`` links every kind of refusal of the engine (``rules.errors.REFUSALS``) to the
section that explains it; the game page shows that link with a refused action.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from typing import Any

from lordsofwar import i18n
from lordsofwar.rules import mat, notation
from lordsofwar.rules.cards import CORE, DECK_SIZE, RANK_COUNTS, RANKS
from lordsofwar.rules.errors import IllegalActionError, Refusal
from lordsofwar.rules.events import Event
from lordsofwar.rules.position import HAND_LIMIT, LENGTHS, Variant
from lordsofwar.rules.state import Position

LANGUAGES = ("en", "de", "pl")
"""The languages the guide is written in; any other locale reads the English."""

PATH = "/learn/rules"
"""Where the guide is served."""

REFUSAL_SECTIONS: dict[Refusal, str] = {
    "game-over": "winning",
    "abort-late": "winning",
    "advance-pending": "berserkers",
    "advance-square": "berserkers",
    "advance-order": "berserkers",
    "advance-none": "berserkers",
    "no-unit": "turn",
    "not-yours": "turn",
    "not-in-hand": "deployment",
    "deploy-first": "turn",
    "deploy-done": "turn",
    "deploy-impossible": "forced-deployment",
    "deploy-occupied": "deployment",
    "deploy-opening": "opening",
    "deploy-forced": "forced-deployment",
    "deploy-free": "free-deployment",
    "deploy-support": "support-units",
    "deploy-engagement": "deployment",
    "shoot-no-weapon": "ranged-attacks",
    "shoot-opening": "opening",
    "shoot-twice": "ranged-attacks",
    "shoot-engaged-at-start": "ranged-attacks",
    "shoot-took-part": "ranged-attacks",
    "shoot-unsupported": "ranged-attacks",
    "shoot-engaged": "ranged-attacks",
    "shoot-out-of-grid": "ranged-attacks",
    "shoot-empty": "ranged-attacks",
    "shoot-friendly": "ranged-attacks",
    "move-no-arrows": "moving-units",
    "move-twice": "moving-units",
    "move-engaged": "moving-units",
    "move-direction": "moving-units",
    "move-occupied": "moving-units",
    "move-off-mat": "moving-units",
    "hand-full": "reinforcement",
    "deck-empty": "reinforcement",
    "recall-deployed": "reinforcement",
    "recall-cavalry-spear": "cavalry",
    "recall-took-part": "reinforcement",
    "recall-engaged": "reinforcement",
    "pass": "reinforcement",
}
"""The section of the guide that explains each kind of refusal."""


def rule_link(kind: Refusal | None) -> str | None:
    """The guide's address (path and anchor) that explains a refusal of this kind."""
    return None if kind is None else f"{PATH}#{REFUSAL_SECTIONS[kind]}"


def _read(name: str) -> Any:
    return json.loads(resources.files(__package__).joinpath(name).read_text(encoding="utf-8"))


@dataclass(frozen=True)
class Section:
    id: str
    """The stable anchor (``/learn/rules#deployment``)."""
    part: str
    """The part of the guide it belongs to: ``first-game``, ``intermediate``, ``variants``, ``decks``."""
    diagrams: tuple[str, ...]


@functools.cache
def structure() -> tuple[tuple[str, ...], tuple[Section, ...]]:
    """The parts and the sections in reading order."""
    doc = _read("sections.json")
    sections = tuple(Section(s["id"], s["part"], tuple(s["diagrams"])) for s in doc["sections"])
    return tuple(doc["parts"]), sections


def sections() -> tuple[Section, ...]:
    return structure()[1]


@functools.cache
def diagrams() -> dict[str, dict[str, Any]]:
    """Every diagram's data as written in ``diagrams.json``."""
    data: dict[str, dict[str, Any]] = _read("diagrams.json")
    return data


@functools.cache
def texts(language: str) -> dict[str, Any]:
    """The texts of one language as written (placeholders unfilled)."""
    data: dict[str, Any] = _read(f"{language}.json")
    return data


def facts() -> dict[str, str]:
    """The values of the placeholders the texts may hold, in the current language's words."""
    v = Variant()
    short, long = LENGTHS["15/3"], LENGTHS["25/5"]
    return {
        "deck_size": str(DECK_SIZE),
        "rank_counts": ", ".join(f"{i18n.rank_name(r)} {RANK_COUNTS[r]}" for r in RANKS),
        "commands_in_deck": str(RANK_COUNTS["general"] + RANK_COUNTS["command"]),
        "hand_size": str(HAND_LIMIT),
        "dealt": str(HAND_LIMIT - RANK_COUNTS["general"]),
        "units_to_win": str(v.units_to_win),
        "commands_to_win": str(v.commands_to_win),
        "short_units": str(short[0]),
        "short_commands": str(short[1]),
        "long_units": str(long[0]),
        "long_commands": str(long[1]),
        "no_progress_turns": str(v.no_progress_turns),
        "opening_1": mat.name(mat.OPENING_SQUARE[1]),
        "opening_2": mat.name(mat.OPENING_SQUARE[2]),
        "columns": str(mat.WIDTH),
        "rows": str(mat.HEIGHT),
        "squares": str(mat.WIDTH * mat.HEIGHT),
    }


def _each(f: Callable[[str], str], value: Any) -> Any:
    """``value`` (texts in lists and objects) with ``f`` applied to every text."""
    if isinstance(value, str):
        return f(value)
    if isinstance(value, list):
        return [_each(f, v) for v in value]
    if isinstance(value, dict):
        return {k: _each(f, v) for k, v in value.items()}
    return value


def page(language: str) -> dict[str, Any]:
    """Everything the page shows, in ``language`` (English where the guide has no such
    language; in the test language, the English marked as catalogued text): the title, the parts and the sections in order, each with its title, its
    paragraphs (a string, or a list of strings: a list of points) and its diagrams' captions and
    text alternatives; and the diagrams' data for the script that draws them."""
    lang = language if language in LANGUAGES else "en"
    raw = texts(lang)
    if language == i18n.PSEUDO:  # the test language marks the guide's texts as the catalogues' (docs/i18n.md)
        raw, lang = _each(i18n.pseudo, raw), language
    values = facts()
    t = _each(lambda text: text.format_map(values), raw)
    parts, secs = structure()
    out_parts = []
    for part in parts:
        items = []
        for s in secs:
            if s.part != part:
                continue
            text = t["sections"][s.id]
            items.append(
                {
                    "id": s.id,
                    "title": text["title"],
                    "body": text["body"],
                    "diagrams": [{"id": d, **t["diagrams"][d]} for d in s.diagrams],
                }
            )
        out_parts.append({"id": part, "title": t["parts"][part], "sections": items})
    return {
        "language": lang,
        "title": t["title"],
        "intro": t["intro"],
        "parts": out_parts,
        "data": drawn(),
    }


# ---- diagrams ------------------------------------------------------------------------------------


def position(compact: dict[str, Any]) -> Position:
    """A diagram's position from its compact form: ``board`` as ``"square card owner"`` strings;
    ``hands`` by player (default: the first five cards of the player's army that no unit on the
    mat shows), ``decks`` as a count by player (default 10, taken from the army's cards after the
    hand), and any ``variant``, ``turn``, ``to_move``, ``lost``. Each player's army is that of
    their first unit or hand card."""
    board = []
    armies: dict[int, str] = {}
    for entry in compact.get("board", []):
        square, card, owner = entry.split()
        board.append({"square": square, "card": card, "owner": int(owner)})
        armies.setdefault(int(owner), card.split(":")[0])
    hands = {int(p): list(h) for p, h in compact.get("hands", {}).items()}
    for p, h in hands.items():
        if h:
            armies.setdefault(p, h[0].split(":")[0])
    armies.setdefault(1, "orcs")
    armies.setdefault(2, "dwarves" if armies[1] != "dwarves" else "orcs")
    on_board = {b["card"] for b in board}
    players: dict[str, Any] = {}
    for p in (1, 2):
        free = [c.id for c in CORE.army(armies[p]) if c.id not in on_board]
        hand = hands.get(p)
        if hand is None:
            hand = free[:5]
        rest = [c for c in free if c not in hand]
        count = int(compact.get("decks", {}).get(str(p), 10))
        players[str(p)] = {
            "army": armies[p],
            "hand": hand,
            "deck": rest[:count],
            "lost": list(compact.get("lost", {}).get(str(p), [])),
        }
    doc = {
        "format": "lordsofwar-position",
        "version": 1,
        "variant": compact.get("variant", {}),
        "turn": compact["turn"],
        "to_move": compact["to_move"],
        "board": board,
        "players": players,
        "result": None,
    }
    return notation.parse_position(doc)


@dataclass
class Played:
    """A diagram's position as shown (after its ``before`` actions) and what its action did."""

    shown: Position
    after: Position | None
    events: list[Event]
    refusal: Refusal | None


def play(d: dict[str, Any]) -> Played:
    """Set up a diagram and try its action (and the ``then`` actions after a legal one) on the
    rules engine."""
    pos = position(d["position"])
    for a in d.get("before", []):
        pos.push(a)
    shown = pos.copy()
    if "action" not in d:
        return Played(shown, None, [], None)
    after = pos.copy()
    try:
        events = after.push(d["action"])
    except IllegalActionError as exc:
        return Played(shown, None, [], exc.kind)
    for a in d.get("then", []):
        events += after.push(a)
    return Played(shown, after, events, None)


def _squares(action: str) -> list[str]:
    """The squares an action names (the first is where a deployment lands, or the acting unit)."""
    words = action.split()
    return [w for w in words[1:] if ":" not in w]


@functools.cache
def drawn() -> dict[str, dict[str, Any]]:
    """Each diagram as the page's script draws it: the view of the player who acts (``view``;
    nothing hidden from that player is in it), the marked squares, the action and its squares,
    whether it is legal, and for a legal one the view after it (``after``) with the units it
    eliminated (``ghosts``)."""
    out: dict[str, dict[str, Any]] = {}
    for key, d in diagrams().items():
        played = play(d)
        me = played.shown.decider
        item: dict[str, Any] = {
            "view": notation.view_json(played.shown, me),
            "you": me,
            "hinted": d.get("hinted", []),
            "targets": d.get("targets", []),
        }
        if "action" in d:
            action = d["action"]
            item["action"] = action
            item["squares"] = _squares(action)
            item["legal"] = played.after is not None
            parts = action.split()
            if parts[0] == "deploy":
                item["card"] = parts[1]
            if played.after is not None:
                item["after"] = notation.view_json(played.after, me)
                item["ghosts"] = [
                    {"square": e["square"], "card": e["card"], "owner": e["owner"]}
                    for e in played.events
                    if e["type"] == "eliminated"
                ]
        out[key] = item
    return out

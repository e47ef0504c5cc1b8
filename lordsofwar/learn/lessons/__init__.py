"""The lessons: exercises on the real engine, written as data (docs/learn.md, "Lessons").

A lesson is a few exercises. Each exercise is a position (notation section 3), the seat the learner
plays, a goal made of predicates from a small closed vocabulary (:data:`PREDICATES`) that the engine's
result must satisfy, an expected answer (the "show me" actions), the wrong tries a newcomer is
likely to make with their explanations, and the opponent's scripted replies where the exercise
needs any. The data lives in ``data/lessons.json``; the words the learner reads, in
``data/text.<language>.json`` (one file per language, the same keys and placeholders in each).
Both are read and checked once, at first use: a lesson whose position does not parse, whose goal
names an unknown predicate or whose text lacks a language is an error at start, not at play.

:func:`play` is the whole game logic of an exercise, stateless: the actions taken so far are
replayed from the exercise's position, the opponent's scripted replies are applied when it is their
turn, and the result says whether the goal is met, whether the try went wrong (and why), and what
the learner may do next. The learner sees only their own view (notation.view_json).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal

from lordsofwar.rules import engine, mat, notation
from lordsofwar.rules.actions import parse_action
from lordsofwar.rules.cards import CORE
from lordsofwar.rules.errors import IllegalActionError, LordsOfWarError
from lordsofwar.rules.events import Event
from lordsofwar.rules.state import Position

DATA = Path(__file__).parent / "data"
LANGUAGES = ("en", "de", "pl")
MAX_ACTIONS = 40
"""The most actions an exercise's play may carry (a turn of the lessons has at most a handful)."""

Status = Literal["playing", "done", "failed"]


class LessonDataError(ValueError):
    """The lesson data is malformed; the message names the lesson, the exercise and the field."""


class PlayError(ValueError):
    """A play the exercise refuses (an illegal or malformed action, an action after the end);
    ``index`` is the offending action's place in the list (None: the attempt)."""

    def __init__(self, message: str, index: int | None, malformed: bool = False):
        super().__init__(message)
        self.index = index
        self.malformed = malformed
        """the action does not parse (rather than being refused by the rules)"""


# --- the goal vocabulary ---------------------------------------------------------------------------


@dataclass
class Outcome:
    """What the learner's actions did: the start, the position now, and every event in order
    (the learner's and the scripted replies')."""

    start: Position
    pos: Position
    events: list[Event]
    own: list[Event]
    """the events of the learner's own actions (only the player to move shoots, 5.1)"""
    you: int
    turn_over: bool


def _eliminated(o: Outcome, owner: int) -> list[Event]:
    return [e for e in o.events if e["type"] == "eliminated" and e["owner"] == owner]


def _square(o: Outcome, square: str) -> str:
    return mat.name(mat.parse(square, o.pos.variant.bordered))


def _p_eliminated(o: Outcome, p: Mapping[str, Any]) -> bool:
    """Enemy units eliminated: at least ``count`` (1), or the one on ``square`` (at the start)."""
    gone = _eliminated(o, 3 - o.you)
    if "square" in p:
        return any(e["square"] == _square(o, p["square"]) for e in gone)  # type: ignore[typeddict-item]
    return len(gone) >= int(p.get("count", 1))


def _p_lost(o: Outcome, p: Mapping[str, Any]) -> bool:
    """At least ``count`` (1) of the learner's units eliminated."""
    return len(_eliminated(o, o.you)) >= int(p.get("count", 1))


def _p_command_eliminated(o: Outcome, p: Mapping[str, Any]) -> bool:
    """An enemy command unit eliminated (``rank``: "general" for the general alone)."""
    ranks = {p["rank"]} if "rank" in p else {"general", "command"}
    return any(o.start.cards.card(e["card"]).rank in ranks for e in _eliminated(o, 3 - o.you))  # type: ignore[typeddict-item]


def _mine(o: Outcome, kind: str) -> list[Event]:
    return [e for e in o.events if e["type"] == kind and e.get("player", e.get("owner")) == o.you]


def _p_deployed(o: Outcome, p: Mapping[str, Any]) -> bool:
    """The learner deployed (``card``, on ``square``, of ``class`` where given)."""
    for e in _mine(o, "deploy"):
        c = o.start.cards.card(e["card"])  # type: ignore[typeddict-item]
        if "card" in p and e["card"] != p["card"]:  # type: ignore[typeddict-item]
            continue
        if "square" in p and e["square"] != _square(o, p["square"]):  # type: ignore[typeddict-item]
            continue
        if "class" in p and c.cls != p["class"]:
            continue
        return True
    return False


def _p_shot(o: Outcome, p: Mapping[str, Any]) -> bool:
    """A shot of the learner's (at ``target``, from ``from`` where given)."""
    for e in o.own:
        if e["type"] != "shot":
            continue
        if "target" in p and e["target"] != _square(o, p["target"]):
            continue
        if "from" in p and e["from"] != _square(o, p["from"]):
            continue
        return True
    return False


def _p_advanced(o: Outcome, p: Mapping[str, Any]) -> bool:
    """A berserker of the learner's advanced (into ``to`` where given)."""
    return any(
        e["type"] == "advance" and e["owner"] == o.you and ("to" not in p or e["to"] == _square(o, p["to"]))
        for e in o.events
    )


def _p_recalled(o: Outcome, p: Mapping[str, Any]) -> bool:
    """The learner recalled a unit (the one on ``square``, or ``card``, where given)."""
    for e in _mine(o, "recall"):
        if "square" in p and e["square"] != _square(o, p["square"]):  # type: ignore[typeddict-item]
            continue
        if "card" in p and e["card"] != p["card"]:  # type: ignore[typeddict-item]
            continue
        return True
    return False


def _p_drew(o: Outcome, p: Mapping[str, Any]) -> bool:
    """The learner drew a card."""
    return bool(_mine(o, "draw"))


def _p_extra_turn(o: Outcome, p: Mapping[str, Any]) -> bool:
    """The learner won an extra turn (the enemy general fell, 7.4)."""
    return any(e["type"] == "extra_turn" and e["player"] == o.you for e in o.events)


def _p_turn_over(o: Outcome, p: Mapping[str, Any]) -> bool:
    """The learner's turn is over."""
    return o.turn_over


def _p_on(o: Outcome, p: Mapping[str, Any]) -> bool:
    """The learner has a unit on ``square`` (of ``card`` where given) now."""
    u = o.pos.board.get(mat.parse(p["square"]))
    return u is not None and u.owner == o.you and ("card" not in p or u.id == p["card"])


def _p_supported(o: Outcome, p: Mapping[str, Any]) -> bool:
    """The learner's unit on ``square`` has a friendly unit on an adjacent square."""
    sq = mat.parse(p["square"])
    u = o.pos.board.get(sq)
    if u is None or u.owner != o.you:
        return False
    return any(
        (n := o.pos.board.get(a)) is not None and n.owner == o.you
        for a, _ in mat.neighbours_back(sq, o.pos.variant.bordered)
    )


def _p_in_hand(o: Outcome, p: Mapping[str, Any]) -> bool:
    """``card`` is in the learner's hand now."""
    return p["card"] in o.pos.hands[o.you]


def _p_won(o: Outcome, p: Mapping[str, Any]) -> bool:
    """The game is over and the learner won it."""
    return o.pos.result is not None and o.pos.result.winner == o.you


def _p_pinned(o: Outcome, p: Mapping[str, Any]) -> bool:
    """The enemy unit on ``square`` is engaged by a spear (so a cavalry unit cannot be recalled, 7.3)."""
    sq = mat.parse(p["square"], o.pos.variant.bordered)
    u = o.pos.board.get(sq)
    return u is not None and u.owner != o.you and engine.engaged_by_spear(o.pos, sq)


def _p_not(o: Outcome, p: Mapping[str, Any]) -> bool:
    """The predicate ``of`` does not hold."""
    return not holds(o, p["of"])


PREDICATES: dict[str, tuple[Callable[[Outcome, Mapping[str, Any]], bool], frozenset[str], frozenset[str]]] = {
    # name: (test, required parameters, allowed parameters)
    "eliminated": (_p_eliminated, frozenset(), frozenset({"square", "count"})),
    "lost": (_p_lost, frozenset(), frozenset({"count"})),
    "command_eliminated": (_p_command_eliminated, frozenset(), frozenset({"rank"})),
    "deployed": (_p_deployed, frozenset(), frozenset({"card", "square", "class"})),
    "shot": (_p_shot, frozenset(), frozenset({"target", "from"})),
    "advanced": (_p_advanced, frozenset(), frozenset({"to"})),
    "recalled": (_p_recalled, frozenset(), frozenset({"square", "card"})),
    "drew": (_p_drew, frozenset(), frozenset()),
    "extra_turn": (_p_extra_turn, frozenset(), frozenset()),
    "turn_over": (_p_turn_over, frozenset(), frozenset()),
    "on": (_p_on, frozenset({"square"}), frozenset({"square", "card"})),
    "supported": (_p_supported, frozenset({"square"}), frozenset({"square"})),
    "in_hand": (_p_in_hand, frozenset({"card"}), frozenset({"card"})),
    "won": (_p_won, frozenset(), frozenset()),
    "pinned": (_p_pinned, frozenset({"square"}), frozenset({"square"})),
    "not": (_p_not, frozenset({"of"}), frozenset({"of"})),
}
"""The goal vocabulary: a predicate is ``{"is": name, ...parameters}`` over an :class:`Outcome`."""


def holds(o: Outcome, predicate: Mapping[str, Any]) -> bool:
    """Whether ``predicate`` (already validated) holds for ``o``."""
    test = PREDICATES[predicate["is"]][0]
    return test(o, predicate)


def _check_predicate(p: Any, where: str) -> dict[str, Any]:
    if not isinstance(p, dict) or not isinstance(p.get("is"), str):
        raise LessonDataError(f"{where}: a predicate is an object with a name in 'is'")
    name = p["is"]
    if name not in PREDICATES:
        raise LessonDataError(f"{where}: unknown predicate {name!r} (known: {', '.join(sorted(PREDICATES))})")
    _, required, allowed = PREDICATES[name]
    params = set(p) - {"is"}
    if not required <= params or not params <= allowed:
        raise LessonDataError(
            f"{where}: {name} takes {sorted(allowed)} (required {sorted(required)}), got {sorted(params)}"
        )
    for key in ("square", "to", "from", "target"):
        if key in p:
            try:
                mat.parse(p[key])
            except (LordsOfWarError, ValueError) as exc:
                raise LessonDataError(f"{where}.{key}: {exc}") from None
    for key in ("card",):
        if key in p and CORE.get(p[key]) is None:
            raise LessonDataError(f"{where}.card: unknown card {p[key]!r}")
    if name == "not":
        _check_predicate(p["of"], where + ".of")
    return dict(p)


# --- the data --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Wrong:
    """A likely wrong try: the action itself, an engine refusal kind, or a predicate of the outcome;
    ``text`` names its explanation in the texts."""

    text: str
    example: tuple[str, ...]
    """a line that makes this wrong try: the actions to play, the last one the try itself (for a
    refusal: the refused attempt); the tests play it, the docs show it"""
    action: str | None = None
    refusal: str | None = None
    when: dict[str, Any] | None = None


@dataclass(frozen=True)
class Exercise:
    id: str
    position: dict[str, Any]
    you: int
    goal: tuple[dict[str, Any], ...]
    by: Literal["deploy", "turn"]
    answer: tuple[str, ...]
    wrong: tuple[Wrong, ...]
    replies: tuple[str, ...]

    def start(self) -> Position:
        return notation.parse_position(self.position)


@dataclass(frozen=True)
class Lesson:
    slug: str
    exercises: tuple[Exercise, ...]

    def exercise(self, eid: str) -> Exercise | None:
        return next((e for e in self.exercises if e.id == eid), None)


_ID = "abcdefghijklmnopqrstuvwxyz0123456789-"


def _ident(value: Any, where: str) -> str:
    if not isinstance(value, str) or not 1 <= len(value) <= 40 or set(value) - set(_ID):
        raise LessonDataError(f"{where}: an id of 1-40 characters a-z, 0-9 and '-'")
    return value


def _exercise(doc: Any, where: str) -> Exercise:
    if not isinstance(doc, dict):
        raise LessonDataError(f"{where}: an object")
    allowed = {"id", "position", "you", "goal", "by", "answer", "wrong", "replies"}
    if set(doc) - allowed or not {"id", "position", "goal", "answer"} <= set(doc):
        raise LessonDataError(
            f"{where}: fields {sorted(allowed)} (id, position, goal, answer required), got {sorted(doc)}"
        )
    eid = _ident(doc["id"], where + ".id")
    where = f"{where}({eid})"
    try:
        notation.parse_position(doc["position"])
    except LordsOfWarError as exc:
        raise LessonDataError(f"{where}.position: {exc}") from None
    you = doc.get("you", 1)
    if you not in (1, 2):
        raise LessonDataError(f"{where}.you: 1 or 2")
    goal = doc["goal"]
    if not isinstance(goal, list) or not goal:
        raise LessonDataError(f"{where}.goal: a non-empty list of predicates")
    by = doc.get("by", "turn")
    if by not in ("deploy", "turn"):
        raise LessonDataError(f"{where}.by: 'deploy' or 'turn'")
    wrong = []
    for i, w in enumerate(doc.get("wrong", [])):
        wh = f"{where}.wrong[{i}]"
        if (
            not isinstance(w, dict)
            or set(w) - {"action", "refusal", "when", "text", "example"}
            or not {"text", "example"} <= set(w)
        ):
            raise LessonDataError(f"{wh}: an object with 'text', 'example' and one of 'action', 'refusal', 'when'")
        example = w["example"]
        if not isinstance(example, list) or not example or not all(isinstance(a, str) for a in example):
            raise LessonDataError(f"{wh}.example: a non-empty list of actions")
        keys = [k for k in ("action", "refusal", "when") if k in w]
        if len(keys) != 1:
            raise LessonDataError(f"{wh}: exactly one of 'action', 'refusal', 'when'")
        if "action" in w:
            try:
                parse_action(w["action"], cards=CORE)
            except LordsOfWarError as exc:
                raise LessonDataError(f"{wh}.action: {exc}") from None
        if "refusal" in w:
            from lordsofwar.rules.errors import REFUSALS

            if w["refusal"] not in REFUSALS:
                raise LessonDataError(f"{wh}.refusal: unknown refusal {w['refusal']!r}")
        wrong.append(
            Wrong(
                text=_ident(w["text"], wh + ".text"),
                example=tuple(example),
                action=w.get("action"),
                refusal=w.get("refusal"),
                when=_check_predicate(w["when"], wh + ".when") if "when" in w else None,
            )
        )
    for key in ("answer", "replies"):
        if not isinstance(doc.get(key, []), list) or not all(isinstance(a, str) for a in doc.get(key, [])):
            raise LessonDataError(f"{where}.{key}: a list of actions")
    if not doc["answer"]:
        raise LessonDataError(f"{where}.answer: at least one action")
    return Exercise(
        id=eid,
        position=doc["position"],
        you=you,
        goal=tuple(_check_predicate(p, f"{where}.goal[{i}]") for i, p in enumerate(goal)),
        by=by,
        answer=tuple(doc["answer"]),
        wrong=tuple(wrong),
        replies=tuple(doc.get("replies", [])),
    )


def parse_lessons(doc: Any) -> tuple[Lesson, ...]:
    """The lessons of ``data/lessons.json``'s document, checked."""
    if not isinstance(doc, dict) or set(doc) != {"lessons"} or not isinstance(doc["lessons"], list):
        raise LessonDataError("lessons.json: an object {'lessons': [...]}")
    out: list[Lesson] = []
    for i, ld in enumerate(doc["lessons"]):
        where = f"lessons[{i}]"
        if not isinstance(ld, dict) or set(ld) != {"slug", "exercises"} or not isinstance(ld["exercises"], list):
            raise LessonDataError(f"{where}: an object with 'slug' and 'exercises'")
        slug = _ident(ld["slug"], where + ".slug")
        exercises = tuple(_exercise(e, f"{slug}.exercises[{j}]") for j, e in enumerate(ld["exercises"]))
        if not exercises or len({e.id for e in exercises}) != len(exercises):
            raise LessonDataError(f"{slug}: at least one exercise, ids unique")
        out.append(Lesson(slug, exercises))
    if len({lesson.slug for lesson in out}) != len(out):
        raise LessonDataError("lessons.json: slugs unique")
    return tuple(out)


@cache
def lessons() -> tuple[Lesson, ...]:
    """Every lesson, in teaching order (read and checked once, its texts in every language too)."""
    out = parse_lessons(json.loads((DATA / "lessons.json").read_text(encoding="utf-8")))
    check_texts(out, {lang: texts(lang) for lang in LANGUAGES})
    return out


_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def check_texts(all_lessons: tuple[Lesson, ...], by_language: Mapping[str, Any]) -> None:
    """Every language has exactly the entries the lessons need, each a non-empty text with the
    same placeholders as the English one."""
    for lesson in all_lessons:
        for path, keys in text_keys(lesson).items():
            slug, _, eid = path.partition(".")
            for key in keys:
                found = {}
                for lang, doc in by_language.items():
                    try:
                        found[lang] = text_in(doc, slug, eid or None, key)
                    except (KeyError, TypeError, AssertionError):
                        raise LessonDataError(f"text.{lang}.json: {path}.{key} is missing") from None
                    if not found[lang].strip():
                        raise LessonDataError(f"text.{lang}.json: {path}.{key} is empty")
                marks = {lang: sorted(_PLACEHOLDER.findall(t)) for lang, t in found.items()}
                if len({tuple(m) for m in marks.values()}) > 1:
                    raise LessonDataError(f"{path}.{key}: the placeholders differ between languages: {marks}")
    for lang, doc in by_language.items():
        extra = set(doc) - {lesson.slug for lesson in all_lessons}
        if extra:
            raise LessonDataError(f"text.{lang}.json: texts of no lesson: {sorted(extra)}")


def by_slug(slug: str) -> Lesson | None:
    return next((lesson for lesson in lessons() if lesson.slug == slug), None)


def text_keys(lesson: Lesson) -> dict[str, set[str]]:
    """The text entries a lesson needs, as paths: title, intro, summary; per exercise prompt,
    success, fail and one per wrong try."""
    need: dict[str, set[str]] = {lesson.slug: {"title", "intro", "summary"}}
    for e in lesson.exercises:
        need[f"{lesson.slug}.{e.id}"] = {"prompt", "success", "fail"} | {f"wrong.{w.text}" for w in e.wrong}
    return need


@cache
def texts(language: str) -> dict[str, Any]:
    """The words of every lesson in ``language`` (English where the language is not one we have)."""
    lang = language if language in LANGUAGES else "en"
    doc: dict[str, Any] = json.loads((DATA / f"text.{lang}.json").read_text(encoding="utf-8"))
    return doc


def text(language: str, lesson: str, exercise: str | None, key: str) -> str:
    """One text entry: ``key`` of the lesson (exercise None) or of an exercise ("wrong.x" for a
    wrong try's explanation)."""
    return text_in(texts(language), lesson, exercise, key)


def text_in(doc: Any, lesson: str, exercise: str | None, key: str) -> str:
    doc = doc[lesson]
    if exercise is not None:
        doc = doc["exercises"][exercise]
    for part in key.split("."):
        doc = doc[part]
    assert isinstance(doc, str)
    return doc


# --- playing an exercise ---------------------------------------------------------------------------


@dataclass
class Played:
    """Where an exercise stands after the learner's actions."""

    pos: Position
    you: int
    status: Status
    message: str | None
    """the text key of what the learner reads now: "success", "fail", "wrong.x", or None"""
    refusal: str | None
    """the engine's refusal of an attempt (its own words) where no text of the lesson explains it"""
    events: list[Event]
    """the events of the last action and the replies after it"""
    replies: list[str]

    def view(self) -> dict[str, Any]:
        """The learner's view; the opponent's hand stays hidden even once the lesson's game is over."""
        doc = notation.view_json(self.pos, self.you)
        other = doc["players"][str(3 - self.you)]
        if self.pos.variant.hands == "hidden":
            other["hand"] = [None] * len(other["hand"])
        return doc

    def legal(self) -> list[str]:
        if self.status != "playing" or self.pos.result is not None or _decider(self.pos) != self.you:
            return []
        return sorted({str(a) for a in engine.legal_actions(self.pos)})


def _decider(pos: Position) -> int:
    decider: int = pos.decider
    return decider


def _reply(ex: Exercise, pos: Position, used: int, events: list[Event], replies: list[str]) -> int:
    """Apply the scripted replies while the opponent must act; returns how many were used. A
    choice the opponent must make inside the learner's turn (a berserker advance) that no script
    covers takes the first legal action in string order, so that the learner is never left waiting."""
    while pos.result is None and _decider(pos) != ex.you:
        if used < len(ex.replies):
            action = ex.replies[used]
            used += 1
        elif pos.to_move == ex.you and pos.phase == "advance":
            action = min(str(a) for a in engine.legal_actions(pos))
        else:
            break
        events.extend(engine.push(pos, action))
        replies.append(action)
    return used


def _judge(ex: Exercise, o: Outcome, last: str) -> tuple[Status, str | None]:
    for w in ex.wrong:
        if w.action is not None and _same_action(w.action, last, o.pos):
            return "failed", f"wrong.{w.text}"
    if all(holds(o, p) for p in ex.goal):
        return "done", "success"
    for w in ex.wrong:
        if w.when is not None and holds(o, w.when):
            return "failed", f"wrong.{w.text}"
    past_deploy = o.pos.phase == "post" or o.pos.to_move != o.you
    if o.turn_over or o.pos.result is not None or (ex.by == "deploy" and past_deploy):
        return "failed", "fail"
    return "playing", None


def _same_action(a: str, b: str, pos: Position) -> bool:
    try:
        return parse_action(a, pos) == parse_action(b, pos)
    except LordsOfWarError:
        return False


def play(ex: Exercise, actions: list[str], attempt: str | None = None) -> Played:
    """Replay ``actions`` (the learner's) from the exercise's position, with the scripted replies;
    then explain ``attempt``, an action the learner tried that the rules refuse. Raises
    :class:`PlayError` for an illegal or malformed action, or one after the exercise ended."""
    if len(actions) > MAX_ACTIONS:
        raise PlayError(f"at most {MAX_ACTIONS} actions", None)
    start = ex.start()
    pos = ex.start()
    events: list[Event] = []
    replies: list[str] = []
    all_events: list[Event] = []
    own: list[Event] = []
    used = _reply(ex, pos, 0, all_events, replies)
    status: Status = "playing"
    message: str | None = None
    for i, text in enumerate(actions):
        if status != "playing":
            raise PlayError(f"action {i + 1} ({text}): the exercise is over", i)
        try:
            action = parse_action(text, pos)
        except LordsOfWarError as exc:
            raise PlayError(f"action {i + 1}: {exc}", i, malformed=True) from None
        try:
            events = engine.push(pos, action)
        except LordsOfWarError as exc:
            raise PlayError(f"action {i + 1}: {exc}", i) from None
        replies = []
        own.extend(events)
        turn_over = any(e["type"] in ("draw", "recall", "pass") for e in events) or pos.result is not None
        used = _reply(ex, pos, used, events, replies)
        all_events.extend(events)
        o = Outcome(start, pos, all_events, own, ex.you, turn_over)
        status, message = _judge(ex, o, str(action))
    refusal: str | None = None
    if attempt is not None:
        if status != "playing":
            raise PlayError("the exercise is over", None)
        try:
            tried = parse_action(attempt, pos)
        except LordsOfWarError as exc:
            raise PlayError(str(exc), None, malformed=True) from None
        if engine.is_legal(pos, tried):
            raise PlayError(f"{attempt}: this action is legal; play it as an action", None)
        err: IllegalActionError = engine.refuse(pos, tried)
        match = next((w for w in ex.wrong if w.action is not None and _same_action(w.action, attempt, pos)), None)
        match = match or next((w for w in ex.wrong if w.refusal is not None and w.refusal == err.kind), None)
        if match is not None:
            message = f"wrong.{match.text}"
        else:
            refusal = str(err)
        events = []
    return Played(pos, ex.you, status, message, refusal, events, replies)

"""Differential play: ``lordsofwar.core.Game`` held to the rules engine, action by action.

:func:`compare_game` plays a whole game from a position with uniformly random legal actions of
the reference engine (:mod:`lordsofwar.rules`) and applies each one to an implementation of the
docs/core.md API too. After every action it compares the legal lists, the events, the position
document and the game's state; every few actions it also checks the integer actions, the refusal
of illegal and unreadable actions, and that a clone is independent. The first difference raises
:class:`Disagreement`, an ``AssertionError`` whose message holds everything needed to replay the
game: the starting position, the actions played, the card set and the difference.

``impl`` is anything with a ``Game`` attribute of the docs/core.md API: ``lordsofwar.core``
(native when built), ``lordsofwar.core._python``, or an adapter.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any, NoReturn, TypeVar

from lordsofwar.core import encoding
from lordsofwar.core.encoding import FrameError
from lordsofwar.rules import mat, notation
from lordsofwar.rules.actions import parse_action
from lordsofwar.rules.cards import CORE_ARMIES, CardSet
from lordsofwar.rules.errors import IllegalActionError, InvalidActionError
from lordsofwar.rules.state import Event, Position

T = TypeVar("T")

CHECK_EVERY = 6
"""The integer actions, refusals and clones are checked at every ``CHECK_EVERY``-th decision
point (and at the first)."""

MAX_ACTIONS = 100_000
"""A game still running after this many actions is itself a failure (no game is that long)."""


def compact(doc: Any) -> str:
    """JSON text without spaces, as the reproduction reports print positions."""
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=False)


def _short(value: Any, limit: int = 400) -> str:
    text = compact(value) if not isinstance(value, str) else value
    return text if len(text) <= limit else text[: limit - 3] + "..."


def cards_label(cards: CardSet) -> str:
    """``core``, or ``core + raiders`` for a card set with packs: how a report names it."""
    extra = [a for a in cards.armies if a not in CORE_ARMIES]
    return "core" if not extra else "core + " + ", ".join(extra)


def doc_difference(want: dict[str, Any], got: dict[str, Any], labels: tuple[str, str] = ("python", "core")) -> str:
    """The fields in which two position documents differ: top-level fields, the players' fields
    and the ``turn_state`` fields, each with both values (named by ``labels``)."""
    py, other = labels
    lines: list[str] = []
    for key in sorted(set(want) | set(got)):
        a, b = want.get(key, "<missing>"), got.get(key, "<missing>")
        if a == b:
            continue
        if isinstance(a, dict) and isinstance(b, dict) and key in ("players", "turn_state", "variant"):
            for sub in sorted(set(a) | set(b), key=str):
                sa, sb = a.get(sub, "<missing>"), b.get(sub, "<missing>")
                if sa == sb:
                    continue
                if key == "players" and isinstance(sa, dict) and isinstance(sb, dict):
                    for f in sorted(set(sa) | set(sb)):
                        fa, fb = sa.get(f, "<missing>"), sb.get(f, "<missing>")
                        if fa != fb:
                            lines.append(f"players.{sub}.{f}: {py} {_short(fa)} / {other} {_short(fb)}")
                else:
                    lines.append(f"{key}.{sub}: {py} {_short(sa)} / {other} {_short(sb)}")
        else:
            lines.append(f"{key}: {py} {_short(a)} / {other} {_short(b)}")
    if not lines:  # equal values of different JSON types (1 and true)
        found = _typed_difference(want, got, "")
        if found is None:
            return "the documents are equal"
        path, a, b = found
        return f"equal values of different types at {path or 'the top'}: {py} {a!r} / {other} {b!r}"
    fields = sorted({line.split(":", 1)[0].split(".", 1)[0] for line in lines})
    return "fields " + ", ".join(fields) + " differ:\n    " + "\n    ".join(lines)


def _typed_difference(a: Any, b: Any, path: str) -> tuple[str, Any, Any] | None:
    """The first place where ``a`` and ``b`` differ in value or JSON type: its path and both values."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b), key=str):
            found = _typed_difference(a.get(key), b.get(key), f"{path}.{key}" if path else str(key))
            if found is not None:
                return found
        return None
    if isinstance(a, list | tuple) and isinstance(b, list | tuple) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            found = _typed_difference(x, y, f"{path}[{i}]")
            if found is not None:
                return found
        return None
    return None if a == b and type(a) is type(b) else (path, a, b)


class Disagreement(AssertionError):
    """The implementation and the rules engine disagree; ``str()`` is the reproduction report."""

    def __init__(
        self,
        start: str,
        actions: Sequence[str],
        difference: str,
        cards: CardSet,
        context: str = "",
        headline: str = "lordsofwar.core disagrees with the rules engine",
    ):
        self.headline = headline
        self.start = start
        """The starting position as compact JSON text."""
        self.actions = list(actions)
        """The actions applied to both before the difference, in order."""
        self.difference = difference
        self.cards_label = cards_label(cards)
        self.context = context
        """Where the game came from (a world seed), when the caller said."""
        super().__init__(self.report())

    def report(self) -> str:
        """Everything needed to replay the disagreement, on a few lines."""
        where = f" ({self.context})" if self.context else ""
        cards = "CORE" if self.cards_label == "core" else "core_worlds.RAIDERS"
        return "\n".join(
            [
                f"{self.headline} after {len(self.actions)} actions{where}",
                f"first difference: {self.difference}",
                f"card set: {self.cards_label}",
                f"start: {self.start}",
                f"actions: {compact(self.actions)}",
                f"replay (tests/ on sys.path): core_diff.replay(START, ACTIONS, {cards}, lordsofwar.core)",
            ]
        )


class Lockstep:
    """The rules engine and an implementation, started from the same position text and advanced
    together; every method compares and raises :class:`Disagreement` on the first difference."""

    def __init__(self, start: str, cards: CardSet, impl: Any, context: str = ""):
        self.start = start
        self.cards = cards
        self.context = context
        self.played: list[str] = []
        self.ref: Position = notation.parse_position(json.loads(start), cards)
        self.want: dict[str, Any] = notation.position_to_json(self.ref)
        self.game: Any = self.call("Game.from_json", lambda: impl.Game.from_json(start, cards))
        self.compare_state("on reading the start")

    def fail(self, difference: str) -> NoReturn:
        raise Disagreement(self.start, self.played, difference, self.cards, self.context)

    def call(self, what: str, fn: Callable[[], T]) -> T:
        """``fn()``, an exception from the implementation being a disagreement."""
        try:
            return fn()
        except Exception as exc:  # noqa: BLE001 - any exception is the finding
            self.fail(f"{what} raised {type(exc).__name__}: {exc}")

    # --- every action ----------------------------------------------------------------------

    def compare_state(self, when: str) -> None:
        """The position document and the state properties."""
        got = self.call("to_json()", self.game.to_json)
        if got != self.want:
            self.fail(f"to_json() {when}: {doc_difference(self.want, got)}")
        ref, game = self.ref, self.game
        for name, want in (
            ("result", ref.result),
            ("to_move", ref.to_move),
            ("decider", ref.decider),
            ("turn", ref.turn),
            ("is_over", ref.is_over),
        ):
            value = self.call(name, lambda name=name: getattr(game, name))  # type: ignore[misc]
            if value != want or type(value) is not type(want) or _types(value) != _types(want):
                self.fail(f"{name} {when}: python {want!r} / core {value!r}")

    def compare_legal(self) -> list[str]:
        """The sorted legal actions (and then the phase, which listing may settle)."""
        want = sorted(str(a) for a in self.ref.legal_actions())
        got = sorted(self.call("legal()", self.game.legal))
        if got != want:
            missing = sorted(set(want) - set(got))
            extra = sorted(set(got) - set(want))
            self.fail(
                f"legal(): {len(want)} legal actions in python, {len(got)} in core; "
                f"only in python: {_short(missing)}; only in core: {_short(extra)}"
            )
        phase = self.call("phase", lambda: self.game.phase)
        if phase != self.ref.phase:
            self.fail(f"phase: python {self.ref.phase!r} / core {phase!r}")
        return want

    def step(self, text: str) -> list[Event]:
        """Apply ``text`` to both, then compare the events and the state."""
        want_events = self.ref.push(parse_action(text, self.ref))
        got_events = self.call(f"apply({text!r})", lambda: self.game.apply(text))
        self.played.append(text)
        self.want = notation.position_to_json(self.ref)
        if got_events != want_events:
            self.fail(f"events of {text!r}: python {_short(want_events, 1200)} / core {_short(got_events, 1200)}")
        self.compare_state(f"after {text!r}")
        return want_events

    # --- every few actions -----------------------------------------------------------------

    def check_exact_json(self) -> None:
        """The document as JSON text: same values of the same JSON types (``1`` is not ``true``)."""
        got = self.call("to_json()", self.game.to_json)
        if json.dumps(got, sort_keys=True) != json.dumps(self.want, sort_keys=True):
            self.fail(f"to_json() as JSON text: {doc_difference(self.want, got)}")

    def check_ids(self, legal: list[str]) -> list[int] | None:
        """``legal_ids()``: ascending, as the Python encoding numbers them, and each mapping back
        through ``action_text`` to the legal set. None when the actions fall outside the frame
        (both must say so)."""
        frame = getattr(self.game, "FRAME", encoding.FRAME)
        try:
            want: list[int] | None = encoding.legal_ids(self.ref, frame)
        except FrameError:
            want = None
        try:
            got: list[int] | None = self.game.legal_ids()
        except FrameError:
            got = None
        except Exception as exc:  # noqa: BLE001
            self.fail(f"legal_ids() raised {type(exc).__name__}: {exc}")
        if got is None or want is None:
            if got != want:
                said = "raised FrameError" if got is None else f"gave {len(got)} ids"
                self.fail(
                    f"legal_ids(): python encoding {'raised FrameError' if want is None else 'gave ids'}, core {said}"
                )
            return None
        got = list(got)
        size = self.call("num_actions", lambda: self.game.num_actions)
        if size != encoding.num_actions(self.ref, frame):
            self.fail(f"num_actions: python encoding {encoding.num_actions(self.ref, frame)} / core {size}")
        if got != want:
            self.fail(f"legal_ids(): python encoding {_short(want)} / core {_short(got)}")
        texts = sorted(self.call(f"action_text({i})", lambda i=i: self.game.action_text(i)) for i in got)  # type: ignore[misc]
        if texts != legal:
            self.fail(f"action_text of legal_ids(): {_short(texts)} / legal(): {_short(legal)}")
        return got

    def check_refusal(self, rng: random.Random, legal: list[str]) -> None:
        """An illegal action raises ``IllegalActionError``, an unreadable one
        ``InvalidActionError``; neither changes the game."""
        legal_set = set(legal)
        illegal = [t for t in illegal_candidates(self.ref, rng) if t not in legal_set]
        for text, error in ((rng.choice(illegal), IllegalActionError), ("charge d3", InvalidActionError)):
            try:
                self.game.apply(text)
            except error:
                pass
            except Exception as exc:  # noqa: BLE001
                self.fail(f"apply({text!r}) raised {type(exc).__name__} ({exc}), not {error.__name__}")
            else:
                self.fail(f"apply({text!r}) was accepted, but the rules engine refuses it")
            got = self.call("to_json()", self.game.to_json)
            if got != self.want:
                self.fail(f"the refused apply({text!r}) changed the game: {doc_difference(self.want, got)}")

    def clone_and_apply(self, text: str, ids: list[int] | None) -> Any:
        """A clone with ``text`` applied (by its id when the ids are known); the original must not
        change. Returns the clone, for :meth:`compare_clone` once the original has caught up."""
        clone = self.call("clone()", self.game.clone)
        if ids is not None:
            i = self.call(f"action_id({text!r})", lambda: self.game.action_id(text))
            if i not in ids:
                self.fail(f"action_id({text!r}) = {i!r}, not among legal_ids()")
            self.call(f"clone().apply_id({i})", lambda: clone.apply_id(i))
        else:
            self.call(f"clone().apply({text!r})", lambda: clone.apply(text))
        got = self.call("to_json()", self.game.to_json)
        if got != self.want:
            self.fail(f"applying {text!r} to a clone changed the original: {doc_difference(self.want, got)}")
        return clone

    def advance(self, text: str, legal: list[str], checks: random.Random | None) -> list[Event]:
        """:meth:`step`; with ``checks``, first the exact JSON, the integer actions, a refusal and
        a clone that plays ``text`` alongside."""
        clone = None
        if checks is not None:
            self.check_exact_json()
            ids = self.check_ids(legal)
            self.check_refusal(checks, legal)
            clone = self.clone_and_apply(text, ids)
        events = self.step(text)
        if clone is not None:
            self.compare_clone(clone, text)
        return events

    def check_every_action(self, legal: list[str]) -> None:
        """Each legal action applied to a clone: its events and the position after it as the
        rules engine's; the game itself unchanged."""
        for text in legal:
            after, want_events = self.ref.apply(parse_action(text, self.ref))
            want = notation.position_to_json(after)
            clone = self.call("clone()", self.game.clone)
            got_events = self.call(f"clone().apply({text!r})", lambda clone=clone, text=text: clone.apply(text))  # type: ignore[misc]
            if got_events != want_events:
                self.fail(
                    f"events of {text!r} on a clone: python {_short(want_events, 1200)} / core {_short(got_events, 1200)}"
                )
            got = self.call("clone().to_json()", clone.to_json)
            if got != want:
                self.fail(f"to_json() of a clone after {text!r}: {doc_difference(want, got)}")
        got = self.call("to_json()", self.game.to_json)
        if got != self.want:
            self.fail(f"applying actions to clones changed the original: {doc_difference(self.want, got)}")

    def compare_clone(self, clone: Any, text: str) -> None:
        got = self.call("clone().to_json()", clone.to_json)
        if got != self.want:
            self.fail(f"a clone after {text!r} differs from the game: {doc_difference(self.want, got)}")


def _types(value: Any) -> tuple[type, ...]:
    """The types of a tuple's items (a result's winner ``1`` is not ``True``), else ``()``."""
    return tuple(map(type, value)) if isinstance(value, tuple) else ()


def illegal_candidates(pos: Position, rng: random.Random) -> list[str]:
    """Actions that are well-formed on this mat and most likely illegal now: a deployment of a card
    that is not in the decider's hand, draw, pass, and shots, moves, advances and recalls of
    random units (the caller drops any that happen to be legal)."""
    decider = pos.decider
    squares = sorted(pos.board) or sorted(mat.ON_MAT)
    empty = sorted(mat.ON_MAT - set(pos.board)) or sorted(mat.ON_MAT)
    absent = sorted(c for c in pos.cards if c not in pos.hands[decider])
    name = mat.name
    a, b = rng.choice(squares), rng.choice(squares)
    step = a + rng.choice(mat.NEIGHBOUR_DELTAS)
    if pos.variant.bordered and step not in mat.ON_MAT:
        step = rng.choice(empty)
    return [
        f"deploy {rng.choice(absent)} {name(rng.choice(empty))}",
        "draw",
        "pass",
        f"shoot {name(a)} {name(b)}",
        f"move {name(a)} {name(step)}",
        f"advance {name(a)} {name(step)}",
        f"recall {name(b)}",
    ]


def _lockstep_start(pos: Position, cards: CardSet, impl: Any, context: str) -> Lockstep:
    """Both sides read the text of ``pos``; the rules engine's own round trip must hold first."""
    doc = notation.position_to_json(pos)
    start = compact(doc)
    ref = notation.parse_position(json.loads(start), cards)
    if notation.position_to_json(ref) != doc:
        raise Disagreement(
            start,
            [],
            doc_difference(doc, notation.position_to_json(ref), ("written", "read back")),
            cards,
            context,
            headline="the rules engine reads back a different position from the one it wrote",
        )
    return Lockstep(start, cards, impl, context)


def compare_game(
    pos: Position,
    cards: CardSet,
    rng: random.Random,
    impl: Any,
    *,
    context: str = "",
    check_every: int = CHECK_EVERY,
    seen: Counter[str] | None = None,
) -> int:
    """Play from ``pos`` to the end with actions drawn by ``rng`` from the sorted legal list of
    the rules engine, comparing ``impl.Game`` after every one; the number of actions compared.

    ``pos`` is not changed. ``seen`` (when given) counts the kinds of actions played and of
    events caused (``"event:eliminated"``). Raises :class:`Disagreement` on the first difference.
    """
    checks = random.Random(rng.random())  # the checks draw apart, so they never change the game
    ls = _lockstep_start(pos, cards, impl, context)
    n = 0
    while not ls.ref.is_over:
        if n >= MAX_ACTIONS:
            ls.fail(f"the game is still running after {MAX_ACTIONS} actions")
        legal = ls.compare_legal()
        text = rng.choice(legal)
        events = ls.advance(text, legal, checks if n % check_every == 0 else None)
        if seen is not None:
            seen[text.split(" ", 1)[0]] += 1
            seen.update(f"event:{e['type']}" for e in events)
        n += 1
    ls.compare_legal()
    ls.check_exact_json()
    return n


def replay(start: str, actions: Sequence[str], cards: CardSet, impl: Any, context: str = "") -> None:
    """Apply the actions of a report to both from its start position, comparing as
    :func:`compare_game` does with every check at every decision point, and at the last one
    every legal action on a clone; raises a :class:`Disagreement` (or passes, once the
    implementation is fixed)."""
    checks = random.Random(0)
    ls = Lockstep(start, cards, impl, context)
    for text in actions:
        legal = ls.compare_legal()
        if text not in legal:
            raise ValueError(f"{text!r} is not legal in the rules engine after {len(ls.played)} actions")
        ls.advance(text, legal, checks)
    legal = ls.compare_legal()
    ls.check_exact_json()
    if not ls.ref.is_over:
        ls.check_ids(legal)
        ls.check_refusal(checks, legal)
        ls.check_every_action(legal)


__all__ = ["Disagreement", "Lockstep", "compare_game", "doc_difference", "illegal_candidates", "replay"]

"""Hints and post-game analysis: the top search level's judgement of a decision, and of a game.

Every judgement is made from what the deciding player knew at that moment: their view
(``notation.view``), the hand cards their opponent had shown by then (the public events before
the decision) and their own deck list; never the record's seed or the other hidden cards.

The search's estimates are win probabilities in the search's own terms (docs/bots.md): the
value it expects each side to have eliminated a few turns on, turned into a probability by the
same logistic function it judges leaves with (1 for a won game, 0 for a lost one). A *mistake*
is a decision whose played action the search rates at least :data:`MISTAKE` below its preferred
action (from the deciding player's side), a *blunder* at least :data:`BLUNDER` below.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from lordsofwar.bots import TOP
from lordsofwar.bots.greedy import card_value
from lordsofwar.bots.search import LEVELS, Analysis, SearchBot, SearchLevel
from lordsofwar.rules import notation
from lordsofwar.rules.cards import CORE, CardSet
from lordsofwar.rules.knowledge import known_hands
from lordsofwar.rules.state import Action, Event, Position

MISTAKE = 0.10
"""A played action rated this far (in win probability) below the preferred one is a mistake."""

BLUNDER = 0.25
"""... and this far, a blunder."""


def balance(pos: Position, player: int) -> float:
    """The value ``player`` has eliminated minus the value their opponent has (the search's
    material measure: :func:`lordsofwar.bots.greedy.card_value` of each card in the lost piles)."""
    v = pos.variant
    own = sum(card_value(pos.cards.card(c), v) for c in pos.lost[3 - player])
    their = sum(card_value(pos.cards.card(c), v) for c in pos.lost[player])
    return own - their


def win_probability(pos: Position, player: int, relative_mean: float, level: SearchLevel) -> float:
    """A search estimate for ``player`` as a win probability: a level that judges leaves by the
    value gained since the root (``relative``) gives a mean whose logit is that gain; the
    balance at the root is added back before the logistic."""
    if not level.relative:
        return relative_mean
    m = min(max(relative_mean, 1e-6), 1 - 1e-6)
    gained = level.scale * math.log(m / (1 - m))
    return 1.0 / (1.0 + math.exp(-(balance(pos, player) + gained) / level.scale))


def hint(
    pos: Position,
    events: Sequence[Event],
    deck: Sequence[str] | None,
    seed: int = 0,
    level: str = TOP,
    seconds: float | None = None,
) -> dict[str, Any]:
    """The top level's preferred action for the player who decides at ``pos`` (the real
    position: only that player's view is searched), with its estimate and the runners-up."""
    player = pos.decider
    view = notation.view(pos, player)
    bot = SearchBot(LEVELS[level], seed)
    found = bot.analyse(view, known=known_hands(events, player), deck=deck, seconds=seconds)
    return _judged(view, player, found, bot.level)


def _judged(view: Position, player: int, found: Analysis, level: SearchLevel) -> dict[str, Any]:
    ranked = []
    for action, visits, mean in found.actions[:5]:
        ranked.append(
            {
                "action": str(action),
                "visits": visits,
                "win": None if not visits else round(win_probability(view, player, mean, level), 4),
            }
        )
    win = None if math.isnan(found.value) else round(win_probability(view, player, found.value, level), 4)
    return {
        "player": player,
        "action": str(found.choice),
        "squares": squares_of(found.choice),
        "win": win,
        "alternatives": ranked,
        "iterations": found.iterations,
        "seconds": round(found.seconds, 3),
    }


def squares_of(action: Action) -> list[str]:
    """The squares an action names (to light them on the mat), in the notation."""
    from lordsofwar.rules import mat

    return [mat.name(s) for s in (action.frm, action.to) if s is not None]


def decisions_of(record: notation.GameRecord, cards: CardSet = CORE) -> list[dict[str, Any]]:
    """What each action of ``record`` was decided from: ``{"n", "turn", "player", "played",
    "forced", "view", "known", "deck"}`` (``view``: the deciding player's view as JSON, ``known``:
    the hand cards the opponent had shown, ``deck``: that player's own list)."""
    pos = notation.deal(record.decks, record.seed, record.variant, cards)
    events: list[Event] = []
    out = []
    for i, text in enumerate(record.actions):
        player = pos.decider
        played = notation.parse_action(text, pos)
        forced = len(pos.legal_actions()) == 1
        out.append(
            {
                "n": i + 1,
                "turn": pos.turn,
                "player": player,
                "played": text,
                "forced": forced,
                "view": None if forced else notation.view_json(pos, player),
                "known": known_hands(events, player),
                "deck": list(record.decks[player - 1]),
            }
        )
        events.extend(pos.push(played))
    return out


def judge(
    decision: dict[str, Any],
    cards: CardSet = CORE,
    level: str = TOP,
    seconds: float | None = None,
    iterations: int | None = None,
    seed: int = 0,
) -> dict[str, Any]:
    """The judgement of one decision of :func:`decisions_of` (see :func:`analyse_record`)."""
    entry = {k: decision[k] for k in ("n", "turn", "player", "played")}
    if decision["forced"]:
        entry.update(forced=True, best=decision["played"], win_best=None, win_played=None, drop=None, verdict=None)
        return entry
    lv = LEVELS[level]
    view = notation.parse_position(decision["view"], cards)
    player = decision["player"]
    found = SearchBot(lv, seed + decision["n"]).analyse(
        view,
        known={int(p): c for p, c in decision["known"].items()},
        deck=decision["deck"],
        seconds=seconds,
        iterations=iterations,
    )
    win_best = win_probability(view, player, found.value, lv)
    mean_played = found.value_of(notation.parse_action(decision["played"], view))
    win_played = None if mean_played is None else win_probability(view, player, mean_played, lv)
    drop = None if win_played is None else max(0.0, win_best - win_played)
    verdict = None
    if drop is not None and str(found.choice) != decision["played"]:
        verdict = "blunder" if drop >= BLUNDER else "mistake" if drop >= MISTAKE else None
    entry.update(
        forced=False,
        best=str(found.choice),
        squares=squares_of(found.choice),
        win_best=round(win_best, 4),
        win_played=None if win_played is None else round(win_played, 4),
        drop=None if drop is None else round(drop, 4),
        verdict=verdict,
    )
    return entry


def summary(level: str, entries: list[dict[str, Any]], result: Any) -> dict[str, Any]:
    """The analysis of a game from its judged decisions in order and its result (or None):
    ``graph`` is player 1's win probability before each action and after the last."""
    graph: list[float] = []
    for d in entries:
        if d["forced"] or d["win_best"] is None:
            graph.append(graph[-1] if graph else 0.5)
        else:
            graph.append(d["win_best"] if d["player"] == 1 else round(1 - d["win_best"], 4))
    if result is not None and result.winner in (1, 2, None) and result.reason:
        graph.append(1.0 if result.winner == 1 else 0.0 if result.winner == 2 else 0.5)
    else:
        graph.append(graph[-1] if graph else 0.5)
    mistakes = [d["n"] for d in entries if d.get("verdict")]
    return {"level": level, "decisions": entries, "graph": graph, "mistakes": mistakes}


def analyse_record(
    record: notation.GameRecord,
    cards: CardSet = CORE,
    level: str = TOP,
    seconds: float | None = None,
    iterations: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    seed: int = 0,
) -> dict[str, Any]:
    """Judge every decision of a game record with ``level`` (default the top level).

    Returns ``{"level", "decisions": [...], "graph": [...], "mistakes": [...]}``: for each
    action of the record, its number ``n`` (1-based), turn, player, the action played, whether
    it was forced (one legal action: not judged), the preferred action and the squares it names,
    the estimates of both for the deciding player, the drop between them and ``"mistake"`` /
    ``"blunder"`` / None; ``graph`` is player 1's win probability before each action (and after
    the last), from the judgement of whoever decided there; ``mistakes`` lists the ``n`` of the
    marked decisions. ``progress(done, total)`` is called after each action.
    """
    decisions = decisions_of(record, cards)
    entries = []
    for d in decisions:
        entries.append(judge(d, cards, level, seconds, iterations, seed))
        if progress is not None:
            progress(d["n"], len(decisions))
    return summary(level, entries, record.result)

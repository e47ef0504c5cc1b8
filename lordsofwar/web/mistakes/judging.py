"""The search that judges a try the analysis did not score, run in the bot pool's workers
(lordsofwar.web.games.botpool: never in the server's event loop). Kept apart from the service so
that a worker imports only the bots and the rules."""

from __future__ import annotations

from typing import Any


def scores_job(decision: dict[str, Any], level: str, seed: int, iterations: int | None) -> dict[str, Any]:
    """The analysis' own search of one decision (:func:`lordsofwar.bots.analysis.judge`: the same
    level, seed and iterations, from the deciding player's view), with the win probability of
    every action it tried: ``{"best", "win_best", "scores": {action: win}}``."""
    from lordsofwar.bots.analysis import win_probability
    from lordsofwar.bots.search import LEVELS, SearchBot
    from lordsofwar.rules import notation

    lv = LEVELS[level]
    view = notation.parse_position(decision["view"])
    player = decision["player"]
    found = SearchBot(lv, seed + decision["n"]).analyse(
        view,
        known={int(p): c for p, c in decision["known"].items()},
        deck=decision["deck"],
        iterations=iterations,
    )
    scores = {
        str(action): round(win_probability(view, player, mean, lv), 4)
        for action, visits, mean in found.actions
        if visits
    }
    return {
        "best": str(found.choice),
        "win_best": round(win_probability(view, player, found.value, lv), 4),
        "scores": scores,
    }

"""What the greedy bot computes about each legal action, as numbers a network reads beside the
position (docs/bots.md, "The network and `scout`").

A dense network over the observation does not learn what one simulated action does: which units
a deployment eliminates, what the rest of the turn gains, which units are left in reach of the
enemy. The greedy bot computes exactly that (``Game.greedy_scores``: for every legal action its
score, tie-break preference and exposure, ``GreedyBot.evaluate``). The ``scout`` network scores
each legal action from the position and these numbers, so it can play greedy's choice where the
search's agrees and learn where it does not.

:func:`raw_scores` reads the three numbers per legal action id (kept as they are in the
self-play shards); :func:`features` turns one decision's raw numbers into the
:data:`NUM_FEATURES` inputs of the network, each relative to the decision's other actions.
"""

from __future__ import annotations

import numpy as np

from lordsofwar.bots.greedy import WIN

NUM_FEATURES = 11
"""The inputs per action (:func:`features`)."""
VALUE_SCALE = 5.0
"""About the value of one eliminated unit and more (``greedy.card_value``): the unit of the
scaled scores and exposures."""
_EPS = 1e-6


def raw_scores(game: object) -> tuple[np.ndarray, np.ndarray]:
    """The legal action ids of ``game`` (a core game in the network's frame) with the greedy
    bot's ``(score, preference, exposure)`` of each: ids ascending (as ``legal_ids``), int32
    (n,), and float32 (n, 3). An action without an id in the frame is left out."""
    scored = game.greedy_scores()  # type: ignore[attr-defined]
    ids = np.empty(len(scored), np.int64)
    raw = np.empty((len(scored), 3), np.float32)
    n = 0
    for text, score, preference, exposure in scored:
        try:
            i = game.action_id(text)  # type: ignore[attr-defined]
        except (AssertionError, ValueError):
            continue
        ids[n] = i
        raw[n] = (score, preference, exposure)
        n += 1
    order = np.argsort(ids[:n], kind="stable")
    return ids[:n][order].astype(np.int32), raw[:n][order]


def features(raw: np.ndarray) -> np.ndarray:
    """The network's inputs (n, :data:`NUM_FEATURES`) for one decision's raw greedy numbers
    (n, 3), in order:

    0. the action wins the game this turn (by the thresholds), 1. it loses it;
    2. the score without a win or loss, in :data:`VALUE_SCALE` units (clipped to ±3);
    3. how far the score is below the best action's (0 for the best, clipped to -3);
    4. the action has the best score;
    5. the tie-break preference / 3 (a draw 1, a recall 2/3 and more, a pass 1/3, a deployment
       or an advance 1/3, a shot or a move 0; -1/3 where it could not be simulated);
    6. the exposure after the turn, in :data:`VALUE_SCALE` units (clipped to ±3);
    7. how far the exposure is below the highest among the actions (clipped to -3);
    8. the action is one the greedy bot may play (best score, then preference, then exposure);
    9. the action's rank by score among the decision's actions, 0 (best) to 1 (worst);
    10. 1 / the number of legal actions.
    """
    raw = np.asarray(raw, np.float64)
    n = len(raw)
    out = np.zeros((n, NUM_FEATURES), np.float32)
    if n == 0:
        return out
    score, preference, exposure = raw[:, 0], raw[:, 1], raw[:, 2]
    win = score > WIN / 2
    loss = score < -WIN / 2
    plain = score - WIN * win + WIN * loss
    best = score.max()
    top = score >= best - _EPS
    best_preference = preference[top].max()
    tied = top & (preference == best_preference)
    best_exposure = exposure[tied].max()
    picks = tied & (exposure >= best_exposure - _EPS)
    below = np.where(np.abs(score - best) > WIN / 2, -3.0 * VALUE_SCALE, score - best)
    ranks = np.argsort(np.argsort(-score, kind="stable"), kind="stable")
    out[:, 0] = win
    out[:, 1] = loss
    out[:, 2] = np.clip(plain / VALUE_SCALE, -3, 3)
    out[:, 3] = np.clip(below / VALUE_SCALE, -3, 0)
    out[:, 4] = top
    out[:, 5] = preference / 3.0
    out[:, 6] = np.clip(exposure / VALUE_SCALE, -3, 3)
    out[:, 7] = np.clip((exposure - exposure.max()) / VALUE_SCALE, -3, 0)
    out[:, 8] = picks
    out[:, 9] = ranks / max(n - 1, 1)
    out[:, 10] = 1.0 / n
    return out

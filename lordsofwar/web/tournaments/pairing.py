"""The arithmetic of a tournament, apart from the database: scores, tie-breaks and the pairing
of a round, from the entrants and the games so far.

Pairings come from ``caissify-pairings`` (FIDE Dutch system C.04.3, checked by its authors
against the FIDE-endorsed bbpPairings; FIDE Berger tables for round robins). Chess colours are
the sides of Lords of War: white is player 1, who deploys first on the square marked 1.

Points: a win 1, a draw ½, a loss 0; a pairing-allocated bye (an odd number of entrants) 1; a
forfeit (a player lost a game unplayed: their clock or deadline ran out before their first
action, or they ended an aborted game, tournaments/results.py) counts 1 for the winner and 0 for
the loser, and the pair is not played again; a double forfeit (a draw agreed before the first
turns) 0 for both.

Tie-breaks, in this order after the score: **Buchholz** (the sum of the final scores of the
opponents met, forfeits included, byes not), **Sonneborn-Berger** (the final scores of the
opponents beaten, plus half those of the opponents drawn), the number of wins, then the rating
at registration.
"""

from __future__ import annotations

import warnings
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field

from caissify_pairings import MissingFloatHistoryWarning, generate_pairings

WIN, DRAW, LOSS = "1-0", "1/2", "0-1"
FORFEIT_WIN, FORFEIT_LOSS = "+-", "-+"
"""Results from white's (player 1's) side; a forfeit's ``+`` is the side that won unplayed."""
DOUBLE_FORFEIT = "--"
"""An aborted board that gives neither player a point (tournaments/results.py); an arena leaves
it out altogether."""
RESULTS = (WIN, DRAW, LOSS, FORFEIT_WIN, FORFEIT_LOSS, DOUBLE_FORFEIT)


@dataclass(frozen=True)
class Entrant:
    id: int
    name: str
    rating: int
    withdrawn: bool = False


@dataclass(frozen=True)
class Pairing:
    """One board of a round: ``white`` plays player 1, ``black`` player 2; ``black`` None is a
    bye. ``result`` None while the game runs."""

    round: int
    white: int
    black: int | None
    result: str | None = None

    @property
    def bye(self) -> bool:
        return self.black is None


@dataclass
class Standing:
    id: int
    name: str
    rating: int
    score: float = 0.0
    buchholz: float = 0.0
    sonneborn_berger: float = 0.0
    wins: int = 0
    played: int = 0
    byes: int = 0
    withdrawn: bool = False
    rank: int = 0
    opponents: list[int] = field(default_factory=list)


def points(p: Pairing, player: int) -> float:
    """What ``p`` (finished) gave ``player``."""
    if p.black is None:
        return 1.0
    white = p.white == player
    return {
        WIN: 1.0 if white else 0.0,
        LOSS: 0.0 if white else 1.0,
        DRAW: 0.5,
        FORFEIT_WIN: 1.0 if white else 0.0,
        FORFEIT_LOSS: 0.0 if white else 1.0,
        DOUBLE_FORFEIT: 0.0,
    }[p.result or DRAW]


def standings(entrants: Iterable[Entrant], pairings: Iterable[Pairing]) -> list[Standing]:
    """Every entrant's score and tie-breaks from the finished pairings, ranked."""
    table = {e.id: Standing(e.id, e.name, e.rating, withdrawn=e.withdrawn) for e in entrants}
    done = [p for p in pairings if p.bye or p.result is not None]
    for p in done:
        if p.black is None:
            s = table[p.white]
            s.score += 1.0
            s.byes += 1
            continue
        for me, other in ((p.white, p.black), (p.black, p.white)):
            s = table[me]
            got = points(p, me)
            s.score += got
            s.opponents.append(other)
            s.wins += got == 1.0 and p.result in (WIN, LOSS)
            s.played += p.result in (WIN, DRAW, LOSS)
    for p in done:
        if p.black is None:
            continue
        for me, other in ((p.white, p.black), (p.black, p.white)):
            got = points(p, me)
            table[me].buchholz += table[other].score
            table[me].sonneborn_berger += table[other].score * got
    ranked = sorted(
        table.values(), key=lambda s: (-s.score, -s.buchholz, -s.sonneborn_berger, -s.wins, -s.rating, s.name)
    )
    for i, s in enumerate(ranked, start=1):
        s.rank = i
    return ranked


def _history(player: int, pairings: Sequence[Pairing], rounds: int, score_before: dict[tuple[int, int], float]) -> dict[str, list[str]]:
    colours: list[str] = []
    floats: list[str] = []
    for r in range(1, rounds + 1):
        mine = [p for p in pairings if p.round == r and player in (p.white, p.black)]
        if not mine:
            colours.append("")
            floats.append("none")
            continue
        p = mine[0]
        if p.black is None:
            colours.append("")
            floats.append("down")  # a pairing-allocated bye counts as a downfloat
            continue
        other = p.black if p.white == player else p.white
        colours.append("white" if p.white == player else "black")
        mine_before, theirs = score_before[(r, player)], score_before[(r, other)]
        floats.append("down" if mine_before > theirs else "up" if mine_before < theirs else "none")
    return {"colours": [c for c in colours if c], "floats": floats}


def pair_round(
    system: str, entrants: Sequence[Entrant], pairings: Sequence[Pairing], round_number: int, total_rounds: int
) -> list[Pairing]:
    """The pairings of round ``round_number`` (every earlier round finished): ``system`` is
    ``"swiss"`` (FIDE Dutch) or ``"round_robin"`` (FIDE Berger). A Swiss leaves withdrawn
    entrants out; a round robin keeps its schedule, and the games of a withdrawn entrant are
    forfeited by the caller. With an odd number the bye goes as the system says."""
    active = [e for e in entrants if not e.withdrawn] if system == "swiss" else list(entrants)
    ordered = sorted(entrants, key=lambda e: (-e.rating, e.name, e.id))
    number = {e.id: i for i, e in enumerate(ordered, start=1)}
    score_before: dict[tuple[int, int], float] = {}
    for r in range(1, round_number + 1):
        earlier = [p for p in pairings if p.round < r]
        scores = {s.id: s.score for s in standings(entrants, earlier)}
        for e in entrants:
            score_before[(r, e.id)] = scores[e.id]
    players = []
    for e in active:
        history = _history(e.id, pairings, round_number - 1, score_before)
        players.append(
            {
                "id": e.id,
                "name": e.name,
                "score": score_before[(round_number, e.id)],
                "rating": e.rating,
                "starting_number": number[e.id],
                "color_hist": history["colours"],
                "float_history": history["floats"],
                "bye_count": sum(1 for p in pairings if p.black is None and p.white == e.id),
                "forfeit_win_count": sum(
                    1
                    for p in pairings
                    if (p.result == FORFEIT_WIN and p.white == e.id) or (p.result == FORFEIT_LOSS and p.black == e.id)
                ),
            }
        )
    previous = {(p.white, p.black) for p in pairings if p.black is not None}
    engine = {"swiss": "dutch", "round_robin": "round_robin"}[system]
    with warnings.catch_warnings():
        # Round 2's float history is all "none" when round 1 had no bye: that is correct here.
        warnings.simplefilter("ignore", MissingFloatHistoryWarning)
        made = generate_pairings(engine, players, previous, round_number, total_rounds)
    boards = sorted(made, key=lambda m: m.get("table", 0))
    return [Pairing(round_number, int(m["white_id"]), None if m.get("black_id") is None else int(m["black_id"])) for m in boards]


def round_robin_rounds(count: int) -> int:
    """Rounds of a single round robin of ``count`` entrants (an odd count adds a bye a round)."""
    return count - 1 if count % 2 == 0 else count


# --- the arena --------------------------------------------------------------------------------------

ARENA_WIN, ARENA_DRAW = 2, 1
"""Arena points, as lichess counts them: a win 2, a draw 1, a loss 0, each doubled while the
player is *on fire* (their two previous games were wins); anything but a win puts the fire out."""


@dataclass
class ArenaStanding:
    id: int
    name: str
    rating: int
    points: int = 0
    games: int = 0
    wins: int = 0
    on_fire: bool = False
    playing: bool = False
    withdrawn: bool = False
    rank: int = 0
    sheet: list[str] = field(default_factory=list)
    """Each finished game in order: ``2``, ``4`` (a doubled win), ``1``, ``0``..."""


def arena_standings(entrants: Iterable[Entrant], pairings: Iterable[Pairing]) -> list[ArenaStanding]:
    """Arena points from the games in the order they were paired (a player's games follow one
    another), ranked by points, then wins, then rating."""
    table = {e.id: ArenaStanding(e.id, e.name, e.rating, withdrawn=e.withdrawn) for e in entrants}
    streak: dict[int, int] = dict.fromkeys(table, 0)
    for p in sorted(pairings, key=lambda p: p.round):
        if p.black is None or p.result == DOUBLE_FORFEIT:  # an aborted game counts nothing
            continue
        for me in (p.white, p.black):
            s = table[me]
            if p.result is None:
                s.playing = True
                continue
            got = points(p, me)
            fire = streak[me] >= 2
            value = ARENA_WIN if got == 1.0 else ARENA_DRAW if got == 0.5 else 0
            s.points += value * (2 if fire else 1)
            s.games += 1
            s.wins += got == 1.0
            streak[me] = streak[me] + 1 if got == 1.0 else 0
            s.sheet.append(str(value * (2 if fire else 1)))
    for s in table.values():
        s.on_fire = streak[s.id] >= 2
    ranked = sorted(table.values(), key=lambda s: (-s.points, -s.wins, -s.rating, s.name))
    for i, s in enumerate(ranked, start=1):
        s.rank = i
    return ranked


def pair_arena(
    waiting: Sequence[ArenaStanding], last_opponent: dict[int, int], apart: Collection[int] = ()
) -> list[tuple[int, int]]:
    """Pair the waiting players of an arena: by points (then rating), neighbours together,
    avoiding the opponent each met last when another choice is at hand; the higher-placed of
    the two plays player 1. Two of ``apart`` (the bots: they would only farm points off each
    other) never meet. Whoever is left over waits for the next game to end."""
    queue = sorted(waiting, key=lambda s: (-s.points, -s.rating, s.id))
    pairs: list[tuple[int, int]] = []
    while len(queue) >= 2:
        first = queue.pop(0)
        fits = [i for i, s in enumerate(queue) if first.id not in apart or s.id not in apart]
        if not fits:
            continue
        pick = fits[0]
        if last_opponent.get(first.id) == queue[pick].id and len(fits) > 1:
            pick = fits[1]
        second = queue.pop(pick)
        pairs.append((first.id, second.id))
    return pairs

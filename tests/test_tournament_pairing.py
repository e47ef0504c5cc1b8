"""Tournament arithmetic (no database): Swiss rounds by the FIDE Dutch system with a bye, a
forfeit and a withdrawal; a round robin by the Berger tables; scores and tie-breaks."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from lordsofwar.web.tournaments.pairing import (
    DRAW,
    FORFEIT_LOSS,
    FORFEIT_WIN,
    LOSS,
    WIN,
    ArenaStanding,
    Entrant,
    Pairing,
    arena_standings,
    pair_arena,
    pair_round,
    round_robin_rounds,
    standings,
)


def entrants(n: int) -> list[Entrant]:
    return [Entrant(i, f"p{i}", 1500 + 10 * (n - i)) for i in range(1, n + 1)]


def play(boards: list[Pairing], rng: random.Random, forfeit: bool = False) -> list[Pairing]:
    done = []
    for i, b in enumerate(boards):
        if b.black is None:
            done.append(b)
        elif forfeit and i == 0:
            done.append(Pairing(b.round, b.white, b.black, FORFEIT_LOSS))
        else:
            done.append(Pairing(b.round, b.white, b.black, rng.choice([WIN, WIN, LOSS, LOSS, DRAW])))
    return done


@pytest.mark.parametrize("seed", range(6))
def test_a_nine_player_swiss_with_a_bye_a_forfeit_and_a_withdrawal(seed: int) -> None:
    rng = random.Random(seed)
    people = entrants(9)
    played: list[Pairing] = []
    rounds = 5
    for r in range(1, rounds + 1):
        if r == 4:  # one entrant withdraws after round 3: eight play on, without a bye
            people = [Entrant(e.id, e.name, e.rating, withdrawn=e.id == 5) for e in people]
        boards = pair_round("swiss", people, played, r, rounds)
        active = {e.id for e in people if not e.withdrawn}
        seated = [p for b in boards for p in (b.white, b.black) if p is not None]
        assert sorted(seated) == sorted(active), f"round {r}: every active entrant exactly once"
        byes = [b for b in boards if b.black is None]
        assert len(byes) == len(active) % 2
        met = {frozenset((b.white, b.black)) for b in played if b.black is not None}
        assert not any(frozenset((b.white, b.black)) in met for b in boards if b.black is not None), "a rematch"
        played += play(boards, rng, forfeit=r == 2)
    bye_count = Counter(b.white for b in played if b.black is None)
    assert sum(bye_count.values()) == 3 and max(bye_count.values()) == 1  # rounds 1-3, never twice
    colours: Counter[int] = Counter()
    for b in played:
        if b.black is not None:
            colours[b.white] += 1
            colours[b.black] -= 1
    assert all(abs(v) <= 2 for v in colours.values())
    table = standings(people, played)
    games = [b for b in played if b.black is not None]
    assert sum(s.score for s in table) == len(games) + sum(bye_count.values())
    assert [s.rank for s in table] == list(range(1, 10))
    keys = [(-s.score, -s.buchholz, -s.sonneborn_berger, -s.wins, -s.rating) for s in table]
    assert keys == sorted(keys)
    withdrawn = next(s for s in table if s.id == 5)
    assert withdrawn.withdrawn and len(withdrawn.opponents) + withdrawn.byes == 3
    forfeits = [b for b in played if b.result == FORFEIT_LOSS]
    assert len(forfeits) == 1 and next(s for s in table if s.id == forfeits[0].black).played <= 4


def test_a_round_robin_meets_everyone_once_with_one_bye_each() -> None:
    people = entrants(5)
    rounds = round_robin_rounds(len(people))
    played: list[Pairing] = []
    rng = random.Random(1)
    for r in range(1, rounds + 1):
        played += play(pair_round("round_robin", people, played, r, rounds), rng)
    pairs = Counter(frozenset((b.white, b.black)) for b in played if b.black is not None)
    assert len(pairs) == 10 and set(pairs.values()) == {1}
    assert Counter(b.white for b in played if b.black is None) == dict.fromkeys(range(1, 6), 1)


def test_scores_and_tie_breaks_by_hand() -> None:
    # a beats b, b beats c, c draws a; d has a bye then beats c by forfeit.
    people = [Entrant(1, "a", 1600), Entrant(2, "b", 1550), Entrant(3, "c", 1500), Entrant(4, "d", 1450)]
    played = [
        Pairing(1, 1, 2, WIN),
        Pairing(1, 4, None),
        Pairing(2, 2, 3, WIN),
        Pairing(2, 3, 1, DRAW),
        Pairing(3, 4, 3, FORFEIT_WIN),
    ]
    by_id = {s.id: s for s in standings(people, played)}
    assert [by_id[i].score for i in (1, 2, 3, 4)] == [1.5, 1.0, 0.5, 2.0]
    assert by_id[1].buchholz == 1.0 + 0.5 and by_id[1].sonneborn_berger == 1.0 + 0.25
    assert by_id[3].buchholz == 1.0 + 1.5 + 2.0 and by_id[3].sonneborn_berger == 0.75
    assert by_id[4].buchholz == 0.5 and by_id[4].wins == 0 and by_id[4].byes == 1  # a forfeit is not a win played
    assert [s.id for s in standings(people, played)] == [4, 1, 2, 3]
    running = [*played, Pairing(4, 1, 4)]
    assert by_id[1].score == {s.id: s for s in standings(people, running)}[1].score  # a running game counts nothing


def test_arena_points_double_on_fire() -> None:
    people = [Entrant(1, "a", 1500), Entrant(2, "b", 1500), Entrant(3, "c", 1500)]
    games = [
        Pairing(1, 1, 2, WIN),  # a 2
        Pairing(2, 3, 1, LOSS),  # a 2: two wins, on fire
        Pairing(3, 1, 2, WIN),  # a 4 (doubled)
        Pairing(4, 1, 3, DRAW),  # a 2 (a doubled draw), the fire goes out; c 1
        Pairing(5, 2, 1, LOSS),  # a 2
        Pairing(6, 2, 3, None),  # running
    ]
    by_id = {s.id: s for s in arena_standings(people, games)}
    assert by_id[1].sheet == ["2", "2", "4", "2", "2"] and by_id[1].points == 12 and not by_id[1].on_fire
    assert by_id[3].sheet == ["0", "1"] and by_id[3].playing and by_id[2].playing
    assert [s.id for s in arena_standings(people, games)] == [1, 3, 2]


def test_arena_pairing_by_points_avoiding_the_last_opponent() -> None:
    waiting = [ArenaStanding(i, f"p{i}", 1500, points=p) for i, p in ((1, 8), (2, 6), (3, 6), (4, 0), (5, 0))]
    assert pair_arena(waiting, {}) == [(1, 2), (3, 4)]
    assert pair_arena(waiting, {1: 2, 2: 1}) == [(1, 3), (2, 4)]
    assert pair_arena(waiting[:1], {}) == []

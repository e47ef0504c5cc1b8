"""What the puzzle pages and API do: serve a shipped puzzle as its solver may see it, judge an
answer, rate the first try, pick the next puzzle, the daily puzzle and the streak's puzzles.

The puzzles are the shipped ones (:mod:`lordsofwar.learn.puzzles`); the database holds only
what players did with them (docs/learn.md, "Puzzles").

**Ratings** are OpenSkill's, with the model and scale of the game ratings
(:mod:`lordsofwar.web.ratings.service`): a puzzle is an opponent, solving it is a win. A
player's first try at a puzzle is rated, later ones are not. :func:`answer` writes the first
try's row (unique per player and puzzle) after locking the player's row, in one transaction:
of two processes judging the same first answer at once, one rates it and the other finds the
row and rates nothing.

**The daily puzzle** is picked from the date alone (a hash of it) among the puzzles whose
solution stands out (:data:`DAILY_MARGIN`), so it is the same for everyone all the UTC day.

**Streak mode** walks the puzzles from the easiest to the hardest in bands of
:data:`STREAK_BAND` by their shipped difficulty, one puzzle of each band picked by the run's
seed, until the first miss. A signed-in player's run is kept on the server; a guest's seed and
step are kept by the browser, which asks for the puzzle of a step.
"""

from __future__ import annotations

import hashlib
import random
import secrets
from datetime import date
from functools import lru_cache
from typing import Any

from sqlalchemy import Table, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncSession

from lordsofwar.i18n import N_, _
from lordsofwar.learn import puzzles as bank
from lordsofwar.learn.puzzles import Puzzle
from lordsofwar.rules import notation
from lordsofwar.rules.errors import LordsOfWarError
from lordsofwar.rules.state import Position
from lordsofwar.web.models import PlayerPuzzles, PuzzleAttempt, PuzzleRating, utcnow
from lordsofwar.web.problem import Problem
from lordsofwar.web.ratings.service import MODEL, SCALE, provisional, shown

PLAYERS: Table = PlayerPuzzles.__table__  # type: ignore[assignment]
PUZZLES: Table = PuzzleRating.__table__  # type: ignore[assignment]
ATTEMPTS: Table = PuzzleAttempt.__table__  # type: ignore[assignment]

DAILY_MARGIN = 0.2
"""A daily puzzle's solution is at least this much win probability better than any other action
(all puzzles are candidates where none is)."""
STREAK_BAND = 3
"""Streak mode's difficulty bands: this many puzzles each, by shipped difficulty."""
PAGE = 50
NEAREST = 3
"""The next puzzle is one of this many untried puzzles nearest the player's rating."""
ACTION_LIMIT = 80

THEME_NAMES = {
    "general-kill": N_("Defeat the general"),
    "command-kill": N_("Defeat a command unit"),
    "double-kill": N_("Two units at once"),
    "ranged": N_("Ranged attack"),
    "support": N_("Support"),
    "berserker": N_("Berserkers"),
    "cavalry": N_("Cavalry"),
    "spear": N_("Spears"),
    "move": N_("A move"),
    "recall": N_("Recall"),
    "reinforcement": N_("Reinforcement"),
    "deployment": N_("Deployment"),
    "winning-blow": N_("The winning blow"),
    "sacrifice": N_("Sacrifice"),
    "quiet": N_("A quiet move"),
    "trade": N_("A trade"),
}
"""The words a player reads for a puzzle's theme tag (an unknown tag is shown as it is)."""


def theme_name(tag: str) -> str:
    return _(THEME_NAMES[tag]) if tag in THEME_NAMES else tag


def catalogue() -> list[Puzzle]:
    """Every shipped puzzle."""
    return bank.load()


def find(pid: str) -> Puzzle:
    puzzle = bank.by_id(pid)
    if puzzle is None:
        raise Problem(404, _("there is no puzzle {id}").format(id=repr(pid[:20])))
    return puzzle


@lru_cache(maxsize=4096)
def _solver(pid: str) -> tuple[Position, tuple[str, ...], dict[str, Any]]:
    """The puzzle's position as its solver sees it, its legal actions (the engine's, sorted) and
    the view sent to browsers: made again from the position, so that no hidden card, deck
    order or deck content can pass whatever the data file holds."""
    puzzle = find(pid)
    pos = notation.parse_position(puzzle.view)
    seen = notation.view_json(pos, puzzle.player)
    if pos.decider != puzzle.player or pos.result is not None:
        raise ValueError(f"puzzle {pid}: player {puzzle.player} does not move in its position")
    return pos, tuple(sorted(str(a) for a in pos.legal_actions())), seen


def legal(puzzle: Puzzle) -> list[str]:
    return list(_solver(puzzle.id)[1])


def public(puzzle: Puzzle, rating: int | None = None) -> dict[str, Any]:
    """What a solver gets before answering: no solution, no themes (they are hints)."""
    _pos, actions, seen = _solver(puzzle.id)
    return {
        "id": puzzle.id,
        "player": puzzle.player,
        "view": seen,
        "deck": sorted(puzzle.deck),
        "known": list(puzzle.known),
        "legal": list(actions),
        "rating": puzzle.rating if rating is None else rating,
    }


# --- ratings ------------------------------------------------------------------------------------


def _insert(db: AsyncSession) -> Any:
    return pg_insert if db.get_bind().dialect.name == "postgresql" else sqlite_insert


async def puzzle_ratings(db: AsyncSession) -> dict[str, int]:
    """The current displayed rating of every puzzle tried at least once (others: their start)."""
    rows = (await db.execute(select(PUZZLES.c.puzzle_id, PUZZLES.c.mu))).all()
    return {pid: shown(mu) for pid, mu in rows}


async def puzzle_rating(db: AsyncSession, puzzle: Puzzle) -> int:
    mu = (await db.execute(select(PUZZLES.c.mu).where(PUZZLES.c.puzzle_id == puzzle.id))).scalar()
    return puzzle.rating if mu is None else shown(mu)


def _standing(row: Any) -> dict[str, Any]:
    return {
        "rating": shown(row["mu"]),
        "provisional": provisional(row["sigma"]),
        "tries": row["tries"],
        "solved": row["solved"],
        "streak": row["streak"],
        "best_streak": row["best_streak"],
    }


NEW_PLAYER = {"mu": MODEL.mu, "sigma": MODEL.sigma, "tries": 0, "solved": 0, "streak": 0, "best_streak": 0}


async def standing(db: AsyncSession, user_id: int) -> dict[str, Any]:
    """A player's puzzle rating and streaks (a new player's before their first try)."""
    row = (await db.execute(select(PLAYERS).where(PLAYERS.c.user_id == user_id))).mappings().first()
    return _standing(row or NEW_PLAYER)


async def tried(db: AsyncSession, user_id: int) -> dict[str, bool]:
    """The puzzles the player tried, each with whether they solved it (at any try)."""
    rows = (await db.execute(select(ATTEMPTS.c.puzzle_id, ATTEMPTS.c.solved).where(ATTEMPTS.c.user_id == user_id))).all()
    return {pid: bool(solved) for pid, solved in rows}


async def _player_row(db: AsyncSession, user_id: int) -> Any:
    """The player's row, made if missing, locked for this transaction."""
    now = utcnow()
    await db.execute(
        _insert(db)(PLAYERS)
        .values(user_id=user_id, streak_seed=secrets.randbelow(2**31), updated_at=now, **NEW_PLAYER)
        .on_conflict_do_nothing(index_elements=["user_id"])
    )
    return (await db.execute(select(PLAYERS).where(PLAYERS.c.user_id == user_id).with_for_update())).mappings().one()


async def answer(db: AsyncSession, user_id: int | None, puzzle: Puzzle, text: str, streak: bool = False) -> dict[str, Any]:
    """Judge ``text`` as the answer to ``puzzle``: right iff it is the solution. A malformed or
    illegal action is refused (422) and changes nothing. For a signed-in player, the first try
    rates the player and the puzzle (exactly once); with ``streak``, the answer is to the
    player's streak run: right carries it on, wrong ends it."""
    pos, actions, _seen = _solver(puzzle.id)
    try:
        action = str(notation.parse_action(text, pos))
    except LordsOfWarError as exc:
        raise Problem(422, str(exc), "action") from None
    if action not in actions:
        try:
            pos.copy().push(action)  # the engine's explanation of the refusal
        except LordsOfWarError as exc:
            raise Problem(422, str(exc), "illegal") from None
        raise Problem(422, _("{action} is not one of this puzzle's actions").format(action=action), "illegal")
    correct = action == puzzle.solution
    out: dict[str, Any] = {
        "puzzle": puzzle.id,
        "action": action,
        "correct": correct,
        "solution": puzzle.solution,
        "themes": list(puzzle.themes),
        "theme_names": [theme_name(t) for t in puzzle.themes],
        "margin": round(puzzle.margin, 3),
        "rated": False,
        "change": None,
        "you": None,
        "puzzle_rating": puzzle.rating,
        "streak": None,
    }
    if user_id is None:
        if streak:
            raise Problem(401, _("sign in first: a guest's streak is kept by the browser"))
        out["puzzle_rating"] = await puzzle_rating(db, puzzle)
        return out
    me = await _player_row(db, user_id)
    if streak:
        current = streak_puzzle(me["streak_seed"], me["streak"])
        if current is None or current.id != puzzle.id:
            await db.rollback()
            raise Problem(409, _("this is not the puzzle of your streak now: reload the page"), "stale")
    now = utcnow()
    first = (
        await db.execute(
            _insert(db)(ATTEMPTS)
            .values(
                user_id=user_id,
                puzzle_id=puzzle.id,
                action=action,
                correct=correct,
                solved=correct,
                tries=1,
                mu_before=me["mu"],
                mu_after=me["mu"],
                created_at=now,
                updated_at=now,
            )
            .on_conflict_do_nothing(index_elements=["user_id", "puzzle_id"])
            .returning(ATTEMPTS.c.id)
        )
    ).scalar()
    player = {"mu": me["mu"], "sigma": me["sigma"], "tries": me["tries"], "solved": me["solved"]}
    if first is None:  # a later try: counted, not rated
        await db.execute(
            update(ATTEMPTS)
            .where(ATTEMPTS.c.user_id == user_id, ATTEMPTS.c.puzzle_id == puzzle.id)
            .values(tries=ATTEMPTS.c.tries + 1, solved=ATTEMPTS.c.solved | correct, updated_at=now)
        )
        out["puzzle_rating"] = await puzzle_rating(db, puzzle)
    else:
        await db.execute(
            _insert(db)(PUZZLES)
            .values(puzzle_id=puzzle.id, mu=puzzle.rating / SCALE, sigma=MODEL.sigma, tries=0, solved=0, updated_at=now)
            .on_conflict_do_nothing(index_elements=["puzzle_id"])
        )
        it = (await db.execute(select(PUZZLES).where(PUZZLES.c.puzzle_id == puzzle.id).with_for_update())).mappings().one()
        ranks = [1.0, 2.0] if correct else [2.0, 1.0]
        rated = MODEL.rate([[MODEL.rating(me["mu"], me["sigma"])], [MODEL.rating(it["mu"], it["sigma"])]], ranks=ranks)
        mine, its = rated[0][0], rated[1][0]
        player = {"mu": mine.mu, "sigma": mine.sigma, "tries": me["tries"] + 1, "solved": me["solved"] + int(correct)}
        await db.execute(update(ATTEMPTS).where(ATTEMPTS.c.id == first).values(mu_after=mine.mu))
        await db.execute(
            update(PUZZLES)
            .where(PUZZLES.c.puzzle_id == puzzle.id)
            .values(mu=its.mu, sigma=its.sigma, tries=PUZZLES.c.tries + 1, solved=PUZZLES.c.solved + int(correct), updated_at=now)
        )
        out["rated"] = True
        out["change"] = shown(mine.mu) - shown(me["mu"])
        out["puzzle_rating"] = shown(its.mu)
    run = {"streak": me["streak"], "best_streak": me["best_streak"], "streak_seed": me["streak_seed"]}
    if streak:
        if correct:
            run["streak"] += 1
            run["best_streak"] = max(run["best_streak"], run["streak"])
        else:
            run = {"streak": 0, "best_streak": me["best_streak"], "streak_seed": secrets.randbelow(2**31)}
    await db.execute(update(PLAYERS).where(PLAYERS.c.user_id == user_id).values(updated_at=now, **player, **run))
    await db.commit()
    out["you"] = _standing({**player, **run})
    if streak:
        out["streak"] = streak_state(run["streak_seed"], run["streak"], run["best_streak"], "server", ended=not correct)
    return out


# --- choosing puzzles ---------------------------------------------------------------------------


def themes() -> list[dict[str, Any]]:
    """Every theme of the shipped puzzles with its name and how many puzzles have it, by name."""
    count: dict[str, int] = {}
    for p in catalogue():
        for t in p.themes:
            count[t] = count.get(t, 0) + 1
    found = [{"tag": t, "name": theme_name(t), "puzzles": n} for t, n in count.items()]
    return sorted(found, key=lambda t: (str(t["name"]).casefold(), t["tag"]))


def with_theme(theme: str | None) -> list[Puzzle]:
    every = catalogue()
    if theme is None:
        return every
    if not any(theme in p.themes for p in every):
        raise Problem(404, _("no puzzle has the theme {theme}").format(theme=repr(theme[:30])))
    return [p for p in every if theme in p.themes]


def nearest(candidates: list[Puzzle], ratings: dict[str, int], target: int, rng: random.Random) -> Puzzle | None:
    """One of the :data:`NEAREST` candidates whose rating is nearest ``target``."""
    if not candidates:
        return None
    ranked = sorted(candidates, key=lambda p: (abs(ratings.get(p.id, p.rating) - target), p.id))
    return rng.choice(ranked[:NEAREST])


async def next_puzzle(
    db: AsyncSession, user_id: int | None, theme: str | None, skip: set[str], rating: int | None
) -> Puzzle | None:
    """A puzzle near the player's rating that they have not tried (a signed-in player: by the
    server's records; a guest: not in ``skip``, near ``rating`` or a new player's 1500); None
    when every puzzle (of the theme) was tried."""
    pool = with_theme(theme)
    ratings = await puzzle_ratings(db)
    if user_id is not None:
        skip = skip | set(await tried(db, user_id))
        rating = (await standing(db, user_id))["rating"]
    target = shown(MODEL.mu) if rating is None else rating
    return nearest([p for p in pool if p.id not in skip], ratings, target, random.Random())


def daily_candidates() -> list[Puzzle]:
    every = sorted(catalogue(), key=lambda p: p.id)
    good = [p for p in every if p.margin >= DAILY_MARGIN]
    return good or every


def daily(day: date) -> Puzzle:
    """The puzzle of a UTC day: the same for everyone, from the date alone."""
    pool = daily_candidates()
    if not pool:
        raise Problem(404, _("there are no puzzles"))
    digest = hashlib.sha256(f"lordsofwar daily puzzle {day.isoformat()}".encode()).digest()
    return pool[int.from_bytes(digest[:8], "big") % len(pool)]


@lru_cache(maxsize=1)
def _bands_of(ids: tuple[str, ...]) -> list[list[Puzzle]]:
    ordered = sorted(catalogue(), key=lambda p: (p.rating, p.id))
    return [ordered[i : i + STREAK_BAND] for i in range(0, len(ordered), STREAK_BAND)]


def bands() -> list[list[Puzzle]]:
    """The streak's difficulty bands, easiest first."""
    return _bands_of(tuple(p.id for p in catalogue()))


def streak_puzzle(seed: int, step: int) -> Puzzle | None:
    """The puzzle of a streak run's ``step`` (0 first), or None past the hardest band."""
    every = bands()
    if step >= len(every):
        return None
    band = every[step]
    digest = hashlib.sha256(f"streak {seed} {step}".encode()).digest()
    return band[int.from_bytes(digest[:4], "big") % len(band)]


def streak_state(seed: int, step: int, best: int, kept: str, ended: bool = False) -> dict[str, Any]:
    puzzle = streak_puzzle(seed, step)
    return {
        "seed": seed,
        "step": step,
        "streak": step,
        "best": max(best, step),
        "steps": len(bands()),
        "kept": kept,
        "ended": ended,
        "puzzle": None if puzzle is None else public(puzzle),
    }


async def account_streak(db: AsyncSession, user_id: int) -> dict[str, Any]:
    row = await _player_row(db, user_id)
    await db.commit()
    return streak_state(row["streak_seed"], row["streak"], row["best_streak"], "server")


async def restart_streak(db: AsyncSession, user_id: int) -> dict[str, Any]:
    """Give up the run under way (its count stays in the best streak) and start a new one."""
    row = await _player_row(db, user_id)
    seed = secrets.randbelow(2**31)
    await db.execute(update(PLAYERS).where(PLAYERS.c.user_id == user_id).values(streak=0, streak_seed=seed, updated_at=utcnow()))
    await db.commit()
    return streak_state(seed, 0, row["best_streak"], "server")


def listing(
    theme: str | None, page: int, ratings: dict[str, int], mine: dict[str, bool] | None
) -> dict[str, Any]:
    """A page of the puzzles (of a theme), easiest first, with the player's results."""
    pool = sorted(with_theme(theme), key=lambda p: (ratings.get(p.id, p.rating), p.id))
    pages = max(1, -(-len(pool) // PAGE))
    items = pool[(page - 1) * PAGE : page * PAGE]
    return {
        "theme": theme,
        "page": page,
        "pages": pages,
        "total": len(pool),
        "puzzles": [
            {
                "id": p.id,
                "rating": ratings.get(p.id, p.rating),
                "themes": list(p.themes),
                "status": None if mine is None else ("solved" if mine.get(p.id) else ("missed" if p.id in mine else "new")),
            }
            for p in items
        ],
    }

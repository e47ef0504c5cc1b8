"""The puzzle API (/api/learn/puzzles...) and pages (/learn/puzzles, /learn/puzzles/{id},
/learn/puzzles/daily, /learn/puzzles/streak). Every page works signed out: a guest's progress
and streak are kept by the browser, and only an account's first tries are rated."""

# no `from __future__ import annotations`: FastAPI reads the route annotations

import secrets
from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import HTMLResponse, Response

from lordsofwar.i18n import _
from lordsofwar.web import pages
from lordsofwar.web.deps import Csrf, Db, MaybeUser, SignedIn
from lordsofwar.web.errors import COMMON, refusals
from lordsofwar.web.problem import Problem
from lordsofwar.web.puzzles import service
from lordsofwar.web.puzzles.schemas import (
    DailyPuzzle,
    PuzzleAnswer,
    PuzzleList,
    PuzzleStreak,
    PuzzleToSolve,
    PuzzleVerdict,
)

router = APIRouter(responses=COMMON)
PuzzleId = Annotated[str, Path(pattern=r"^[0-9A-Za-z_-]{1,16}$", description="a puzzle's id")]
ThemeTag = Annotated[str | None, Query(max_length=40, pattern=r"^[a-z0-9-]+$", description="only puzzles of this theme")]
PageNumber = Annotated[int, Query(ge=1, le=10_000, description="1 for the first page")]
SKIP_LIMIT = 1000


def _skip(text: str) -> set[str]:
    ids = {s for s in text.split(",") if s}
    if len(ids) > SKIP_LIMIT:
        raise Problem(422, _("skip: at most {n} puzzles").format(n=SKIP_LIMIT))
    return ids


def _today() -> str:
    return datetime.now(UTC).date().isoformat()


@router.get("/api/learn/puzzles", response_model=PuzzleList, responses=refusals(404))
async def api_puzzles(db: Db, user: MaybeUser, theme: ThemeTag = None, page: PageNumber = 1) -> dict[str, Any]:
    """The puzzles (of a theme), easiest first, 50 a page, with your result at each (signed in)."""
    return await _listing(db, user, theme, page)


async def _listing(db: Db, user: Any, theme: str | None, page: int) -> dict[str, Any]:
    mine = None if user is None else await service.tried(db, user.id)
    out = service.listing(theme, page, await service.puzzle_ratings(db), mine)
    out["themes"] = service.themes()
    out["you"] = None if user is None else await service.standing(db, user.id)
    return out


@router.get("/api/learn/puzzles/next", response_model=PuzzleToSolve, response_model_exclude_unset=True, responses=refusals(404))
async def api_next(
    db: Db,
    user: MaybeUser,
    theme: ThemeTag = None,
    skip: Annotated[str, Query(max_length=20_000, description="a guest's tried puzzles, by id, comma-separated")] = "",
    rating: Annotated[int | None, Query(ge=0, le=10_000, description="a guest's rating to aim at (1500 when absent)")] = None,
) -> dict[str, Any]:
    """A puzzle near your rating that you have not tried (of a theme); 404 when none is left."""
    puzzle = await service.next_puzzle(db, None if user is None else user.id, theme, _skip(skip), rating)
    if puzzle is None:
        raise Problem(404, _("you have tried every puzzle here"), "none-left")
    return service.public(puzzle, await service.puzzle_rating(db, puzzle))


@router.get("/api/learn/puzzles/daily", response_model=DailyPuzzle, response_model_exclude_unset=True, responses=refusals(404))
async def api_daily(db: Db) -> dict[str, Any]:
    """Today's puzzle (UTC): the same for everyone all day."""
    day = datetime.now(UTC).date()
    puzzle = service.daily(day)
    return {"date": day.isoformat(), "puzzle": service.public(puzzle, await service.puzzle_rating(db, puzzle))}


@router.get("/api/learn/puzzles/streak", response_model=PuzzleStreak, response_model_exclude_unset=True)
async def api_streak(
    db: Db,
    user: MaybeUser,
    seed: Annotated[int | None, Query(ge=0, lt=2**31, description="a guest's run: its seed")] = None,
    step: Annotated[int | None, Query(ge=0, le=100_000, description="a guest's run: its step")] = None,
    best: Annotated[int, Query(ge=0, le=100_000, description="a guest's best streak, echoed")] = 0,
) -> dict[str, Any]:
    """Streak mode: signed in, your run (kept on the server); a guest's run is the browser's, who
    sends its ``seed`` and ``step`` and gets that step's puzzle (without a seed: a new run)."""
    if user is not None:
        return await service.account_streak(db, user.id)
    if seed is None:  # a new run
        seed, step = secrets.randbelow(2**31), 0
    return service.streak_state(seed, step or 0, best, "browser")


@router.post("/api/learn/puzzles/streak/restart", response_model=PuzzleStreak, response_model_exclude_unset=True, dependencies=[Csrf], responses=refusals(401, 403))
async def api_streak_restart(db: Db, user: SignedIn) -> dict[str, Any]:
    """Give up your run under way (its count stays in your best) and start a new one."""
    return await service.restart_streak(db, user.id)


@router.get("/api/learn/puzzles/{pid}", response_model=PuzzleToSolve, response_model_exclude_unset=True, responses=refusals(404))
async def api_puzzle(pid: PuzzleId, db: Db) -> dict[str, Any]:
    """One puzzle as its solver sees it."""
    puzzle = service.find(pid)
    return service.public(puzzle, await service.puzzle_rating(db, puzzle))


@router.post(
    "/api/learn/puzzles/{pid}/answer", response_model=PuzzleVerdict, response_model_exclude_unset=True, dependencies=[Csrf], responses=refusals(401, 403, 404, 409)
)
async def api_answer(pid: PuzzleId, body: PuzzleAnswer, db: Db, user: MaybeUser) -> dict[str, Any]:
    """Judge an action: right iff it is the solution. Your first try at a puzzle (signed in)
    changes your puzzle rating and the puzzle's, once; a malformed or illegal action is refused
    (422) and changes nothing."""
    return await service.answer(db, None if user is None else user.id, service.find(pid), body.action, body.streak)


# --- pages ---------------------------------------------------------------------------------------


@router.get("/learn/puzzles", response_class=HTMLResponse, include_in_schema=False)
async def puzzles_page(request: Request, db: Db, user: MaybeUser, theme: ThemeTag = None, page: PageNumber = 1) -> Response:
    listing = await _listing(db, user, theme, page)
    theme_names = {t["tag"]: t["name"] for t in listing["themes"]}
    nxt = None
    if user is not None:
        found = await service.next_puzzle(db, user.id, theme, set(), None)
        nxt = None if found is None else found.id
    ctx = {"listing": listing, "theme_names": theme_names, "next_id": nxt, "today": _today()}
    return pages.render(request, "puzzles.html", ctx, user)


def _solve(request: Request, user: Any, mode: str, data: dict[str, Any], title: str, **ctx: Any) -> Response:
    data = {"mode": mode, "signed_in": user is not None, **data}
    return pages.render(request, "puzzle.html", {"data": data, "mode": mode, "title": title, **ctx}, user)


@router.get("/learn/puzzles/daily", response_class=HTMLResponse, include_in_schema=False)
async def daily_page(request: Request, db: Db, user: MaybeUser) -> Response:
    day = datetime.now(UTC).date()
    puzzle = service.daily(day)
    data = {"date": day.isoformat(), "puzzle": service.public(puzzle, await service.puzzle_rating(db, puzzle))}
    return _solve(request, user, "daily", data, _("Daily puzzle"), day=day)


@router.get("/learn/puzzles/streak", response_class=HTMLResponse, include_in_schema=False)
async def streak_page(request: Request, db: Db, user: MaybeUser) -> Response:
    data = {"streak": None if user is None else await service.account_streak(db, user.id)}
    return _solve(request, user, "streak", data, _("Puzzle streak"))


@router.get("/learn/puzzles/{pid}", response_class=HTMLResponse, include_in_schema=False)
async def puzzle_page(request: Request, pid: PuzzleId, db: Db, user: MaybeUser) -> Response:
    puzzle = service.find(pid)
    data = {"puzzle": service.public(puzzle, await service.puzzle_rating(db, puzzle))}
    return _solve(request, user, "one", data, _("Puzzle {id}").format(id=puzzle.id))

"""Ratings on the web: the leaderboards (/leaderboard, /api/leaderboard) and each player's
ratings and rating history (/api/players/{name}/ratings; the profile page shows them)."""

# no `from __future__ import annotations`: FastAPI reads the route annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, Response

from lordsofwar.i18n import _
from lordsofwar.web import pages
from lordsofwar.web.accounts import service as accounts
from lordsofwar.web.deps import Db, MaybeUser
from lordsofwar.web.errors import COMMON, refusals
from lordsofwar.web.problem import Problem
from lordsofwar.web.ratings import service
from lordsofwar.web.ratings.schemas import Leaderboard, PlayerRatings

router = APIRouter(responses=COMMON)
Pool = Annotated[Literal["live", "turn"], Query(description="live (with a clock) or turn (days per turn)")]
PageNumber = Annotated[int, Query(ge=1, le=100_000, description="1 for the first page")]


Provisional = Annotated[
    bool, Query(description="true: the players whose rating is still provisional (fewer than about twelve rated games)")
]


@router.get("/api/leaderboard", response_model=Leaderboard)
async def api_leaderboard(
    db: Db, pool: Pool = "live", page: PageNumber = 1, provisional: Provisional = False
) -> dict[str, Any]:
    """The players of a pool who are not provisional (or, with ``provisional=true``, those who
    still are) and played a rated game in it within the last ``active_days``, by rating, 50 a
    page."""
    return await service.leaderboard(db, pool, page, provisional_players=provisional)


@router.get("/api/players/{name}/ratings", response_model=PlayerRatings, responses=refusals(404))
async def api_player_ratings(name: str, db: Db) -> dict[str, Any]:
    """A player's rating in each pool and its history (the rating after each rated game)."""
    player = await _player(db, name)
    return {
        "name": player.name,
        "ratings": await service.player_ratings(db, player.id),
        "history": {pool: await service.history(db, player.id, pool) for pool in service.POOLS},
    }


async def _player(db: Db, name: str) -> Any:
    player = await accounts.find_user(db, name[:100])
    if player is None:
        raise Problem(404, _("there is no player called {name!r}").format(name=name[:30]))
    return player


@router.get("/leaderboard", response_class=HTMLResponse, include_in_schema=False)
async def leaderboard_page(request: Request, db: Db, user: MaybeUser, pool: Pool = "live", page: PageNumber = 1) -> Response:
    """The settled players of a pool, a page at a time; below them the provisional ones (their
    first page), so that a new player's first rated games show; and, for a signed-in player,
    their own line: their rank, or how their rating stands while it is provisional."""
    board = await service.leaderboard(db, pool, page)
    newcomers = await service.leaderboard(db, pool, 1, provisional_players=True)
    pools = service.pool_names()
    you = None if user is None else await service.position(db, user.id, pool)
    you_page = None if you is None or you["rank"] is None else (you["rank"] - 1) // service.PAGE + 1
    if you is not None and user is not None:  # among the provisional players shown below?
        you["shown_below"] = any(p["name"] == user.name for p in newcomers["players"])
    ctx = {"board": board, "newcomers": newcomers, "you": you, "you_page": you_page, "pools": pools, "pool": pool}
    ctx["pool_name"] = pools[pool]
    return pages.render(request, "leaderboard.html", ctx, user)

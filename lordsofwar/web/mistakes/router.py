"""Learning from your mistakes: the page (/learn/mistakes/{game}) and its API
(/api/learn/mistakes/{game}, a try: POST /api/learn/mistakes/{game}/{n})."""

# no `from __future__ import annotations`: FastAPI reads the route annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from lordsofwar.web import pages
from lordsofwar.web.deps import Csrf, MaybeUser, SignedIn, Svc
from lordsofwar.web.errors import COMMON, refusals
from lordsofwar.web.mistakes.schemas import Exercises, Judgement, Try
from lordsofwar.web.mistakes.service import Mistakes

GameId = Annotated[int, Path(ge=1, le=2**31 - 1, description="a game number")]
Step = Annotated[int, Path(ge=1, le=100_000, description="the exercise's step (its `n`)")]
router = APIRouter(responses=COMMON)
SEEN = refusals(401, 403, 404, 409)


def mistakes_of(request: Request, svc: Any) -> Mistakes:
    """This application's exercises (made on first use)."""
    found: Mistakes | None = getattr(request.app.state, "mistakes", None)
    if found is None:
        found = Mistakes(svc.games, svc.sessions)
        request.app.state.mistakes = found
    return found


@router.get(
    "/api/learn/mistakes/{game_id}", response_model=Exercises, response_model_exclude_unset=True, responses=SEEN
)
async def api_exercises(request: Request, game_id: GameId, user: SignedIn, svc: Svc) -> dict[str, Any]:
    """Your mistakes and blunders in a finished, analysed game you played, as exercises: the
    position before each as you saw it, your legal actions there and what you played (403 for
    anyone else; 409 before the analysis is done)."""
    return await mistakes_of(request, svc).exercises(game_id, user)


@router.post(
    "/api/learn/mistakes/{game_id}/{n}",
    response_model=Judgement,
    dependencies=[Csrf],
    responses=refusals(401, 403, 404, 409, 503),
)
async def api_try(request: Request, game_id: GameId, n: Step, body: Try, user: SignedIn, svc: Svc) -> dict[str, Any]:
    """Judge a try at an exercise (docs/learn.md, "Learning from your mistakes"): right within the
    analysis' mistake margin of its preferred action; the preferred action comes with the verdict.
    422: not a legal action there."""
    return await mistakes_of(request, svc).judge(game_id, n, body.action, user)


@router.get("/learn/mistakes/{game_id}", response_class=HTMLResponse, include_in_schema=False)
async def mistakes_page(request: Request, game_id: GameId, user: MaybeUser, svc: Svc) -> Response:
    if user is None:
        return RedirectResponse(f"/signin?next=/learn/mistakes/{game_id}", 303)
    doc = await mistakes_of(request, svc).exercises(game_id, user)
    ctx = {"game_id": game_id, "count": len(doc["exercises"]), "names": doc["names"], "player": doc["player"]}
    return pages.render(request, "mistakes.html", ctx, user)

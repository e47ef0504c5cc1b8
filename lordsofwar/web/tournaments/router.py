"""Tournaments on the web: the API (/api/tournaments...) and the pages (/tournaments,
/tournaments/{id}), with forms to create, join, withdraw and start."""

# no `from __future__ import annotations`: FastAPI reads the route annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import ValidationError

from lordsofwar.i18n import _
from lordsofwar.rules.cards import CORE_ARMIES
from lordsofwar.web import pages
from lordsofwar.web.deps import Csrf, Db, MaybeUser, SignedIn, Svc, check_csrf
from lordsofwar.web.errors import COMMON, refusals, validation_message
from lordsofwar.web.games.schemas import GameOptions
from lordsofwar.web.problem import Problem
from lordsofwar.web.tournaments import service
from lordsofwar.web.tournaments.schemas import TournamentCreated, TournamentDetail, TournamentList
from lordsofwar.web.tournaments.service import EnterBot, Join, NewTournament

router = APIRouter(responses=COMMON)
TournamentId = Annotated[int, Path(ge=1, le=2**31 - 1, description="a tournament number")]
CHANGES = refusals(401, 403, 404, 409)


@router.get("/api/tournaments", response_model=TournamentList)
async def api_list(db: Db) -> dict[str, Any]:
    """Upcoming, running and finished tournaments."""
    return await service.listing(db)


@router.post(
    "/api/tournaments", response_model=TournamentCreated, dependencies=[Csrf], status_code=201, responses=refusals(401, 403)
)
async def api_create(body: NewTournament, db: Db, user: SignedIn) -> dict[str, Any]:
    """A new tournament, open for registration; you start it when the players are in."""
    t = await service.create(db, user, body)
    return {"tournament": t.id}


@router.get("/api/tournaments/{tid:int}", response_model=TournamentDetail, responses=refusals(404))
async def api_detail(tid: TournamentId, db: Db, user: MaybeUser) -> dict[str, Any]:
    """A tournament: its players, standings and the boards of every round."""
    return await service.detail(db, tid, user)


@router.post("/api/tournaments/{tid:int}/join", response_model=TournamentDetail, dependencies=[Csrf], responses=CHANGES)
async def api_join(tid: TournamentId, body: Join, db: Db, user: SignedIn, svc: Svc) -> dict[str, Any]:
    """Register (an arena takes players while it runs, and pairs them at once)."""
    t = await service.join(db, user, tid, body)
    await service.join_running(svc.sessions, svc.games, t)
    return await service.detail(db, tid, user)


@router.post("/api/tournaments/{tid:int}/withdraw", response_model=TournamentDetail, dependencies=[Csrf], responses=CHANGES)
async def api_withdraw(tid: TournamentId, db: Db, user: SignedIn) -> dict[str, Any]:
    await service.withdraw(db, user, tid)
    return await service.detail(db, tid, user)


@router.post("/api/tournaments/{tid:int}/start", response_model=TournamentDetail, dependencies=[Csrf], responses=CHANGES)
async def api_start(tid: TournamentId, db: Db, user: SignedIn, svc: Svc) -> dict[str, Any]:
    """The creator closes registration and round 1 is paired (its games start)."""
    await service.start(db, svc.sessions, svc.games, user, tid)
    return await service.detail(db, tid, user)


@router.post(
    "/api/tournaments/{tid:int}/bots", response_model=TournamentDetail, dependencies=[Csrf], responses=refusals(401, 403, 404, 409, 422)
)
async def api_enter_bot(tid: TournamentId, body: EnterBot, db: Db, user: SignedIn, svc: Svc) -> dict[str, Any]:
    """The creator enters a bot level (each level once), with its army; its games are played by
    the bot and are never rated. An arena takes bots while it runs (two bots never meet)."""
    t = await service.enter_bot(db, user, tid, body)
    await service.join_running(svc.sessions, svc.games, t)
    return await service.detail(db, tid, user)


@router.delete("/api/tournaments/{tid:int}/bots/{level}", response_model=TournamentDetail, dependencies=[Csrf], responses=CHANGES)
async def api_remove_bot(
    tid: TournamentId, level: Annotated[str, Path(max_length=20, description="the bot level")], db: Db, user: SignedIn
) -> dict[str, Any]:
    """The creator takes a bot out, as a player withdraws: before the start its entry goes; after
    it, the bot is left out of the coming rounds (its game under way goes on)."""
    await service.remove_bot(db, user, tid, level)
    return await service.detail(db, tid, user)


# --- pages -------------------------------------------------------------------------------------


@router.get("/tournaments", response_class=HTMLResponse, include_in_schema=False)
async def list_page(request: Request, db: Db, user: MaybeUser) -> Response:
    ctx = {"lists": await service.listing(db), "kinds": service.kind_names(), "armies": CORE_ARMIES}
    return pages.render(request, "tournaments.html", ctx, user)


@router.post("/tournaments", include_in_schema=False)
async def create_form(request: Request, db: Db, user: SignedIn) -> Response:
    form = await pages.read_form(request)
    check_csrf(request, pages.field(form, "csrf"))
    raw: dict[str, Any] = {}
    for key in GameOptions.model_fields:
        if key in ("custom_decks", "public", "rated"):
            raw[key] = form.get(key) in ("on", "1", "true")
        elif key == "custom_armies":
            raw[key] = [str(v) for v in form.getlist(key)][:6] or list(CORE_ARMIES)
        elif form.get(key) not in (None, ""):
            raw[key] = pages.field(form, key)
    try:
        body = NewTournament.model_validate(
            {
                "name": pages.field(form, "name", 100),
                "kind": pages.field(form, "kind", 20) or "swiss",
                "rounds": pages.field(form, "rounds", 3) or "5",
                "minutes": pages.field(form, "minutes_arena", 5) or "60",
                "options": GameOptions.model_validate(raw, strict=False),
            },
            strict=False,
        )
    except ValidationError as exc:
        raise Problem(422, validation_message(exc.errors())) from None
    t = await service.create(db, user, body)
    return RedirectResponse(f"/tournaments/{t.id}", 303)


@router.get("/tournaments/{tid:int}", response_class=HTMLResponse, include_in_schema=False)
async def detail_page(request: Request, tid: TournamentId, db: Db, user: MaybeUser) -> Response:
    ctx = {
        "t": await service.detail(db, tid, user),
        "armies": CORE_ARMIES,
        "decks": await service.deck_choices(db, user, tid),
    }
    return pages.render(request, "tournament.html", ctx, user)


@router.post("/tournaments/{tid:int}/{op}", include_in_schema=False)
async def op_form(request: Request, tid: TournamentId, op: str, db: Db, user: SignedIn, svc: Svc) -> Response:
    form = await pages.read_form(request)
    check_csrf(request, pages.field(form, "csrf"))
    if op == "join":
        deck = pages.field(form, "deck", 12)
        try:
            body = Join.model_validate(
                {"army": pages.field(form, "army", 20) or "random", "deck": deck or None}, strict=False
            )
        except ValidationError as exc:
            raise Problem(422, validation_message(exc.errors())) from None
        t = await service.join(db, user, tid, body)
        await service.join_running(svc.sessions, svc.games, t)
    elif op == "bot":
        try:
            enter = EnterBot.model_validate(
                {"level": pages.field(form, "level", 20), "army": pages.field(form, "army", 20) or "random"}, strict=False
            )
        except ValidationError as exc:
            raise Problem(422, validation_message(exc.errors())) from None
        t = await service.enter_bot(db, user, tid, enter)
        await service.join_running(svc.sessions, svc.games, t)
    elif op == "remove-bot":
        await service.remove_bot(db, user, tid, pages.field(form, "level", 20))
    elif op == "withdraw":
        await service.withdraw(db, user, tid)
    elif op == "start":
        await service.start(db, svc.sessions, svc.games, user, tid)
    else:
        raise Problem(404, _("no such tournament action {op!r}").format(op=op[:20]))
    return RedirectResponse(f"/tournaments/{tid}", 303)

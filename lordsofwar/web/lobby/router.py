"""The lobby on the web: the lobby page and its API, posting and answering invitations
(JSON API and forms). A refused form shows its message in the lobby with the choices kept."""

# no `from __future__ import annotations`: FastAPI reads the route annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import ValidationError
from starlette.datastructures import FormData

from lordsofwar.bots import BOTS, ladder
from lordsofwar.i18n import _
from lordsofwar.rules.cards import CORE
from lordsofwar.web import pages
from lordsofwar.web.deps import Csrf, Db, MaybeUser, SignedIn, Svc, check_csrf
from lordsofwar.web.errors import COMMON, refusals, validation_message
from lordsofwar.web.games.runtime import GameError
from lordsofwar.web.games.schemas import GameOptions
from lordsofwar.web.lobby import service
from lordsofwar.web.lobby.schemas import Answer, Answered, Created, Lobby, NewInvitation, NoDeck, Waiting
from lordsofwar.web.models import User
from lordsofwar.web.problem import Problem
from lordsofwar.web.words import BOT_NAMES

router = APIRouter(responses=COMMON)
InvitationId = Annotated[int, Path(ge=1, le=2**31 - 1, description="an invitation number")]
Op = Annotated[Literal["decline", "cancel"], Path(description="the answer")]
Exclude = Annotated[int, Query(ge=0, le=2**31 - 1, description="a game to leave out (the one on the screen); 0: none")]


async def _lobby_page(
    request: Request, db: Db, user: User | None, error: str | None = None, posted: dict[str, Any] | None = None,
    status: int = 200,
) -> Response:
    data = await service.lobby(db, user)
    ctx = {
        "lobby": data, "armies": list(CORE.armies), "bots": list(BOTS), "bot_names": {k: _(v) for k, v in BOT_NAMES.items()},
        "bot_ratings": ladder.ratings(), "bot_blurbs": {k: _(v) for k, v in ladder.blurbs().items()},
        "error": error, "posted": posted,
    }
    return pages.render(request, "lobby.html", ctx, user, status)


@router.get("/api/lobby", response_model=Lobby, response_model_exclude_unset=True)
async def api_lobby(db: Db, user: MaybeUser) -> dict[str, Any]:
    """Open challenges, your challenges, games waiting for you, your games, games to watch."""
    return await service.lobby(db, user)


@router.get("/api/your-turn", responses=refusals(401))
async def api_your_turn(db: Db, user: SignedIn, response: Response, exclude: Exclude = 0) -> Waiting:
    """The number of your running games waiting for you, and which: what the turn counter on
    every page shows. Cheap enough to ask every few seconds (one query, no game rebuilt)."""
    response.headers["Cache-Control"] = "no-store"
    return Waiting.model_validate(await service.waiting(db, user, exclude or None))


@router.get("/", response_class=HTMLResponse, include_in_schema=False)
async def lobby_page(request: Request, db: Db, user: MaybeUser) -> Response:
    return await _lobby_page(request, db, user)


@router.post(
    "/api/invitations", dependencies=[Csrf], status_code=201, responses=refusals(400, 401, 403, 404, 409)
)
async def api_invite(body: NewInvitation, db: Db, user: SignedIn, svc: Svc) -> Created:
    """Post an open or direct challenge; against a bot the game starts at once."""
    inv, game = await service.invite(db, svc.games, user, body)
    if game is not None:
        return Created(game=game.id)
    assert inv is not None
    return Created(invitation=inv.id)


@router.post("/api/invitations/{inv_id}/accept", dependencies=[Csrf], responses=refusals(401, 403, 404, 409))
async def api_accept(inv_id: InvitationId, db: Db, user: SignedIn, svc: Svc, body: Answer | None = None) -> Answered:
    """Accept an invitation, optionally with one of your decks: the game starts."""
    game = await service.answer(db, svc.games, user, inv_id, "accept", body.deck if body else None)
    return Answered(game=None if game is None else game.id)


@router.post("/api/invitations/{inv_id}/{op}", dependencies=[Csrf], responses=refusals(400, 401, 403, 404, 409))
async def api_answer(inv_id: InvitationId, op: Op, db: Db, user: SignedIn, svc: Svc, body: NoDeck | None = None) -> Answered:
    """Decline an invitation made to you, or cancel one of yours."""
    game = await service.answer(db, svc.games, user, inv_id, op, body.deck if body else None)
    return Answered(game=None if game is None else game.id)


def _deck_field(form: FormData) -> int | None:
    """The form's ``deck`` choice: empty for the standard army deck, else a deck number."""
    value = pages.field(form, "deck", 20).strip()
    if not value or value == "standard":
        return None
    if not (value.isascii() and value.isdigit()) or not 1 <= int(value) < 2**31:
        raise Problem(422, _("deck: expected a deck number, got {value!r}").format(value=value))
    return int(value)


def _posted(form: FormData) -> dict[str, Any]:
    """The new-game form as sent, to fill it in again after a refusal."""
    kept: dict[str, Any] = {}
    for key in {*GameOptions.model_fields, "against", "opponent", "deck"}:
        values = [str(v)[:40] for v in form.getlist(key)][:6]
        if values:
            kept[key] = values if key == "custom_armies" else values[0]
    return kept


@router.post("/invitations", include_in_schema=False)
async def invite_form(request: Request, db: Db, user: SignedIn, svc: Svc) -> Response:
    form = await pages.read_form(request)
    check_csrf(request, pages.field(form, "csrf"))
    try:
        raw: dict[str, Any] = {}
        for key in GameOptions.model_fields:
            if key == "custom_armies":
                values = [str(v) for v in form.getlist(key)][:6]
                if values or form.get("custom_decks") in ("on", "1", "true"):
                    raw[key] = values
            elif key in ("custom_decks", "public", "rated", "hints"):
                raw[key] = form.get(key) in ("on", "1", "true")
            elif form.get(key) not in (None, ""):
                raw[key] = pages.field(form, key)
        against = pages.field(form, "against")
        try:
            options = GameOptions.model_validate(raw, strict=False)  # form fields are text
        except ValidationError as exc:
            raise Problem(422, validation_message(exc.errors())) from None
        body = NewInvitation(options=options, opponent=None, bot=None, deck=_deck_field(form))
        if against.startswith("bot:"):
            body.bot = against[4:]
        elif against == "player":
            body.opponent = pages.field(form, "opponent", 100).strip() or None
            if not body.opponent:
                raise Problem(400, _("name the player you challenge"))
        inv, game = await service.invite(db, svc.games, user, body)
    except (Problem, GameError) as exc:
        return await _lobby_page(request, db, user, str(exc), _posted(form), exc.status)
    if game is not None:
        return RedirectResponse(f"/games/{game.id}", 303)
    return RedirectResponse("/?flash=posted", 303)


@router.post("/invitations/{inv_id}/{op}", include_in_schema=False)
async def answer_form(request: Request, inv_id: InvitationId, op: str, db: Db, user: SignedIn, svc: Svc) -> Response:
    form = await pages.read_form(request)
    check_csrf(request, pages.field(form, "csrf"))
    try:
        game = await service.answer(db, svc.games, user, inv_id, op, _deck_field(form))
    except (Problem, GameError) as exc:
        return await _lobby_page(request, db, user, str(exc), None, exc.status)
    if game is not None:
        return RedirectResponse(f"/games/{game.id}", 303)
    return RedirectResponse(f"/?flash={op}", 303)

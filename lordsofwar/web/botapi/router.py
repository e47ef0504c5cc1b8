"""The bot API on the web (docs/bot-api.md): a signed-in player's tokens (cookie and CSRF, as the
rest of the site), and the ``/api/bot/...`` endpoints a bot uses with ``Authorization: Bearer``
(no cookies, so no CSRF token either). Every bot request counts against its token's rate limit."""

# no `from __future__ import annotations`: FastAPI reads the route annotations

import contextlib
from collections.abc import Callable, Coroutine
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Path, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response, StreamingResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from lordsofwar.i18n import _
from lordsofwar.web import pages
from lordsofwar.web.botapi import service
from lordsofwar.web.botapi.schemas import BotAccount, ChallengeCreated, Revoked, TokenCreated, TokenInfo
from lordsofwar.web.botapi.service import SCOPES, Bearer, BotApi
from lordsofwar.web.botapi.streams import Slot, StreamSlots
from lordsofwar.web.deps import Csrf, Db, SignedIn, Svc, check_csrf, client_ip
from lordsofwar.web.errors import COMMON, MEANING, refusals
from lordsofwar.web.fields import Declared
from lordsofwar.web.games.router import GameId, visible
from lordsofwar.web.games.schemas import ActionBody, DrawBody, GameOptions, GameState
from lordsofwar.web.games.service import state_doc
from lordsofwar.web.lobby import service as lobby
from lordsofwar.web.lobby.schemas import Answered, NewInvitation, some_army
from lordsofwar.web.problem import Problem

router = APIRouter(responses=COMMON)
TokenId = Annotated[int, Path(ge=1, le=2**31 - 1, description="a token number")]
InvitationId = Annotated[int, Path(ge=1, le=2**31 - 1, description="a challenge (invitation) number")]
PlayerName = Annotated[str, Path(max_length=100, description="the player to challenge")]
Scope = Literal["bot:play", "challenge:write"]
BEARER = HTTPBearer(
    auto_error=False,
    scheme_name="token",
    description="a personal access token (made at POST /api/tokens): `Authorization: Bearer low_...`",
)
BOT_REFUSALS = refusals(401, 403, 429)
NDJSON = "application/x-ndjson"


class NdjsonResponse(StreamingResponse):
    """A stream's answer; ``slot``, its place in the stream cap, is freed however it ends (read
    to its end, its client gone, the server stopping), and its lines' generator is closed."""

    media_type = NDJSON

    def __init__(self, content: Any, slot: Slot | None = None, slots: StreamSlots | None = None, **kw: Any):
        super().__init__(content, **kw)
        self.slot, self.slots = slot, slots

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            closing = getattr(self.body_iterator, "aclose", None)
            if closing is not None:
                with contextlib.suppress(Exception):
                    await closing()
            if self.slot is not None and self.slots is not None:
                await self.slots.release(self.slot)


def _stream_doc(what: str, *codes: int) -> dict[int | str, dict[str, Any]]:
    """A stream's answers: ndjson, and its refusals as JSON (the refusals' content given
    outright: with a model they would be declared in the stream's media type)."""
    error = {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}}
    refused: dict[int | str, dict[str, Any]] = {
        code: {"content": error, "description": MEANING[code]} for code in (400, 401, 403, 413, 422, 429, *codes)
    }
    return {200: {"content": {NDJSON: {"schema": {"type": "string"}}}, "description": what}, **refused}


class NewToken(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    description: str = Field(
        max_length=60,
        pattern="^[^\\u0000-\\u001F\\u007F]*$",
        description="what the token is for (no control characters)",
    )
    scopes: list[Scope] = Field(
        min_length=1,
        max_length=2,
        description="what the token may do: " + "; ".join(f"{k}: {v}" for k, v in SCOPES.items()),
    )


def _no_hints() -> dict[str, Any]:
    """GameOptions' rule and the lobby's: hints only against a built-in bot, so never here."""
    return {"allOf": [some_army(), {"properties": {"hints": {"const": False}}}]}


class BotChallenge(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    options: Annotated[GameOptions, Declared(_no_hints)] = Field(default_factory=lambda: GameOptions())


def botapi(request: Request) -> BotApi:
    api: BotApi = request.app.state.botapi
    return api


async def _bearer(request: Request, creds: HTTPAuthorizationCredentials | None) -> Bearer:
    """The token's user; 401 without a token or for an unknown one, and 429 (before any lookup)
    for an address that sent too many unknown tokens lately (counted as the sign-in limit counts)."""
    if creds is None:  # nothing to look up, nothing to count
        raise StarletteHTTPException(
            401,
            _("send a valid token: Authorization: Bearer <token> (made at POST /api/tokens)"),
            {"WWW-Authenticate": "Bearer"},
        )
    guard = request.app.state.services.guard
    ip = client_ip(request)
    wait = await guard.bad_token_wait(ip)
    if wait:
        raise StarletteHTTPException(
            429,
            _("too many unknown tokens from your address; try again in {seconds} seconds").format(seconds=wait),
            {"Retry-After": str(wait)},
        )
    found = await service.bearer_user(request.app.state.services.sessions, creds.credentials)
    if found is None:
        await guard.bad_token(ip)
        raise StarletteHTTPException(
            401,
            _("send a valid token: Authorization: Bearer <token> (made at POST /api/tokens)"),
            {"WWW-Authenticate": "Bearer"},
        )
    return found


def scoped(scope: str, bot: bool) -> Callable[..., Coroutine[Any, Any, Bearer]]:
    """The dependency of a bot endpoint: a valid token (401) with ``scope`` (403), of a bot
    account when ``bot`` (403), within its rate (429)."""

    async def dependency(
        request: Request, creds: Annotated[HTTPAuthorizationCredentials | None, Depends(BEARER)]
    ) -> Bearer:
        who = await _bearer(request, creds)
        if scope not in who.scopes:
            raise Problem(403, _("this token lacks the scope {scope}").format(scope=scope))
        if bot and not who.user.bot_account:
            raise Problem(403, _("this is not a bot account: turn it into one first (POST /api/bot/account/upgrade)"))
        await botapi(request).hit(who.token_id)
        return who

    return dependency


Token = Annotated[Bearer, Depends(scoped("bot:play", bot=False))]
Playing = Annotated[Bearer, Depends(scoped("bot:play", bot=True))]
Challenging = Annotated[Bearer, Depends(scoped("challenge:write", bot=False))]


# --- tokens (signed in, on the site) ----------------------------------------------------------------


@router.get("/api/tokens", responses=refusals(401))
async def api_tokens(db: Db, user: SignedIn) -> list[TokenInfo]:
    """Your personal access tokens (never the tokens themselves: only their descriptions)."""
    return [TokenInfo.model_validate(t) for t in await service.list_tokens(db, user)]


@router.post("/api/tokens", dependencies=[Csrf], status_code=201, responses=refusals(401, 403, 409))
async def api_new_token(body: NewToken, db: Db, user: SignedIn, response: Response) -> TokenCreated:
    """Make a token with these scopes; the answer shows it once (at most 20 tokens)."""
    row, token = await service.create_token(db, user, body.description, list(body.scopes))
    response.headers["Cache-Control"] = "no-store"  # the token itself is in it
    return TokenCreated(token=token, **service.token_json(row))


@router.delete("/api/tokens/{token_id}", dependencies=[Csrf], responses=refusals(401, 403, 404))
async def api_revoke_token(token_id: TokenId, db: Db, user: SignedIn) -> Revoked:
    """Revoke one of your tokens: it is refused (401) from now on."""
    await service.revoke_token(db, user, token_id)
    return Revoked(revoked=token_id)


# --- the tokens page --------------------------------------------------------------------------------------


async def _tokens_page(
    request: Request,
    db: Db,
    user: SignedIn,
    made: dict[str, Any] | None = None,
    error: str | None = None,
    status: int = 200,
) -> Response:
    ctx = {
        "tokens": await service.list_tokens(db, user),
        "scopes": {scope: _(text) for scope, text in SCOPES.items()},
        "made": made,
        "error": error,
    }
    response = pages.render(request, "tokens.html", ctx, user, status)
    response.headers["Cache-Control"] = "no-store"  # a new token is on it
    return response


@router.get("/tokens", response_class=HTMLResponse, include_in_schema=False)
async def tokens_page(request: Request, db: Db, user: SignedIn) -> Response:
    return await _tokens_page(request, db, user)


@router.post("/tokens", response_class=HTMLResponse, include_in_schema=False)
async def new_token_form(request: Request, db: Db, user: SignedIn) -> Response:
    form = await pages.read_form(request)
    check_csrf(request, pages.field(form, "csrf"))
    scopes = [str(v) for v in form.getlist("scopes")][:4]
    description = pages.field(form, "description", 100)
    try:
        body = NewToken.model_validate({"description": description, "scopes": scopes})
        row, token = await service.create_token(db, user, body.description, list(body.scopes))
    except ValueError:
        return await _tokens_page(
            request, db, user, None, _("choose at least one scope, and a description of at most 60 characters"), 422
        )
    except Problem as exc:
        return await _tokens_page(request, db, user, None, exc.message, exc.status)
    return await _tokens_page(request, db, user, {**service.token_json(row), "token": token})


@router.post("/tokens/{token_id}/revoke", include_in_schema=False)
async def revoke_token_form(request: Request, token_id: TokenId, db: Db, user: SignedIn) -> Response:
    form = await pages.read_form(request)
    check_csrf(request, pages.field(form, "csrf"))
    await service.revoke_token(db, user, token_id)
    return RedirectResponse("/tokens", 303)


# --- the bot API (bearer token) ------------------------------------------------------------------------


@router.get("/api/bot/account", responses=BOT_REFUSALS)
async def api_bot_account(who: Token) -> BotAccount:
    """The token's account: its name, whether it is a bot account, the token's scopes."""
    return BotAccount(name=who.user.name, bot_account=who.user.bot_account, scopes=sorted(who.scopes))


@router.post("/api/bot/account/upgrade", responses={**BOT_REFUSALS, **refusals(404, 409)})
async def api_bot_upgrade(who: Token, db: Db) -> BotAccount:
    """Turn the token's account into a bot account, for good: only an account that has played
    no game (409 otherwise)."""
    user = await service.upgrade(db, who.user)
    return BotAccount(name=user.name, bot_account=user.bot_account, scopes=sorted(who.scopes))


@router.get(
    "/api/bot/stream/event",
    response_class=NdjsonResponse,
    status_code=200,  # the response class takes keywords: FastAPI cannot read its default
    responses=_stream_doc(
        "ndjson, one event a line: challenge, challengeCanceled, gameStart, gameFinish; an empty line as a keep-alive"
    ),
)
async def api_bot_events(request: Request, who: Playing) -> NdjsonResponse:
    """The bot's events, for as long as it reads: the challenges to it and its running games at
    once, then each new challenge, cancelled challenge, game start and game end (docs/bot-api.md).
    A token may hold a few event streams open at once, an account a few more (429 past that)."""
    api = botapi(request)
    slot = await api.slots.take("event", who.token_id, who.user.id)
    return NdjsonResponse(api.event_stream(who.user), slot, api.slots, headers={"Cache-Control": "no-store"})


@router.get(
    "/api/bot/game/stream/{game_id}",
    response_class=NdjsonResponse,
    status_code=200,
    responses=_stream_doc(
        "ndjson: the game's state for the bot first, then the game socket's messages (update, state); "
        "empty lines as keep-alives; it ends after the message that says the game is over",
        404,
    ),
)
async def api_bot_game_stream(request: Request, game_id: GameId, who: Playing, svc: Svc) -> NdjsonResponse:
    """One of the bot's games: first ``{"type": "state", ...}`` (the game state of GET
    /api/games/{id} for the bot's seat), then each message a player's WebSocket gets."""
    _rt, seat = await visible(svc, game_id, who.user)
    if seat is None:
        raise Problem(403, _("you are not playing in this game"))
    api = botapi(request)
    slot = await api.slots.take(f"game:{game_id}", who.token_id, who.user.id)  # the cap counts per game
    _feed, lines = api.game_stream(game_id, seat, who.user.id)
    return NdjsonResponse(lines, slot, api.slots, headers={"Cache-Control": "no-store"})


@router.post(
    "/api/bot/game/{game_id}/move",
    response_model=GameState,
    response_model_exclude_unset=True,
    responses={**BOT_REFUSALS, **refusals(404, 409, 503)},
)
async def api_bot_move(game_id: GameId, body: ActionBody, who: Playing, svc: Svc) -> dict[str, Any]:
    """Play one action on the version you saw (as POST /api/games/{id}/actions); the new state."""
    await visible(svc, game_id, who.user)
    rt = await svc.games.act(game_id, who.user.id, body.action, body.version)
    return state_doc(rt, rt.seat_of(who.user.id))


@router.post(
    "/api/bot/game/{game_id}/resign",
    response_model=GameState,
    response_model_exclude_unset=True,
    responses={**BOT_REFUSALS, **refusals(404, 409, 503)},
)
async def api_bot_resign(game_id: GameId, who: Playing, svc: Svc) -> dict[str, Any]:
    await visible(svc, game_id, who.user)
    rt = await svc.games.resign(game_id, who.user.id)
    return state_doc(rt, rt.seat_of(who.user.id))


@router.post(
    "/api/bot/game/{game_id}/draw",
    response_model=GameState,
    response_model_exclude_unset=True,
    responses={**BOT_REFUSALS, **refusals(404, 409, 503)},
)
async def api_bot_draw(game_id: GameId, body: DrawBody, who: Playing, svc: Svc) -> dict[str, Any]:
    """Offer a draw, or accept or decline the opponent's offer."""
    await visible(svc, game_id, who.user)
    rt = await svc.games.draw(game_id, who.user.id, body.op)
    return state_doc(rt, rt.seat_of(who.user.id))


@router.post("/api/bot/challenge/{name}", status_code=201, responses={**BOT_REFUSALS, **refusals(404, 409)})
async def api_bot_challenge(
    name: PlayerName, db: Db, who: Challenging, svc: Svc, body: BotChallenge | None = None
) -> ChallengeCreated:
    """Challenge a player (or a bot account) by name, as the lobby's direct challenge does."""
    options = body.options if body is not None else GameOptions()
    invitation = NewInvitation(options=options, opponent=name, bot=None, deck=None)
    inv, _game = await lobby.invite(db, svc.games, who.user, invitation)
    assert inv is not None
    return ChallengeCreated(invitation=inv.id)


@router.post("/api/bot/challenge/{inv_id}/accept", responses={**BOT_REFUSALS, **refusals(404, 409)})
async def api_bot_accept(inv_id: InvitationId, db: Db, who: Playing, svc: Svc) -> Answered:
    """Accept a challenge (to the bot, or an open one): the game starts."""
    game = await lobby.answer(db, svc.games, who.user, inv_id, "accept")
    return Answered(game=None if game is None else game.id)


@router.post("/api/bot/challenge/{inv_id}/decline", responses={**BOT_REFUSALS, **refusals(404, 409)})
async def api_bot_decline(inv_id: InvitationId, db: Db, who: Playing, svc: Svc) -> Answered:
    """Decline a challenge to the bot."""
    await lobby.answer(db, svc.games, who.user, inv_id, "decline")
    return Answered(game=None)

"""The chat API: a game's chat history and new messages (/api/games/{id}/chat) and the player's
chat setting (/api/chat/settings). New messages reach the game's sockets as ``chat`` messages
(docs/web-api.md, "Chat")."""

# no `from __future__ import annotations`: FastAPI reads the route annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Request
from fastapi.responses import RedirectResponse, Response
from starlette.requests import HTTPConnection

from lordsofwar.i18n import _
from lordsofwar.web import pages
from lordsofwar.web.chat.schemas import (
    ChatHistory,
    ChatMessageOut,
    ChatPhrase,
    ChatSettingsBody,
    ChatSettingsOut,
    ChatText,
)
from lordsofwar.web.chat.service import MAX_LENGTH, PHRASES, ChatService, writable_room
from lordsofwar.web.deps import Csrf, Db, MaybeUser, SignedIn, Svc, signed_in_form
from lordsofwar.web.errors import COMMON, refusals
from lordsofwar.web.games.router import visible
from lordsofwar.web.problem import Problem

router = APIRouter(responses=COMMON)
GameId = Annotated[int, Path(ge=1, le=2**31 - 1, description="a game number")]


def chat_service(conn: HTTPConnection) -> ChatService:
    chat: ChatService = conn.app.state.chat
    return chat


Chat = Annotated[ChatService, Depends(chat_service)]


@router.get(
    "/api/games/{game_id}/chat",
    response_model=ChatHistory,
    response_model_exclude_none=False,
    responses=refusals(403, 404),
)
async def api_chat(game_id: GameId, db: Db, user: MaybeUser, svc: Svc, chat: Chat) -> dict[str, Any]:
    """The game's chat as you may read it: the players' room for its two players, the
    spectators' room for everyone else, and for the players too once the game is over."""
    rt, seat = await visible(svc, game_id, user)
    try:
        await chat.check_game(db, rt)
        available = True
    except Problem:
        available = False
    enabled = await chat.is_enabled(db, user.id) if user is not None else True
    rooms = await chat.history(db, rt.game, seat) if available and enabled else {}
    return {
        "available": available,
        "enabled": enabled,
        "room": writable_room(seat) if user is not None and available and enabled else None,
        "rooms": {"players": rooms.get("players"), "spectators": rooms.get("spectators")},
        "phrases": list(PHRASES),
        "max_length": MAX_LENGTH,
    }


@router.post(
    "/api/games/{game_id}/chat",
    response_model=ChatMessageOut,
    status_code=201,
    dependencies=[Csrf],
    responses=refusals(401, 403, 404, 409),
)
async def api_chat_post(
    game_id: GameId, body: ChatText | ChatPhrase, db: Db, user: SignedIn, svc: Svc, chat: Chat
) -> dict[str, Any]:
    """Write in the game's chat, in the room of your seat (the players', or the spectators' when
    you do not play in it). Refused: 422 an empty or over-long text or an unknown phrase; 403
    muted (the message says until when) or a player who blocks you or whom you block; 409 a game
    against a bot, chat turned off, the same message again; 429 too many messages."""
    rt, _seat = await visible(svc, game_id, user)
    if isinstance(body, ChatText):
        return await chat.post(db, rt, user, body.text, None)
    return await chat.post(db, rt, user, None, body.phrase)


@router.get("/api/chat/settings", response_model=ChatSettingsOut, responses=refusals(401))
async def api_chat_settings(db: Db, user: SignedIn, chat: Chat) -> dict[str, Any]:
    return {"enabled": await chat.is_enabled(db, user.id)}


@router.put("/api/chat/settings", response_model=ChatSettingsOut, dependencies=[Csrf], responses=refusals(401, 403))
async def api_chat_settings_put(body: ChatSettingsBody, db: Db, user: SignedIn, chat: Chat) -> dict[str, Any]:
    """Turn chat on or off for yourself, in every game: off, no chat is shown or sent to you."""
    return {"enabled": await chat.set_enabled(db, user.id, body.enabled)}


@router.post("/settings/chat", include_in_schema=False)
async def settings_chat_form(request: Request, user: MaybeUser, db: Db, chat: Chat) -> Response:
    """The settings page's chat switch: the same setting as the chat panel's (``enabled``: yes
    or no), back to the settings page."""
    form, user = await signed_in_form(request, user)
    choice = pages.field(form, "enabled", 10)
    if choice not in ("yes", "no"):
        raise Problem(400, _("turn chat on or off: yes or no"))
    await chat.set_enabled(db, user.id, choice == "yes")
    return RedirectResponse("/settings#chat-settings", 303)

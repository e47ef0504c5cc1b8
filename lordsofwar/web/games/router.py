"""Games on the web: the game and replay pages, the game API and the game's WebSocket.

The socket only moves messages: the game service decides, the hub broadcasts each player's view.
"""

# no `from __future__ import annotations`: FastAPI reads the route annotations

import json
import logging
import time
from typing import Annotated, Any

from fastapi import APIRouter, Path, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import HTMLResponse, Response

from lordsofwar.i18n import _, result_reason
from lordsofwar.rules import notation
from lordsofwar.rules.cards import CORE
from lordsofwar.web import pages
from lordsofwar.web.accounts.sessions import current_hash as current_session
from lordsofwar.web.deps import Csrf, Db, MaybeUser, Services, SignedIn, Svc, current_user, services
from lordsofwar.web.errors import COMMON, refusals
from lordsofwar.web.games.hub import Connection
from lordsofwar.web.games.rematch import rematch
from lordsofwar.web.games.runtime import GameError, Runtime, Stale, record_of
from lordsofwar.web.games.schemas import (
    ActionBody,
    Analysis,
    AnalysisStarted,
    CardFacts,
    DrawBody,
    GameState,
    Hint,
    RematchOffered,
    RematchStarted,
    Replay,
)
from lordsofwar.web.games.service import aborted, state_doc
from lordsofwar.web.models import User
from lordsofwar.web.problem import Problem

log = logging.getLogger("lordsofwar.web")
GameId = Annotated[int, Path(ge=1, le=2**31 - 1, description="a game number")]
WS_MESSAGE_LIMIT = 4096
router = APIRouter(responses=COMMON)
SEEN = refusals(403, 404)
ACTING = refusals(400, 401, 403, 404, 409, 503)
CARDS_JSON = json.dumps([card.facts() for army in CORE.armies for card in CORE.army(army)])


async def visible(svc: Services, game_id: int, user: User | None) -> tuple[Runtime, int | None]:
    """The game and the user's seat in it (None: a spectator); a private game is for its
    players only (403), an unknown one 404."""
    try:
        rt = await svc.games.runtime(game_id)
    except GameError as exc:
        raise Problem(exc.status, str(exc)) from None
    seat = rt.seat_of(user.id if user else None)
    if seat is None and not rt.game.public:
        raise Problem(403, _("this game is private: only its players can see it"))
    return rt, seat


@router.get("/games/{game_id}", response_class=HTMLResponse, include_in_schema=False)
async def game_page(request: Request, game_id: GameId, user: MaybeUser, svc: Svc) -> Response:
    rt, seat = await visible(svc, game_id, user)
    ctx = {"game_id": game_id, "seat": seat, "names": rt.names, "aborted": _aborted_note(rt)}
    return pages.render(request, "game.html", ctx, user)


def _aborted_note(rt: Runtime) -> str | None:
    """How an aborted game ended, in the page's language (None: not aborted)."""
    return result_reason(rt.game.result, rt.names) if aborted(rt.game) else None


@router.get("/games/{game_id}/replay", response_class=HTMLResponse, include_in_schema=False)
async def replay_page(request: Request, game_id: GameId, user: MaybeUser, svc: Svc) -> Response:
    rt, seat = await visible(svc, game_id, user)
    if rt.game.status != "over":
        raise Problem(409, _("the replay opens once the game is over"))
    ctx = {"game_id": game_id, "names": rt.names, "aborted": _aborted_note(rt), "seat": seat}
    return pages.render(request, "replay.html", ctx, user)


@router.get("/api/cards", response_model=list[CardFacts])
async def api_cards() -> Response:
    """Every card of the six core armies, as in the notation's card facts."""
    return Response(CARDS_JSON, media_type="application/json", headers={"Cache-Control": "public, max-age=3600"})


@router.get("/api/games/{game_id}", response_model=GameState, response_model_exclude_unset=True, responses=SEEN)
async def api_game(game_id: GameId, user: MaybeUser, svc: Svc) -> dict[str, Any]:
    """The game as you may see it: its meta data, your view, your legal actions, the log."""
    rt, seat = await visible(svc, game_id, user)
    return state_doc(rt, seat)


@router.post(
    "/api/games/{game_id}/actions",
    response_model=GameState,
    response_model_exclude_unset=True,
    dependencies=[Csrf],
    responses=ACTING,
)
async def api_act(game_id: GameId, body: ActionBody, user: SignedIn, svc: Svc) -> dict[str, Any]:
    """Play one action on the version you saw; the new state."""
    await visible(svc, game_id, user)
    rt = await svc.games.act(game_id, user.id, body.action, body.version)
    return state_doc(rt, rt.seat_of(user.id))


@router.post(
    "/api/games/{game_id}/resign",
    response_model=GameState,
    response_model_exclude_unset=True,
    dependencies=[Csrf],
    responses=ACTING,
)
async def api_resign(game_id: GameId, user: SignedIn, svc: Svc) -> dict[str, Any]:
    await visible(svc, game_id, user)
    rt = await svc.games.resign(game_id, user.id)
    return state_doc(rt, rt.seat_of(user.id))


@router.post(
    "/api/games/{game_id}/abort",
    response_model=GameState,
    response_model_exclude_unset=True,
    dependencies=[Csrf],
    responses=ACTING,
)
async def api_abort(game_id: GameId, user: SignedIn, svc: Svc) -> dict[str, Any]:
    """Abort the game while ``abortable`` (before both players have made their first turn): it
    ends with no result, rates nothing and counts in no one's results; refused (409) after that."""
    await visible(svc, game_id, user)
    rt = await svc.games.abort(game_id, user.id)
    return state_doc(rt, rt.seat_of(user.id))


@router.post(
    "/api/games/{game_id}/draw",
    response_model=GameState,
    response_model_exclude_unset=True,
    dependencies=[Csrf],
    responses=ACTING,
)
async def api_draw(game_id: GameId, body: DrawBody, user: SignedIn, svc: Svc) -> dict[str, Any]:
    """Offer a draw, or accept or decline your opponent's offer."""
    await visible(svc, game_id, user)
    rt = await svc.games.draw(game_id, user.id, body.op)
    return state_doc(rt, rt.seat_of(user.id))


@router.post("/api/games/{game_id}/hint", response_model=Hint, dependencies=[Csrf], responses=ACTING)
async def api_hint(game_id: GameId, user: SignedIn, svc: Svc) -> dict[str, Any]:
    """In a game against a bot created with hints: the top search level's preferred action for
    your decision now, searched from your own view (about a second), with the squares it names,
    its estimated win probability and the runners-up."""
    await visible(svc, game_id, user)
    return await svc.games.hints.ask(game_id, user.id)


@router.post(
    "/api/games/{game_id}/analysis",
    response_model=AnalysisStarted,
    response_model_exclude_unset=True,
    dependencies=[Csrf],
    responses=ACTING,
)
async def api_analyse(game_id: GameId, user: SignedIn, svc: Svc) -> dict[str, Any]:
    """Analyse a finished game with the top search level (once per game: a second request gets
    the stored analysis or its progress): ``{status, done, total, level, result, error}``,
    ``started`` saying whether this request started it (docs/bots.md, "Analysis")."""
    await visible(svc, game_id, user)
    doc, started = await svc.games.analyses.start(game_id, user.id)
    return {**doc, "started": started}


@router.get("/api/games/{game_id}/analysis", response_model=Analysis, response_model_exclude_unset=True, responses=SEEN)
async def api_analysis(game_id: GameId, user: MaybeUser, svc: Svc) -> dict[str, Any]:
    """The game's analysis: its progress while it runs, then ``result``: per action the
    preferred action, the estimates and a verdict, and player 1's win-probability graph."""
    await visible(svc, game_id, user)
    doc = await svc.games.analyses.get(game_id)
    if doc is None:
        raise Problem(404, _("this game has not been analysed yet: ask for an analysis first"))
    return doc


@router.post(
    "/api/games/{game_id}/rematch",
    response_model=RematchStarted | RematchOffered,
    dependencies=[Csrf],
    status_code=201,
    responses=ACTING,
)
async def api_rematch(game_id: GameId, db: Db, user: SignedIn, svc: Svc) -> dict[str, Any]:
    """A new game with the same options and the sides swapped: at once against a bot, else
    a challenge to the opponent (it waits in their lobby)."""
    rt, _seat = await visible(svc, game_id, user)
    return await rematch(db, svc.games, rt, user)


@router.get(
    "/api/games/{game_id}/record",
    responses={**SEEN, **refusals(409), 200: {"content": {"application/json": {}}, "description": "the game record"}},
)
async def api_record(game_id: GameId, user: MaybeUser, svc: Svc) -> Response:
    """The game record (notation.md section 5), once the game is over."""
    rt, _seat = await visible(svc, game_id, user)
    if rt.game.status != "over":
        raise Problem(409, _("the record can be downloaded once the game is over (it holds the seed and decks)"))
    body = json.dumps(record_of(rt).to_json(), indent=1, ensure_ascii=False)
    headers = {"Content-Disposition": f'attachment; filename="lordsofwar-game-{game_id}.json"'}
    return Response(body, media_type="application/json", headers=headers)


@router.get(
    "/api/games/{game_id}/replay",
    response_model=Replay,
    response_model_exclude_unset=True,
    responses={**SEEN, **refusals(409)},
)
async def api_replay(game_id: GameId, user: MaybeUser, svc: Svc) -> dict[str, Any]:
    """The record, every position of the game and the log, once the game is over."""
    rt, _seat = await visible(svc, game_id, user)
    if rt.game.status != "over":
        raise Problem(409, _("the replay opens once the game is over"))
    record = record_of(rt)
    positions = notation.replay(record)
    return {
        "record": record.to_json(),
        "positions": [notation.position_to_json(p) for p in positions],
        "log": rt.log,
        "names": {"1": rt.names[1], "2": rt.names[2]},
    }


@router.websocket("/api/games/{game_id}/ws")
async def game_socket(ws: WebSocket, game_id: GameId) -> None:
    """The live game: a ``state`` first, then an ``update`` after each change (docs/web-api.md).

    A refusal at connect is sent as a close code after the handshake (4403 another site or a
    private game, 4404 no such game), so that a browser can read it."""
    svc = services(ws)
    origin = ws.headers.get("origin")
    host = ws.headers.get("host")
    scheme = "https" if ws.url.scheme == "wss" else "http"
    if origin is not None and origin != f"{scheme}://{host}":
        await ws.accept()
        await ws.close(code=4403, reason="cross-site WebSocket refused")
        return
    user = await current_user(ws, svc)
    try:
        rt, seat = await visible(svc, game_id, user)
    except Problem as exc:
        await ws.accept()
        await ws.close(code=4000 + exc.status, reason=exc.message[:120])
        return
    await ws.accept()
    conn = Connection(ws, game_id, seat, user.id if user else None, current_session(ws) if user else None)
    conn.start()
    async with rt.lock:  # no change slips between the state and the first update
        svc.hub.join(conn)
        conn.send({"type": "state", **state_doc(rt, seat)})
    try:
        while not conn.closed:
            message = await ws.receive()
            if message["type"] == "websocket.disconnect":
                break
            text = message.get("text")
            if text is None:
                conn.send(
                    {
                        "type": "error",
                        "message": _("binary messages are not understood; send JSON text"),
                        "version": None,
                    }
                )
                continue
            try:
                await _on_message(svc, conn, text)
            except WebSocketDisconnect:
                raise
            except Exception:  # a message must never kill the socket: refuse it and go on
                log.exception("a socket message of game %s could not be handled", game_id)
                _refuse(svc, conn, _("the server could not handle this message; nothing changed"))
    except (WebSocketDisconnect, RuntimeError):  # the socket closed under us
        pass
    finally:
        svc.hub.leave(conn)
        await conn.stop()


def _refuse(svc: Services, conn: Connection, message: str, rule: str | None = None) -> None:
    rt = svc.games.runtimes.get(conn.game_id)
    doc: dict[str, Any] = {"type": "error", "message": message, "version": rt.game.version if rt else None}
    if rule is not None:
        doc["rule"] = rule  # the rules guide's section on this refusal
    conn.send(doc)


def _parse(text: str) -> dict[str, Any] | str:
    """The message as a JSON object, or why it is refused."""
    if len(text) > WS_MESSAGE_LIMIT:
        return _("message too long ({length} characters, at most {max})").format(length=len(text), max=WS_MESSAGE_LIMIT)
    try:
        msg = json.loads(text)
    except RecursionError:
        return _("message nested too deeply")
    except ValueError:
        return _("message is not JSON")
    return msg if isinstance(msg, dict) else {"type": None}


async def _on_message(svc: Services, conn: Connection, text: str) -> None:
    msg = _parse(text)
    if isinstance(msg, str):
        _refuse(svc, conn, msg)
        return
    kind = msg.get("type")
    if kind == "ping":
        conn.send({"type": "pong"})
        return
    if kind == "sync":
        now = time.monotonic()
        if now - conn.last_sync < 1.0:
            _refuse(svc, conn, _("too many sync requests: at most one a second"))
            return
        conn.last_sync = now
        rt = await svc.games.runtime(conn.game_id)
        conn.send({"type": "state", **state_doc(rt, conn.seat)})
        return
    if kind not in ("action", "resign", "abort", "draw"):
        _refuse(
            svc,
            conn,
            _("unknown message type {kind!r} (expected action, resign, abort, draw, sync or ping)").format(
                kind=str(kind)[:20]
            ),
        )
        return
    if conn.user_id is None or conn.seat is None:
        _refuse(svc, conn, _("spectators cannot act; sign in as a player of this game"))
        return
    try:
        if kind == "action":
            await svc.games.act(conn.game_id, conn.user_id, msg.get("action"), msg.get("version"))
        elif kind == "resign":
            await svc.games.resign(conn.game_id, conn.user_id)
        elif kind == "abort":
            await svc.games.abort(conn.game_id, conn.user_id)
        else:
            await svc.games.draw(conn.game_id, conn.user_id, msg.get("op"))
    except GameError as exc:
        _refuse(svc, conn, str(exc), exc.rule)
        if isinstance(exc, Stale):  # the client acted on an old state: send it the current one
            rt = await svc.games.runtime(conn.game_id)
            conn.send({"type": "state", **state_doc(rt, conn.seat)})

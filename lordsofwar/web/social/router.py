"""Friends, presence and blocking on the web: follow and block a player (the profile's buttons),
the friends page, the online count, and the presence socket every signed-in page opens."""

# no `from __future__ import annotations`: FastAPI reads the route annotations

import asyncio
from typing import Annotated

from fastapi import APIRouter, Path, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from starlette.requests import HTTPConnection

from lordsofwar.web import pages
from lordsofwar.web.accounts.sessions import current_hash as current_session
from lordsofwar.web.deps import Csrf, Db, MaybeUser, SignedIn, Svc, current_user, services
from lordsofwar.web.errors import COMMON, refusals
from lordsofwar.web.games.schemas import GameOptions
from lordsofwar.web.models import User
from lordsofwar.web.social import service
from lordsofwar.web.social.presence import Listener, Presence
from lordsofwar.web.social.schemas import Friend, Friends, Online, Relation

router = APIRouter(responses=COMMON)
Name = Annotated[str, Path(min_length=1, max_length=100, description="a player's name")]


def presence(conn: HTTPConnection) -> Presence:
    p: Presence = conn.app.state.presence
    return p


async def _relation(request: Request, db: Db, user: User, other: User) -> Relation:
    rel = await service.relation(db, user, other)
    online = await service.is_online(db, presence(request), user, other)
    return Relation(name=other.name, online=online, **rel)


@router.get("/api/players/{name}/relation", responses=refusals(401, 403, 404))
async def api_relation(request: Request, name: Name, db: Db, user: SignedIn) -> Relation:
    """Whether you follow and block the player, and whether they are online (as you may know it)."""
    other = await service.find_other(db, user, name)
    return await _relation(request, db, user, other)


@router.post("/api/players/{name}/follow", dependencies=[Csrf], responses=refusals(401, 403, 404, 409))
async def api_follow(request: Request, name: Name, db: Db, user: SignedIn) -> Relation:
    """Follow the player: they join your friends page (following twice changes nothing)."""
    other = await service.follow(db, user, name)
    return await _relation(request, db, user, other)


@router.delete("/api/players/{name}/follow", dependencies=[Csrf], responses=refusals(401, 403, 404))
async def api_unfollow(request: Request, name: Name, db: Db, user: SignedIn) -> Relation:
    """Stop following the player."""
    other = await service.unfollow(db, user, name)
    return await _relation(request, db, user, other)


@router.post("/api/players/{name}/block", dependencies=[Csrf], responses=refusals(401, 403, 404, 409))
async def api_block(request: Request, name: Name, db: Db, user: SignedIn, svc: Svc) -> Relation:
    """Block the player: neither of you can challenge or chat with the other, they no longer see
    whether you are online, and the open challenges between you are withdrawn. They are not told."""
    other, changed = await service.block(db, user, name)
    if changed:
        svc.hub.tell_users(changed)
    return await _relation(request, db, user, other)


@router.delete("/api/players/{name}/block", dependencies=[Csrf], responses=refusals(401, 403, 404))
async def api_unblock(request: Request, name: Name, db: Db, user: SignedIn) -> Relation:
    """Stop blocking the player."""
    other = await service.unblock(db, user, name)
    return await _relation(request, db, user, other)


@router.get("/api/friends", responses=refusals(401))
async def api_friends(request: Request, response: Response, db: Db, user: SignedIn) -> Friends:
    """The players you follow with who of them is online, the players you block, and how many
    players are online on the site."""
    response.headers["Cache-Control"] = "no-store"
    p = presence(request)
    friends = [Friend(**f) for f in await service.friends(db, p, user)]
    return Friends(friends=friends, blocks=await service.blocks(db, user), online=await p.count())


@router.get("/api/online")
async def api_online(request: Request, response: Response) -> Online:
    """How many players are online on the site now (no names)."""
    response.headers["Cache-Control"] = "no-store"
    return Online(count=await presence(request).count())


@router.get("/friends", response_class=HTMLResponse, include_in_schema=False)
async def friends_page(request: Request, db: Db, user: MaybeUser) -> Response:
    if user is None:
        return RedirectResponse("/signin?next=/friends", 303)
    p = presence(request)
    ctx = {
        "friends": await service.friends(db, p, user),
        "blocks": await service.blocks(db, user),
        "online": await p.count(),
        "defaults": GameOptions(public=True).summary(),
    }
    return pages.render(request, "friends.html", ctx, user)


@router.websocket("/api/presence/ws")
async def presence_socket(ws: WebSocket) -> None:
    """Open while a signed-in player has a page of the site open: it counts them as online
    (docs/community.md). It sends nothing and reads nothing but the close. A visitor's socket, or
    one from another site, is closed at once (4401, 4403)."""
    svc = services(ws)
    origin = ws.headers.get("origin")
    scheme = "https" if ws.url.scheme == "wss" else "http"
    await ws.accept()
    if origin is not None and origin != f"{scheme}://{ws.headers.get('host')}":
        await ws.close(code=4403, reason="cross-site WebSocket refused")
        return
    user = await current_user(ws, svc)
    if user is None:
        await ws.close(code=4401, reason="sign in first")
        return
    p = presence(ws)
    loop = asyncio.get_running_loop()
    closing: list[asyncio.Task[None]] = []
    listener = Listener(user.id, current_session(ws), lambda: closing.append(loop.create_task(ws.close(4401))))
    p.listen(listener)
    try:
        while True:
            message = await ws.receive()
            if message["type"] == "websocket.disconnect":
                break
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        p.unlisten(listener)


async def profile_context(request: Request, db: Db, user: User | None, player: User) -> dict[str, object] | None:
    """What the profile of ``player`` shows ``user`` of friends and blocks: None for a visitor
    and on one's own profile; else whether they follow and block the player, and whether the
    player is online as they may know it (never whether the player blocks them)."""
    if user is None or user.id == player.id:
        return None
    rel = await service.relation(db, user, player)
    return {**rel, "online": await service.is_online(db, presence(request), user, player)}

"""The FastAPI application: pages, the JSON API and the game WebSocket."""


import asyncio
import contextlib
import json
import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path as FilePath
from typing import Annotated, Any

from fastapi import Depends, FastAPI, HTTPException, Path, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from sqlalchemy import or_, select
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.datastructures import FormData
from starlette.exceptions import HTTPException as StarletteHTTPException

from lordsofwar import decks
from lordsofwar.bots import BOTS
from lordsofwar.rules.cards import CORE
from lordsofwar.web import auth
from lordsofwar.web import decks as deckweb
from lordsofwar.web.db import make_engine, make_sessionmaker, migrate
from lordsofwar.web.games import (
    BOT_NAMES,
    GameError,
    GameOptions,
    GameService,
    Runtime,
    record_of,
    rematch_options,
    state_doc,
)
from lordsofwar.web.hub import Connection, Hub
from lordsofwar.web.models import Game, Invitation, User
from lordsofwar.web.problem import Problem
from lordsofwar.web.settings import Settings

HERE = FilePath(__file__).parent
GameId = Annotated[int, Path(ge=1, le=2**31 - 1, description="a game number")]
InvitationId = Annotated[int, Path(ge=1, le=2**31 - 1, description="an invitation number")]
BODY_LIMIT = 64 * 1024
WS_MESSAGE_LIMIT = 4096
log = logging.getLogger("lordsofwar.web")


class BodyLimit:
    """Refuses request bodies over ``limit`` bytes, with or without a Content-Length: a body
    sent in chunks is counted as it arrives and refused once it passes the limit."""

    def __init__(self, app: Any, limit: int = BODY_LIMIT):
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        message = f"request body too large (at most {self.limit // 1024} KB)"
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.limit):
            await JSONResponse({"detail": message}, 413)(scope, receive, send)
            return
        seen = 0

        async def counted() -> Any:
            nonlocal seen
            msg = await receive()
            if msg["type"] == "http.request":
                seen += len(msg.get("body", b""))
                if seen > self.limit:
                    raise HTTPException(413, message)
            return msg

        await self.app(scope, counted, send)


# --- request bodies ----------------------------------------------------------------------------


class Credentials(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    name: str = Field(max_length=100)
    password: str = Field(max_length=1000)


class NewInvitation(BaseModel):
    model_config = ConfigDict(extra="forbid")
    options: GameOptions = Field(default_factory=lambda: GameOptions())
    opponent: str | None = Field(None, max_length=100, description="a player's name for a direct challenge")
    bot: str | None = Field(None, max_length=20, description="play against this bot at once")
    deck: int | None = Field(None, ge=1, le=2**31 - 1, strict=True, description="your custom deck (when the options allow custom decks)")


class Answer(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    deck: int | None = Field(None, ge=1, le=2**31 - 1, description="your custom deck, to accept with it")


class ActionBody(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    action: str = Field(max_length=1000)
    version: int


class DrawBody(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    op: str = Field(max_length=20)


# --- the application ---------------------------------------------------------------------------


def create_app(settings: Settings | None = None, run_migrations: bool = True) -> FastAPI:
    settings = settings or Settings()
    if run_migrations:
        migrate(settings)
    engine = make_engine(settings)
    sessions = make_sessionmaker(engine)
    service = GameService(settings, sessions)
    hub = Hub(service, settings.redis_url)
    passwords = auth.Passwords(settings)
    templates = Jinja2Templates(directory=str(HERE / "templates"))

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await hub.start()
        await service.credit_downtime()
        await service.heartbeat()
        sweeper = asyncio.get_running_loop().create_task(_sweep_forever())
        await service.resume_bots()
        try:
            yield
        finally:
            sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await sweeper
            await service.close()
            await hub.close()
            await engine.dispose()

    async def _sweep_forever() -> None:
        while True:
            await asyncio.sleep(settings.sweep_interval)
            try:
                await service.sweep()
                await service.heartbeat()
            except Exception:
                log.exception("the clock sweep failed")

    app = FastAPI(title="Lords of War", lifespan=lifespan, docs_url="/api/docs", openapi_url="/api/openapi.json")
    app.state.settings = settings
    app.state.service = service
    app.state.hub = hub
    app.mount("/static", StaticFiles(directory=str(HERE / "static")), name="static")

    # --- plumbing -------------------------------------------------------------------------------

    app.add_middleware(BodyLimit)

    @app.middleware("http")
    async def limits_and_cookies(request: Request, call_next: Any) -> Response:
        csrf = request.cookies.get(auth.CSRF_COOKIE)
        fresh = None
        if not csrf or len(csrf) > 100:
            fresh = auth.new_token()
        request.state.csrf = fresh or csrf
        response: Response = await call_next(request)
        if fresh:
            _set_cookie(response, auth.CSRF_COOKIE, fresh, request=request)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("X-Frame-Options", "DENY")
        response.headers.setdefault("Referrer-Policy", "same-origin")
        return response

    def _set_cookie(
        response: Response, name: str, value: str, max_age: int | None = None, request: Request | None = None
    ) -> None:
        secure = settings.secure_cookies or (request is not None and request.url.scheme == "https")
        response.set_cookie(name, value, max_age=max_age, httponly=True, samesite="lax", secure=secure, path="/")

    async def get_db() -> AsyncIterator[AsyncSession]:
        async with sessions() as db:
            yield db

    Db = Annotated[AsyncSession, Depends(get_db)]

    async def current_user(request: Request) -> User | None:
        # a session of its own, closed at once: the connection is not held for the request
        async with sessions() as db:
            return await auth.session_user(db, request.cookies.get(auth.SESSION_COOKIE))

    MaybeUser = Annotated[User | None, Depends(current_user)]

    async def required_user(user: MaybeUser) -> User:
        if user is None:
            raise Problem(401, "sign in first")
        return user

    SignedIn = Annotated[User, Depends(required_user)]

    def check_csrf(request: Request, token: str | None) -> None:
        if not auth.same_token(request.cookies.get(auth.CSRF_COOKIE), token):
            raise Problem(403, "CSRF token missing or wrong: reload the page")

    async def csrf_header(request: Request) -> None:
        check_csrf(request, request.headers.get("x-csrf-token"))

    Csrf = Depends(csrf_header)

    @app.exception_handler(Problem)
    async def on_problem(request: Request, exc: Problem) -> Response:
        if _wants_html(request):
            return _page(request, "error.html", {"status": exc.status, "message": exc.message}, None, exc.status)
        return JSONResponse({"detail": exc.message}, exc.status)

    @app.exception_handler(GameError)
    async def on_game_error(request: Request, exc: GameError) -> Response:
        return JSONResponse({"detail": str(exc)}, exc.status)

    @app.exception_handler(auth.AuthError)
    async def on_auth_error(request: Request, exc: auth.AuthError) -> Response:
        return JSONResponse({"detail": str(exc)}, exc.status)

    @app.exception_handler(RequestValidationError)
    async def on_validation(request: Request, exc: RequestValidationError) -> Response:
        return JSONResponse({"detail": _validation_message(exc.errors())}, 422)

    @app.exception_handler(StarletteHTTPException)
    async def on_http(request: Request, exc: StarletteHTTPException) -> Response:
        message = exc.detail if isinstance(exc.detail, str) else "request refused"
        if exc.status_code == 404:
            message = f"there is no page {request.url.path}"
        if _wants_html(request):
            return _page(request, "error.html", {"status": exc.status_code, "message": message}, None, exc.status_code)
        return JSONResponse({"detail": message}, exc.status_code)

    def _page(
        request: Request, name: str, context: dict[str, Any], user: User | None, status: int = 200
    ) -> HTMLResponse:
        flashes = []
        flash = FLASHES.get(request.query_params.get("flash", ""))
        if flash:
            flashes.append(("info", flash))
        ctx = {"user": user, "csrf": request.state.csrf, "flashes": flashes, **context}
        return templates.TemplateResponse(request, name, ctx, status_code=status)

    # --- accounts ---------------------------------------------------------------------------------

    async def _signed_in(request: Request, response: Response, db: AsyncSession, user: User) -> Response:
        token = await auth.open_session(db, user, settings)
        await db.commit()
        _set_cookie(response, auth.SESSION_COOKIE, token, settings.session_days * 86400, request)
        _set_cookie(response, auth.CSRF_COOKIE, auth.new_token(), request=request)  # a new token after signing in
        return response

    def _ip(request: Request) -> str:
        return request.client.host if request.client else "?"

    @app.get("/api/session")
    async def api_session(request: Request, user: MaybeUser) -> dict[str, Any]:
        """Who is signed in, and the CSRF token to send as X-CSRF-Token."""
        return {"user": None if user is None else {"name": user.name}, "csrf": request.state.csrf}

    @app.post("/api/signup", dependencies=[Csrf])
    async def api_signup(request: Request, body: Credentials, db: Db) -> Response:
        user = await auth.sign_up(db, passwords, body.name, body.password)
        return await _signed_in(request, JSONResponse({"user": {"name": user.name}}, 201), db, user)

    @app.post("/api/signin", dependencies=[Csrf])
    async def api_signin(request: Request, body: Credentials, db: Db) -> Response:
        user = await auth.sign_in(db, passwords, settings, body.name, body.password, _ip(request))
        return await _signed_in(request, JSONResponse({"user": {"name": user.name}}), db, user)

    @app.post("/api/signout", dependencies=[Csrf])
    async def api_signout(request: Request, db: Db) -> Response:
        signed_out = await auth.session_user(db, request.cookies.get(auth.SESSION_COOKIE))
        await auth.close_session(db, request.cookies.get(auth.SESSION_COOKIE))
        await db.commit()
        if signed_out is not None:
            hub.drop_user(signed_out.id)
        response = JSONResponse({"user": None})
        response.delete_cookie(auth.SESSION_COOKIE, path="/")
        return response

    @app.get("/signup", response_class=HTMLResponse)
    async def signup_page(request: Request, user: MaybeUser) -> Response:
        return _page(request, "signup.html", {"error": None, "name": ""}, user)

    @app.get("/signin", response_class=HTMLResponse)
    async def signin_page(request: Request, user: MaybeUser) -> Response:
        return _page(request, "signin.html", {"error": None, "name": "", "next": _next(request)}, user)

    def _next(request: Request, form: FormData | None = None) -> str:
        target = str((form.get("next") if form else None) or request.query_params.get("next") or "/")
        return target if target.startswith("/") and not target.startswith("//") and len(target) < 200 else "/"

    @app.post("/signup", response_class=HTMLResponse)
    async def signup_form(request: Request, db: Db) -> Response:
        form = await request.form(max_files=0, max_fields=60)
        check_csrf(request, _field(form, "csrf"))
        name, password = _field(form, "name"), _field(form, "password")
        try:
            if password != _field(form, "password2"):
                raise auth.AuthError("the two passwords differ")
            user = await auth.sign_up(db, passwords, name, password)
        except auth.AuthError as exc:
            return _page(request, "signup.html", {"error": str(exc), "name": name[:30]}, None, exc.status)
        return await _signed_in(request, RedirectResponse("/?flash=welcome", 303), db, user)

    @app.post("/signin", response_class=HTMLResponse)
    async def signin_form(request: Request, db: Db) -> Response:
        form = await request.form(max_files=0, max_fields=60)
        check_csrf(request, _field(form, "csrf"))
        name = _field(form, "name")
        try:
            user = await auth.sign_in(db, passwords, settings, name, _field(form, "password"), _ip(request))
        except auth.AuthError as exc:
            ctx = {"error": str(exc), "name": name[:30], "next": _next(request, form)}
            return _page(request, "signin.html", ctx, None, exc.status)
        return await _signed_in(request, RedirectResponse(_next(request, form), 303), db, user)

    @app.post("/signout")
    async def signout_form(request: Request, db: Db) -> Response:
        form = await request.form(max_files=0, max_fields=60)
        check_csrf(request, _field(form, "csrf"))
        signed_out = await auth.session_user(db, request.cookies.get(auth.SESSION_COOKIE))
        await auth.close_session(db, request.cookies.get(auth.SESSION_COOKIE))
        await db.commit()
        if signed_out is not None:
            hub.drop_user(signed_out.id)
        response = RedirectResponse("/?flash=signed-out", 303)
        response.delete_cookie(auth.SESSION_COOKIE, path="/")
        return response

    # --- lobby ------------------------------------------------------------------------------------

    async def _lobby(db: AsyncSession, user: User | None) -> dict[str, Any]:
        open_rows = await db.execute(
            select(Invitation, User.name)
            .join(User, User.id == Invitation.creator_id)
            .where(Invitation.status == "open", Invitation.opponent_id.is_(None))
            .order_by(Invitation.id.desc())
            .limit(100)
        )
        data: dict[str, Any] = {
            "open": [_inv_json(inv, creator, None) for inv, creator in open_rows],
            "incoming": [],
            "outgoing": [],
            "your_turn": [],
            "running": [],
            "watch": [],
        }
        async def name_of(uid: int | None) -> str | None:
            # the session's identity map keeps each user once: no query twice for the same name
            found = await db.get(User, uid) if uid is not None else None
            return found.name if found else None

        if user is not None:
            invs = await db.scalars(
                select(Invitation)
                .where(
                    Invitation.status == "open",
                    or_(Invitation.creator_id == user.id, Invitation.opponent_id == user.id),
                )
                .order_by(Invitation.id.desc())
            )
            for inv in invs:
                item = _inv_json(inv, await name_of(inv.creator_id), await name_of(inv.opponent_id))
                (data["outgoing"] if inv.creator_id == user.id else data["incoming"]).append(item)
            data["open"] = [i for i in data["open"] if i["creator"] != user.name]
            mine = await deckweb.list_decks(db, user)
            data["decks"] = [{k: v for k, v in deckweb.summary(d).items() if k != "cards"} for d in mine]
            fits = deckweb.Choices(mine)
            for item in data["open"] + data["incoming"]:
                if item["options"]["custom_decks"]:  # which of my decks fit, and why the others do not
                    item["deck_choices"] = fits(item["options"]["custom_armies"])
            games = await db.scalars(
                select(Game)
                .where(Game.status == "running", or_(Game.player1_id == user.id, Game.player2_id == user.id))
                .order_by(Game.id.desc())
            )
            for g in games:
                item = await _game_json(db, g, user)
                data["running"].append(item)
                if item["your_turn"]:
                    data["your_turn"].append(item)
        watch = await db.scalars(
            select(Game).where(Game.status == "running", Game.public.is_(True)).order_by(Game.id.desc()).limit(20)
        )
        data["watch"] = [await _game_json(db, g, user) for g in watch]
        return data

    async def _game_json(db: AsyncSession, g: Game, user: User | None) -> dict[str, Any]:
        async def name(uid: int | None, bot: str | None) -> str:
            if bot:
                return BOT_NAMES.get(bot, bot)
            found = await db.get(User, uid) if uid else None
            return found.name if found else "?"

        seat = None if user is None else (1 if g.player1_id == user.id else 2 if g.player2_id == user.id else None)
        return {
            "id": g.id,
            "players": [await name(g.player1_id, g.bot1), await name(g.player2_id, g.bot2)],
            "armies": g.armies,
            "mode": g.mode,
            "status": g.status,
            "you": seat,
            "your_turn": seat is not None and g.status == "running" and g.waiting_for == seat,
            "deadline": None if g.deadline_at is None else g.deadline_at.isoformat(),
            "turns": len(g.actions),
            "result": None if g.status != "over" else {"winner": g.winner, "reason": g.reason},
        }

    def _inv_json(inv: Invitation, creator: str | None, opponent: str | None) -> dict[str, Any]:
        options = GameOptions.model_validate(inv.options)
        return {
            "id": inv.id,
            "creator": creator,
            "opponent": opponent,
            "options": options.model_dump(),
            "summary": options.summary(),
            "status": inv.status,
            "game": inv.game_id,
            # the creator's custom deck is named by its kind only: its cards stay the creator's secret
            "creator_deck": None if not inv.creator_deck else decks.kind(inv.creator_deck["cards"], CORE),
        }

    @app.get("/api/lobby")
    async def api_lobby(db: Db, user: MaybeUser) -> dict[str, Any]:
        return await _lobby(db, user)

    @app.get("/", response_class=HTMLResponse)
    async def lobby_page(request: Request, db: Db, user: MaybeUser) -> Response:
        data = await _lobby(db, user)
        ctx = {"lobby": data, "armies": list(CORE.armies), "bots": sorted(BOTS), "bot_names": BOT_NAMES}
        return _page(request, "lobby.html", ctx, user)

    async def _invite(
        db: AsyncSession, user: User, body: NewInvitation, deck_copy: dict[str, Any] | None = None
    ) -> tuple[Invitation | None, Game | None]:
        """Post an invitation (or start a bot game). ``deck_copy`` is a deck already copied (a
        rematch keeps the deck played); else ``body.deck`` is copied now, when it is chosen."""
        options = body.options
        if body.deck is not None:
            deck_copy = await deckweb.pick(db, user, body.deck, options.custom_decks, list(options.custom_armies))
        if body.bot is not None:
            if body.bot not in BOTS:
                raise Problem(400, f"unknown bot {body.bot!r} (known: {', '.join(sorted(BOTS))})")
            custom = (deck_copy["cards"] if deck_copy else None, None)
            game = await service.create(db, body.options, user, None, body.bot, custom)
            await db.commit()
            service.started(game)
            return None, game
        opponent = None
        if body.opponent:
            opponent = await db.scalar(select(User).where(User.name_key == body.opponent.strip().lower()))
            if opponent is None:
                raise Problem(404, f"there is no player called {body.opponent.strip()[:30]!r}")
            if opponent.id == user.id:
                raise Problem(400, "you cannot challenge yourself")
        pending = await db.scalar(
            select(Invitation.id).where(Invitation.creator_id == user.id, Invitation.status == "open").limit(20).offset(19)
        )
        if pending is not None:
            raise Problem(429, "you have 20 open invitations; cancel some first")
        inv = Invitation(
            creator_id=user.id,
            opponent_id=opponent.id if opponent else None,
            status="open",
            options=body.options.model_dump(),
            creator_deck=deck_copy,
        )
        db.add(inv)
        await db.commit()
        return inv, None

    async def _answer(
        db: AsyncSession, user: User, inv_id: InvitationId, op: str, deck_id: int | None = None
    ) -> Game | None:
        inv = await db.get(Invitation, inv_id)
        if inv is None:
            raise Problem(404, f"there is no invitation {inv_id}")
        if inv.status != "open":
            raise Problem(409, f"the invitation is no longer open (it was {inv.status})")
        if op == "cancel":
            if inv.creator_id != user.id:
                raise Problem(403, "only its creator can cancel an invitation")
            new_status = "cancelled"
        elif op == "decline":
            if inv.opponent_id != user.id:
                raise Problem(403, "only the challenged player can decline an invitation")
            new_status = "declined"
        elif op == "accept":
            if inv.creator_id == user.id:
                raise Problem(400, "you cannot accept your own invitation")
            if inv.opponent_id is not None and inv.opponent_id != user.id:
                raise Problem(403, "this challenge is for another player")
            new_status = "accepted"
        else:
            raise Problem(400, f"unknown answer {op!r}")
        if deck_id is not None and op != "accept":
            raise Problem(400, f"a deck goes with accepting, not with {op}")
        options = GameOptions.model_validate(inv.options)
        deck_copy = None
        if deck_id is not None:  # copied into the game now, as it is
            deck_copy = await deckweb.pick(db, user, deck_id, options.custom_decks, list(options.custom_armies))
        from sqlalchemy import update

        done = await db.execute(
            update(Invitation).where(Invitation.id == inv.id, Invitation.status == "open").values(status=new_status)
        )
        if done.rowcount != 1:  # type: ignore[attr-defined]
            await db.rollback()
            raise Problem(409, "the invitation was answered meanwhile")
        game = None
        if op == "accept":
            creator = await db.get(User, inv.creator_id)
            assert creator is not None
            creator_cards = inv.creator_deck["cards"] if inv.creator_deck else None
            custom = (creator_cards, deck_copy["cards"] if deck_copy else None)
            game = await service.create(db, options, creator, user, None, custom)
            inv.game_id = game.id
        await db.commit()
        if game is not None:
            service.started(game)
        return game

    @app.post("/api/invitations", dependencies=[Csrf], status_code=201)
    async def api_invite(body: NewInvitation, db: Db, user: SignedIn) -> dict[str, Any]:
        inv, game = await _invite(db, user, body)
        if game is not None:
            return {"game": game.id}
        assert inv is not None
        return {"invitation": inv.id}

    @app.post("/api/invitations/{inv_id}/{op}", dependencies=[Csrf])
    async def api_answer(
        inv_id: InvitationId, op: str, db: Db, user: SignedIn, body: Answer | None = None
    ) -> dict[str, Any]:
        game = await _answer(db, user, inv_id, op, body.deck if body else None)
        return {"game": None if game is None else game.id}

    @app.post("/invitations")
    async def invite_form(request: Request, db: Db, user: SignedIn) -> Response:
        form = await request.form(max_files=0, max_fields=60)
        check_csrf(request, _field(form, "csrf"))
        raw: dict[str, Any] = {}
        for key in GameOptions.model_fields:
            if key == "custom_armies":
                values = [str(v) for v in form.getlist(key)][:6]
                if values or form.get("custom_decks") in ("on", "1", "true"):
                    raw[key] = values
            elif key in ("custom_decks", "public"):
                raw[key] = form.get(key) in ("on", "1", "true")
            elif form.get(key) not in (None, ""):
                raw[key] = _field(form, key)
        against = _field(form, "against")
        try:
            options = GameOptions.model_validate(raw)
        except ValidationError as exc:
            raise Problem(422, _validation_message(exc.errors())) from None
        body = NewInvitation(options=options, opponent=None, bot=None, deck=_deck_field(form))
        if against.startswith("bot:"):
            body.bot = against[4:]
        elif against == "player":
            body.opponent = _field(form, "opponent") or None
            if not body.opponent:
                raise Problem(400, "name the player you challenge")
        inv, game = await _invite(db, user, body)
        if game is not None:
            return RedirectResponse(f"/games/{game.id}", 303)
        return RedirectResponse("/?flash=posted", 303)

    @app.post("/invitations/{inv_id}/{op}")
    async def answer_form(request: Request, inv_id: InvitationId, op: str, db: Db, user: SignedIn) -> Response:
        form = await request.form(max_files=0, max_fields=60)
        check_csrf(request, _field(form, "csrf"))
        game = await _answer(db, user, inv_id, op, _deck_field(form))
        if game is not None:
            return RedirectResponse(f"/games/{game.id}", 303)
        return RedirectResponse(f"/?flash={op}", 303)

    # --- decks -----------------------------------------------------------------------------------

    app.include_router(deckweb.router(Db, SignedIn, Csrf))

    @app.get("/decks", response_class=HTMLResponse)
    async def decks_page(request: Request, db: Db, user: MaybeUser) -> Response:
        if user is None:
            return RedirectResponse("/signin?next=/decks", 303)
        items = [deckweb.summary(d) for d in await deckweb.list_decks(db, user)]
        ctx = {"decks": items, "armies": list(CORE.armies), "limit": deckweb.DECKS_PER_PLAYER}
        return _page(request, "decks.html", ctx, user)

    @app.get("/decks/{deck_id}", response_class=HTMLResponse)
    async def deck_page(request: Request, deck_id: deckweb.DeckId, db: Db, user: MaybeUser) -> Response:
        if user is None:
            return RedirectResponse(f"/signin?next=/decks/{deck_id}", 303)
        deck = await deckweb.owned(db, user, deck_id)
        ctx = {"deck": deckweb.full(deck), "armies": list(CORE.armies)}
        return _page(request, "deck_editor.html", ctx, user)

    # --- profiles ---------------------------------------------------------------------------------

    @app.get("/players/{name}", response_class=HTMLResponse)
    async def profile_page(request: Request, name: str, db: Db, user: MaybeUser) -> Response:
        player = await db.scalar(select(User).where(User.name_key == name.lower()[:50]))
        if player is None:
            raise Problem(404, f"there is no player called {name[:30]!r}")
        query = select(Game).where(or_(Game.player1_id == player.id, Game.player2_id == player.id))
        if user is None:
            query = query.where(Game.public.is_(True))
        else:  # private games only for their players
            query = query.where(or_(Game.public.is_(True), Game.player1_id == user.id, Game.player2_id == user.id))
        games = await db.scalars(query.order_by(Game.id.desc()).limit(200))
        items = [await _game_json(db, g, player) for g in games]
        if user is None or user.id != player.id:
            for item in items:  # "your turn" is the visitor's business only on their own page
                item["your_turn"] = False
        won = sum(1 for i in items if i["result"] and i["result"]["winner"] == i["you"])
        lost = sum(1 for i in items if i["result"] and i["result"]["winner"] not in (None, i["you"]))
        drawn = sum(1 for i in items if i["result"] and i["result"]["winner"] is None)
        ctx = {"player": player, "games": items, "won": won, "lost": lost, "drawn": drawn}
        return _page(request, "profile.html", ctx, user)

    # --- games ------------------------------------------------------------------------------------

    async def _visible(game_id: GameId, user: User | None) -> tuple[Runtime, int | None]:
        try:
            rt = await service.runtime(game_id)
        except GameError as exc:
            raise Problem(exc.status, str(exc)) from None
        seat = rt.seat_of(user.id if user else None)
        if seat is None and not rt.game.public:
            raise Problem(403, "this game is private: only its players can see it")
        return rt, seat

    @app.get("/games/{game_id}", response_class=HTMLResponse)
    async def game_page(request: Request, game_id: GameId, user: MaybeUser) -> Response:
        rt, seat = await _visible(game_id, user)
        return _page(request, "game.html", {"game_id": game_id, "seat": seat, "names": rt.names}, user)

    @app.get("/games/{game_id}/replay", response_class=HTMLResponse)
    async def replay_page(request: Request, game_id: GameId, user: MaybeUser) -> Response:
        rt, _seat = await _visible(game_id, user)
        if rt.game.status != "over":
            raise Problem(409, "the replay opens once the game is over")
        return _page(request, "replay.html", {"game_id": game_id, "names": rt.names}, user)

    @app.get("/api/cards")
    async def api_cards() -> Response:
        return Response(CARDS_JSON, media_type="application/json", headers={"Cache-Control": "public, max-age=3600"})

    @app.get("/api/games/{game_id}")
    async def api_game(game_id: GameId, user: MaybeUser) -> dict[str, Any]:
        rt, seat = await _visible(game_id, user)
        return state_doc(rt, seat)

    @app.post("/api/games/{game_id}/actions", dependencies=[Csrf])
    async def api_act(game_id: GameId, body: ActionBody, user: SignedIn) -> dict[str, Any]:
        await _visible(game_id, user)
        rt = await service.act(game_id, user.id, body.action, body.version)
        return state_doc(rt, rt.seat_of(user.id))

    @app.post("/api/games/{game_id}/resign", dependencies=[Csrf])
    async def api_resign(game_id: GameId, user: SignedIn) -> dict[str, Any]:
        await _visible(game_id, user)
        rt = await service.resign(game_id, user.id)
        return state_doc(rt, rt.seat_of(user.id))

    @app.post("/api/games/{game_id}/draw", dependencies=[Csrf])
    async def api_draw(game_id: GameId, body: DrawBody, user: SignedIn) -> dict[str, Any]:
        await _visible(game_id, user)
        rt = await service.draw(game_id, user.id, body.op)
        return state_doc(rt, rt.seat_of(user.id))

    @app.post("/api/games/{game_id}/rematch", dependencies=[Csrf], status_code=201)
    async def api_rematch(game_id: GameId, db: Db, user: SignedIn) -> dict[str, Any]:
        """A new game with the same options and the sides swapped: at once against a bot, else
        a challenge to the opponent (it waits in their lobby)."""
        rt, seat = await _visible(game_id, user)
        if seat is None:
            raise Problem(403, "only the players of a game can ask for a rematch")
        g = rt.game
        if g.status != "over":
            raise Problem(409, "the game is still running")
        options = rematch_options(g, seat)
        bot = rt.bot_of(3 - seat)
        kept = None  # a custom deck is played again, as it was in this game
        if g.armies[seat - 1] not in CORE.armies:
            kept = {"name": g.armies[seat - 1], "cards": list(g.decks[seat - 1])}
        if bot is not None:
            _inv, game = await _invite(db, user, NewInvitation(options=options, opponent=None, bot=bot, deck=None), kept)
            assert game is not None
            return {"game": game.id}
        opponent = await db.get(User, g.player2_id if seat == 1 else g.player1_id)
        if opponent is None:
            raise Problem(404, "the opponent's account no longer exists")
        inv, _game = await _invite(db, user, NewInvitation(options=options, opponent=opponent.name, bot=None, deck=None), kept)
        assert inv is not None
        return {"invitation": inv.id, "opponent": opponent.name}

    @app.get("/api/games/{game_id}/record")
    async def api_record(game_id: GameId, user: MaybeUser) -> Response:
        rt, _seat = await _visible(game_id, user)
        if rt.game.status != "over":
            raise Problem(409, "the record can be downloaded once the game is over (it holds the seed and decks)")
        body = json.dumps(record_of(rt).to_json(), indent=1, ensure_ascii=False)
        headers = {"Content-Disposition": f'attachment; filename="lordsofwar-game-{game_id}.json"'}
        return Response(body, media_type="application/json", headers=headers)

    @app.get("/api/games/{game_id}/replay")
    async def api_replay(game_id: GameId, user: MaybeUser) -> dict[str, Any]:
        from lordsofwar.rules import notation

        rt, _seat = await _visible(game_id, user)
        if rt.game.status != "over":
            raise Problem(409, "the replay opens once the game is over")
        record = record_of(rt)
        positions = notation.replay(record)
        return {
            "record": record.to_json(),
            "positions": [notation.position_to_json(p) for p in positions],
            "log": rt.log,
            "names": {"1": rt.names[1], "2": rt.names[2]},
        }

    @app.websocket("/api/games/{game_id}/ws")
    async def game_socket(ws: WebSocket, game_id: GameId) -> None:
        origin = ws.headers.get("origin")
        host = ws.headers.get("host")
        scheme = "https" if ws.url.scheme == "wss" else "http"
        if origin is not None and origin != f"{scheme}://{host}":
            await ws.close(code=4403, reason="cross-site WebSocket refused")
            return
        async with sessions() as db:
            user = await auth.session_user(db, ws.cookies.get(auth.SESSION_COOKIE))
        try:
            rt, seat = await _visible(game_id, user)
        except Problem as exc:
            await ws.close(code=4000 + exc.status, reason=exc.message[:120])
            return
        await ws.accept()
        conn = Connection(ws, game_id, seat, user.id if user else None)
        conn.start()
        async with rt.lock:  # no change slips between the state and the first update
            hub.join(conn)
            conn.send({"type": "state", **state_doc(rt, seat)})
        try:
            while not conn.closed:
                message = await ws.receive()
                if message["type"] == "websocket.disconnect":
                    break
                text = message.get("text")
                if text is None:
                    conn.send({"type": "error", "message": "binary messages are not understood; send JSON text", "version": None})
                    continue
                await _on_message(conn, text)
        except (WebSocketDisconnect, RuntimeError):  # the socket closed under us
            pass
        finally:
            hub.leave(conn)
            await conn.stop()

    async def _on_message(conn: Connection, text: str) -> None:
        async def refuse(message: str) -> None:
            rt = service.runtimes.get(conn.game_id)
            conn.send({"type": "error", "message": message, "version": rt.game.version if rt else None})

        if len(text) > WS_MESSAGE_LIMIT:
            await refuse(f"message too long ({len(text)} characters, at most {WS_MESSAGE_LIMIT})")
            return
        try:
            msg = json.loads(text)
        except ValueError:
            await refuse("message is not JSON")
            return
        kind = msg.get("type") if isinstance(msg, dict) else None
        if kind == "ping":
            conn.send({"type": "pong"})
            return
        if kind == "sync":
            now = time.monotonic()
            if now - conn.last_sync < 1.0:
                await refuse("too many sync requests: at most one a second")
                return
            conn.last_sync = now
            rt = await service.runtime(conn.game_id)
            conn.send({"type": "state", **state_doc(rt, conn.seat)})
            return
        if kind not in ("action", "resign", "draw"):
            await refuse(f"unknown message type {str(kind)[:20]!r} (expected action, resign, draw, sync or ping)")
            return
        if conn.user_id is None or conn.seat is None:
            await refuse("spectators cannot act; sign in as a player of this game")
            return
        try:
            if kind == "action":
                await service.act(conn.game_id, conn.user_id, msg.get("action"), msg.get("version"))
            elif kind == "resign":
                await service.resign(conn.game_id, conn.user_id)
            else:
                await service.draw(conn.game_id, conn.user_id, msg.get("op"))
        except GameError as exc:
            await refuse(str(exc))
            rt = await service.runtime(conn.game_id)
            if "refreshed" in str(exc):
                conn.send({"type": "state", **state_doc(rt, conn.seat)})

    return app


CARDS_JSON = json.dumps([card.facts() for army in CORE.armies for card in CORE.army(army)])


FLASHES = {
    "welcome": "Welcome! Start a game below: against a bot, or challenge a player.",
    "signed-out": "Signed out.",
    "posted": "Invitation posted.",
    "cancel": "Invitation cancelled.",
    "decline": "Invitation declined.",
}
"""The only messages a redirect can show (?flash=KEY): a link cannot put words on a page."""


def _field(form: FormData, name: str, limit: int = 1000) -> str:
    value = form.get(name)
    if not isinstance(value, str):
        return ""
    if len(value) > limit:
        raise Problem(413, f"{name}: too long (at most {limit} characters)")
    return value


def _deck_field(form: FormData) -> int | None:
    """The form's ``deck`` choice: empty for the standard army deck, else a deck number."""
    value = _field(form, "deck", 20).strip()
    if not value or value == "standard":
        return None
    if not (value.isascii() and value.isdigit()) or not 1 <= int(value) < 2**31:
        raise Problem(422, f"deck: expected a deck number, got {value!r}")
    return int(value)


def _wants_html(request: Request) -> bool:
    return not request.url.path.startswith("/api/") and "text/html" in request.headers.get("accept", "")


def _validation_message(errors: Any) -> str:
    parts = []
    for err in list(errors)[:3]:
        where = ".".join(str(p) for p in err.get("loc", ()) if p != "body")
        parts.append(f"{where or 'body'}: {err.get('msg', 'invalid')}")
    return "; ".join(parts)

"""The application factory: builds the services, and assembles the routers, middleware, error
handlers and lifespan. Every route lives in its domain's router."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from lordsofwar.web import errors, middleware
from lordsofwar.web.accounts import service as accounts
from lordsofwar.web.accounts.data_router import router as account_data_router
from lordsofwar.web.accounts.limits import Guard
from lordsofwar.web.accounts.router import router as accounts_router
from lordsofwar.web.accounts.security_router import router as security_router
from lordsofwar.web.botapi.router import router as botapi_router
from lordsofwar.web.botapi.service import BotApi
from lordsofwar.web.chat.router import router as chat_router
from lordsofwar.web.chat.schemas import chat_socket_components
from lordsofwar.web.chat.service import ChatService
from lordsofwar.web.db import make_engine, make_sessionmaker, migrate
from lordsofwar.web.decks.router import router as decks_router
from lordsofwar.web.deps import Services
from lordsofwar.web.gallery.router import router as gallery_router
from lordsofwar.web.games.hub import Hub
from lordsofwar.web.games.router import router as games_router
from lordsofwar.web.games.schemas import socket_components
from lordsofwar.web.games.service import GameService
from lordsofwar.web.guide.router import router as guide_router
from lordsofwar.web.language import router as language_router
from lordsofwar.web.lessons.router import router as lessons_router
from lordsofwar.web.lobby.router import router as lobby_router
from lordsofwar.web.mistakes.router import router as mistakes_router
from lordsofwar.web.moderation.router import router as moderation_router
from lordsofwar.web.notify.router import router as notify_router
from lordsofwar.web.notify.service import Mailer
from lordsofwar.web.puzzles.router import router as puzzles_router
from lordsofwar.web.ratings.router import router as ratings_router
from lordsofwar.web.settings import Settings
from lordsofwar.web.social.presence import Presence
from lordsofwar.web.social.router import router as social_router
from lordsofwar.web.tasks import stop_tasks
from lordsofwar.web.tournaments import service as tournaments
from lordsofwar.web.tournaments.router import router as tournaments_router
from lordsofwar.web.workers.router import router as workers_router

HERE = Path(__file__).parent

log = logging.getLogger("lordsofwar.web")


def create_app(settings: Settings | None = None, run_migrations: bool = True) -> FastAPI:
    settings = settings or Settings()
    if run_migrations:
        migrate(settings)
    engine = make_engine(settings)
    sessions = make_sessionmaker(engine)
    games = GameService(settings, sessions)
    svc = Services(
        settings=settings,
        sessions=sessions,
        games=games,
        hub=Hub(games, settings.redis_url),
        passwords=accounts.Passwords(settings),
        guard=Guard(settings),
        csrf=accounts.CsrfTokens(),
    )
    advancer = tournaments.Advancer(sessions, games)
    botapi = BotApi(settings, sessions, games, svc.hub, svc.guard)
    mailer = Mailer(settings, sessions)
    presence = Presence(settings.presence_fade, settings.redis_url, settings.redis_namespace())
    svc.hub.presence = presence  # every game socket (and bot stream) of a player counts as presence

    async def sweep_forever() -> None:
        while True:
            await asyncio.sleep(settings.sweep_interval)
            try:
                await games.sweep()
                await games.heartbeat()
                await tournaments.advance_all(sessions, games)
            except Exception:
                log.exception("the clock sweep failed")

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        async with sessions() as db:
            svc.csrf.key = await accounts.server_key(db, settings)
        mailer.start(svc.csrf.key)  # its own loop (only with LOW_SMTP_URL): the outbox, SMTP, retries
        games.key = svc.csrf.key  # bots', hints' and analyses' seeds (games.service.job_seed)
        await svc.hub.start()
        await presence.start()
        await games.credit_downtime()
        await games.heartbeat()
        sweeper = asyncio.get_running_loop().create_task(sweep_forever())
        await games.resume_bots()
        botapi.start()  # the bot API's streams end as soon as the server is told to stop
        try:
            yield
        finally:
            botapi.stop()
            await stop_tasks([sweeper])
            await mailer.close()
            await advancer.close()
            await games.close()
            await svc.hub.close()
            await presence.close()
            svc.guard.close()
            await engine.dispose()

    app = FastAPI(title="Lords of War", lifespan=lifespan, docs_url="/api/docs", openapi_url="/api/openapi.json")
    app.state.services = svc
    app.state.settings = settings  # kept for tools and tests that read them
    app.state.service = games
    app.state.hub = svc.hub
    app.state.mailer = mailer
    app.state.botapi = botapi
    app.state.presence = presence
    app.state.chat = ChatService(sessions, svc.hub, svc.guard.storage)
    app.mount("/static", StaticFiles(directory=str(HERE / "static")), name="static")
    middleware.install(app)
    errors.install(app)
    for router in (
        accounts_router,
        security_router,
        account_data_router,
        lobby_router,
        games_router,
        decks_router,
        ratings_router,
        tournaments_router,
        notify_router,
        botapi_router,
        language_router,
        guide_router,
        puzzles_router,
        gallery_router,
        mistakes_router,
        social_router,
        lessons_router,
        chat_router,
        moderation_router,
        workers_router,
    ):
        app.include_router(router)
    _describe_socket(app)
    return app


def _describe_socket(app: FastAPI) -> None:
    """The OpenAPI description with the game socket's messages among its schemas: no route
    answers them, but clients generated from the description should know them too."""
    routes_only = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schemas = routes_only().setdefault("components", {}).setdefault("schemas", {})
            for name, schema in {**socket_components(), **chat_socket_components()}.items():
                schemas.setdefault(name, schema)
        assert app.openapi_schema is not None
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]

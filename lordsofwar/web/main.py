"""The ASGI entry points: ``make()`` builds the app (schema already migrated by ``serve``);
``app`` is the module-level instance for multi-process servers."""

from __future__ import annotations

from fastapi import FastAPI

from lordsofwar.web.app import create_app


def make() -> FastAPI:
    return create_app(run_migrations=False)


def __getattr__(name: str) -> FastAPI:
    if name == "app":
        return create_app(run_migrations=False)
    raise AttributeError(name)

"""Alembic environment: the URL comes from the config the server builds (see db.migrate)."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from lordsofwar.web.models import Base

config = context.config
url = config.get_main_option("sqlalchemy.url") or ""
connection = config.attributes.get("connection")


def run() -> None:
    if connection is not None:
        context.configure(connection=connection, target_metadata=Base.metadata, render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()
        return
    engine = create_engine(url)
    with engine.connect() as conn:
        context.configure(connection=conn, target_metadata=Base.metadata, render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()
    engine.dispose()


run()

"""A complete external bot for the Lords of War bot API (docs/bot-api.md), with httpx alone.

It reads its event stream, accepts every challenge to it (declines those it is told to), follows
each game's stream and plays a random legal action whenever the game waits for it, until the
game ends. Run it with a token of a bot account (scope ``bot:play``):

    python examples/bot_client.py --server http://127.0.0.1:8000 --token low_...

``--games N`` stops it after N games have finished (tests use it); ``--seed`` fixes its choices.
It upgrades the account to a bot account first when ``--upgrade`` is given.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import random
import sys
from collections.abc import AsyncIterator
from typing import Any

import httpx

log = logging.getLogger("bot_client")


class Bot:
    def __init__(self, server: str, token: str, games: int | None, seed: int | None, decline_from: set[str]):
        self.http = httpx.AsyncClient(
            base_url=server.rstrip("/"),
            headers={"Authorization": f"Bearer {token}"},
            timeout=httpx.Timeout(30.0, read=None),  # streams are quiet between keep-alives
        )
        self.games_wanted = games
        self.finished = 0
        self.random = random.Random(seed)
        self.decline_from = decline_from
        self.playing: dict[int, asyncio.Task[None]] = {}
        self.done = asyncio.Event()

    async def lines(self, path: str) -> AsyncIterator[dict[str, Any]]:
        """The JSON documents of an ndjson stream (keep-alive empty lines skipped)."""
        async with self.http.stream("GET", path) as response:
            if response.status_code != 200:
                await response.aread()
                raise RuntimeError(f"GET {path}: {response.status_code} {response.text[:200]}")
            async for line in response.aiter_lines():
                if line.strip():
                    yield json.loads(line)

    async def post(self, path: str, body: dict[str, Any] | None = None) -> httpx.Response:
        for attempt in range(5):
            r = await self.http.post(path, json=body or {})
            if r.status_code != 429:
                return r
            await asyncio.sleep(float(r.headers.get("Retry-After", "1")) * (attempt + 1))
        return r

    async def run(self) -> None:
        me = (await self.http.get("/api/bot/account")).json()
        log.info("signed in as %s", me.get("name"))
        events = asyncio.ensure_future(self.events())
        stop = asyncio.ensure_future(self.done.wait())
        await asyncio.wait({events, stop}, return_when=asyncio.FIRST_COMPLETED)
        for task in (events, stop, *self.playing.values()):
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        if events.done() and not events.cancelled() and events.exception() is not None:
            raise events.exception()  # type: ignore[misc]
        await self.http.aclose()

    async def events(self) -> None:
        """Read the event stream, opening it again when it ends or breaks (a server restarting):
        on reconnecting it tells the open challenges and running games again."""
        while not self.done.is_set():
            try:
                await self.read_events()
            except (httpx.HTTPError, RuntimeError) as exc:
                log.warning("event stream: %s; reconnecting", exc)
            if not self.done.is_set():
                await asyncio.sleep(1)

    async def read_events(self) -> None:
        async for event in self.lines("/api/bot/stream/event"):
            kind = event.get("type")
            if kind == "challenge":
                challenge = event["challenge"]
                if challenge.get("creator") in self.decline_from:
                    r = await self.post(f"/api/bot/challenge/{challenge['id']}/decline")
                    log.info(
                        "declined challenge %s of %s: %s", challenge["id"], challenge.get("creator"), r.status_code
                    )
                else:
                    r = await self.post(f"/api/bot/challenge/{challenge['id']}/accept")
                    log.info(
                        "accepted challenge %s of %s: %s", challenge["id"], challenge.get("creator"), r.status_code
                    )
            elif kind == "gameStart":
                game_id = int(event["game"]["id"])
                if game_id not in self.playing:
                    self.playing[game_id] = asyncio.ensure_future(self.play(game_id))
            elif kind == "gameFinish":
                game_id = int(event["game"]["id"])
                log.info("game %s finished: %s", game_id, event["game"].get("result"))
                self.finished += 1
                if self.games_wanted is not None and self.finished >= self.games_wanted:
                    # let the game's own stream finish its last lines
                    task = self.playing.get(game_id)
                    if task is not None:
                        with contextlib.suppress(Exception):
                            await asyncio.wait_for(asyncio.shield(task), 10)
                    self.done.set()
                    return

    async def play(self, game_id: int) -> None:
        """Follow one game's stream; act on every message that offers legal actions, once per version."""
        acted_on = -1
        while True:
            try:
                async for msg in self.lines(f"/api/bot/game/stream/{game_id}"):
                    if msg.get("type") not in ("state", "update"):
                        continue
                    game = msg["game"]
                    if game["status"] != "running":
                        log.info("game %s over: %s", game_id, game["result"])
                        return
                    version = int(game["version"])
                    if msg["legal"] and version > acted_on:
                        acted_on = version
                        action = self.choose(msg)
                        r = await self.post(f"/api/bot/game/{game_id}/move", {"action": action, "version": version})
                        if r.status_code != 200:  # stale or refused: the stream brings the next state
                            log.info("game %s: %s refused (%s): %s", game_id, action, r.status_code, r.text[:200])
                return
            except (httpx.HTTPError, RuntimeError) as exc:  # the stream broke: open it again
                log.warning("game %s stream: %s; reconnecting", game_id, exc)
                await asyncio.sleep(1)

    def choose(self, msg: dict[str, Any]) -> str:
        """A random legal action, preferring anything to ending the turn early."""
        legal: list[str] = msg["legal"]
        busy = [a for a in legal if not a.startswith(("pass", "draw"))]
        return self.random.choice(busy or legal)


async def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="A random-playing Lords of War bot for the bot API")
    parser.add_argument("--server", required=True, help="the server's address, e.g. http://127.0.0.1:8000")
    parser.add_argument("--token", required=True, help="a personal access token with the scope bot:play")
    parser.add_argument("--games", type=int, default=None, help="stop after this many games have finished")
    parser.add_argument("--seed", type=int, default=None, help="seed of the random choices")
    parser.add_argument("--upgrade", action="store_true", help="turn the account into a bot account first")
    parser.add_argument("--decline", action="append", default=[], help="decline challenges of this player")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    bot = Bot(args.server, args.token, args.games, args.seed, set(args.decline))
    if args.upgrade:
        r = await bot.http.post("/api/bot/account/upgrade")
        if r.status_code != 200:
            print(f"upgrade refused: {r.status_code} {r.text}", file=sys.stderr)
            return 1
    await bot.run()
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

"""Ratings with OpenSkill (Plackett-Luce, the maintained successor of TrueSkill), one per pool.

**Pools**: ``live`` (games with a clock) and ``turn`` (turn-based, days per turn). Yucata keeps
one rating per game and lichess one per speed; Lords of War played in minutes and played over
days ask different things of a player (quick reading against careful planning), and many
players play only one way, so each pool is rated apart. Rules variants (basic, visible hands,
unbordered mat, game length) are not split further: the pools would be too thin to rank anyone.

A rating is OpenSkill's ``mu`` and ``sigma`` (25 and 25/3 for a new player). What players see is
``mu`` on a familiar scale, ``round(mu * 60)`` (1500 for a new player), marked provisional while
``sigma`` is above :data:`PROVISIONAL_SIGMA` (after about twelve rated games, fewer against
settled players). Leaderboards list players who are not provisional and played a rated game in
the pool within :data:`ACTIVE_DAYS`, by that displayed rating.

An aborted game (one that ended before both players made their first turn: a resignation, a
timeout, an agreed draw or the *Abort* at the start) is never rated (web.games.service), so
two accounts cannot farm a rating by resigning games unplayed.

:func:`rate_game` runs inside the transaction that ends the game, after the game's row was
updated with its version check, so a rating changes exactly once per game however many processes
try to end it; the rows of both players are locked in the order of their ids, so two games of the
same player ending at once are rated one after the other.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from openskill.models import PlackettLuce
from sqlalchemy import Connection, Table, and_, func, insert, or_, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncSession

from lordsofwar import i18n
from lordsofwar.i18n import N_, _
from lordsofwar.rules import engine
from lordsofwar.web.models import Game, Rating, RatingChange, User, utcnow
from lordsofwar.web.words import hands_words, option_word

POOLS: tuple[str, ...] = ("live", "turn")
POOL_NAMES = {"live": N_("Live"), "turn": N_("Turn-based")}


def pool_names() -> dict[str, str]:
    """Each pool's name in the current language."""
    return {pool: _(name) for pool, name in POOL_NAMES.items()}


SCALE = 60
"""Displayed rating per unit of OpenSkill's mu: a new player shows 1500."""
PROVISIONAL_SIGMA = 5.0
ACTIVE_DAYS = 30
PAGE = 50

MODEL = PlackettLuce()
RATINGS: Table = Rating.__table__  # type: ignore[assignment]
CHANGES: Table = RatingChange.__table__  # type: ignore[assignment]


def shown(mu: float) -> int:
    """The rating players see for OpenSkill's ``mu``."""
    return round(mu * SCALE)


def provisional(sigma: float) -> bool:
    return sigma > PROVISIONAL_SIGMA


def rate_game(
    conn: Connection, game_id: int, pool: str, players: tuple[int, int], winner: int | None, now: datetime | None = None
) -> list[dict[str, Any]]:
    """Rate a finished game inside the transaction that ended it (a synchronous connection):
    each player's rating row is made if missing, locked, updated, and the change recorded.
    Returns, for players 1 and 2, ``{"user_id", "before", "after", "provisional"}``."""
    now = now or utcnow()
    if players[0] == players[1]:
        raise ValueError("a player cannot be rated against themselves")
    dialect = conn.dialect.name
    make = pg_insert if dialect == "postgresql" else sqlite_insert
    for user_id in sorted(players):
        conn.execute(
            make(RATINGS)
            .values(user_id=user_id, pool=pool, mu=MODEL.mu, sigma=MODEL.sigma, games=0, wins=0, draws=0, losses=0, updated_at=now)
            .on_conflict_do_nothing(index_elements=["user_id", "pool"])
        )
    rows = conn.execute(
        select(RATINGS)
        .where(RATINGS.c.pool == pool, RATINGS.c.user_id.in_(players))
        .order_by(RATINGS.c.user_id)
        .with_for_update()
    ).mappings()
    current = {row["user_id"]: row for row in rows}
    teams = [[MODEL.rating(current[u]["mu"], current[u]["sigma"])] for u in players]
    ranks: list[float] = [1.0, 1.0] if winner is None else ([1.0, 2.0] if winner == 1 else [2.0, 1.0])
    rated = MODEL.rate(teams, ranks=ranks)
    out = []
    for seat, user_id in enumerate(players, start=1):
        before, after = current[user_id], rated[seat - 1][0]
        score = 0.5 if winner is None else float(winner == seat)
        conn.execute(
            update(RATINGS)
            .where(RATINGS.c.user_id == user_id, RATINGS.c.pool == pool)
            .values(
                mu=after.mu,
                sigma=after.sigma,
                games=RATINGS.c.games + 1,
                wins=RATINGS.c.wins + int(score == 1),
                draws=RATINGS.c.draws + int(score == 0.5),
                losses=RATINGS.c.losses + int(score == 0),
                updated_at=now,
            )
        )
        conn.execute(
            insert(CHANGES).values(
                game_id=game_id,
                user_id=user_id,
                pool=pool,
                mu_before=before["mu"],
                sigma_before=before["sigma"],
                mu_after=after.mu,
                sigma_after=after.sigma,
                score=score,
                created_at=now,
            )
        )
        out.append(
            {
                "user_id": user_id,
                "before": shown(before["mu"]),
                "after": shown(after.mu),
                "provisional": provisional(after.sigma),
            }
        )
    return out


async def game_changes(db: AsyncSession, game_id: int, players: tuple[int | None, int | None]) -> list[dict[str, Any]] | None:
    """What a finished rated game did to its players' ratings (as :func:`rate_game` returns
    it), or None when it changed none."""
    rows = (await db.execute(select(CHANGES).where(CHANGES.c.game_id == game_id))).mappings().all()
    by_user = {r["user_id"]: r for r in rows}
    if not all(p in by_user for p in players):
        return None
    return [
        {
            "user_id": p,
            "before": shown(by_user[p]["mu_before"]),
            "after": shown(by_user[p]["mu_after"]),
            "provisional": provisional(by_user[p]["sigma_after"]),
        }
        for p in players
    ]


def _rating_json(row: Any) -> dict[str, Any]:
    return {
        "pool": row["pool"],
        "rating": shown(row["mu"]),
        "provisional": provisional(row["sigma"]),
        "mu": round(row["mu"], 3),
        "sigma": round(row["sigma"], 3),
        "games": row["games"],
        "wins": row["wins"],
        "draws": row["draws"],
        "losses": row["losses"],
        "last_played": None if row["updated_at"] is None else row["updated_at"].isoformat(),
    }


async def player_ratings(db: AsyncSession, user_id: int) -> dict[str, dict[str, Any]]:
    """The player's rating in each pool (a new player's where they have none)."""
    rows = (await db.execute(select(RATINGS).where(RATINGS.c.user_id == user_id))).mappings().all()
    found = {r["pool"]: r for r in rows}
    new = {"mu": MODEL.mu, "sigma": MODEL.sigma, "games": 0, "wins": 0, "draws": 0, "losses": 0, "updated_at": None}
    return {pool: _rating_json(found.get(pool) or {"pool": pool, **new}) for pool in POOLS}


async def history(db: AsyncSession, user_id: int, pool: str, limit: int = 500) -> list[dict[str, Any]]:
    """The player's rating after each rated game in ``pool``, oldest first (the last ``limit``)."""
    rows = (
        await db.execute(
            select(CHANGES)
            .where(CHANGES.c.user_id == user_id, CHANGES.c.pool == pool)
            .order_by(CHANGES.c.id.desc())
            .limit(limit)
        )
    ).mappings().all()
    return [
        {
            "game_id": r["game_id"],
            "at": r["created_at"].isoformat(),
            "rating": shown(r["mu_after"]),
            "change": shown(r["mu_after"]) - shown(r["mu_before"]),
            "provisional": provisional(r["sigma_after"]),
            "score": r["score"],
        }
        for r in reversed(rows)
    ]


async def leaderboard(
    db: AsyncSession, pool: str, page: int = 1, now: datetime | None = None, provisional_players: bool = False
) -> dict[str, Any]:
    """Active, settled players of ``pool`` by displayed rating, ``PAGE`` a page (1 first); with
    ``provisional_players``, the active players whose rating is still provisional instead."""
    now = now or utcnow()
    since = now - timedelta(days=ACTIVE_DAYS)
    users: Table = User.__table__  # type: ignore[assignment]
    settled = RATINGS.c.sigma > PROVISIONAL_SIGMA if provisional_players else RATINGS.c.sigma <= PROVISIONAL_SIGMA
    where = and_(RATINGS.c.pool == pool, settled, RATINGS.c.updated_at >= since)
    total = int((await db.execute(select(func.count()).select_from(RATINGS).where(where))).scalar_one())
    rows = (
        await db.execute(
            select(RATINGS, users.c.name)
            .join(users, users.c.id == RATINGS.c.user_id)
            .where(where)
            .order_by(RATINGS.c.mu.desc(), RATINGS.c.sigma, users.c.name_key)
            .offset((page - 1) * PAGE)
            .limit(PAGE)
        )
    ).mappings().all()
    first = (page - 1) * PAGE
    return {
        "pool": pool,
        "page": page,
        "pages": max(1, -(-total // PAGE)),
        "total": total,
        "active_days": ACTIVE_DAYS,
        "provisional_players": provisional_players,
        "players": [{"rank": first + i + 1, "name": r["name"], **_rating_json(r)} for i, r in enumerate(rows)],
    }


async def position(db: AsyncSession, user_id: int, pool: str, now: datetime | None = None) -> dict[str, Any] | None:
    """Where a player stands in ``pool``: their rating (:func:`_rating_json`) and ``rank``, their
    place on the leaderboard in its order (None while provisional or not active within
    ``ACTIVE_DAYS``); None before their first rated game there."""
    since = (now or utcnow()) - timedelta(days=ACTIVE_DAYS)
    mine = select(RATINGS, (RATINGS.c.updated_at >= since).label("active"))
    row = (await db.execute(mine.where(RATINGS.c.user_id == user_id, RATINGS.c.pool == pool))).mappings().first()
    if row is None or row["games"] == 0:
        return None
    out = {**_rating_json(row), "rank": None, "active": bool(row["active"])}
    if out["active"] and not out["provisional"]:
        users: Table = User.__table__  # type: ignore[assignment]
        me = (await db.execute(select(users.c.name_key).where(users.c.id == user_id))).scalar_one()
        ahead = or_(
            RATINGS.c.mu > row["mu"],
            and_(RATINGS.c.mu == row["mu"], RATINGS.c.sigma < row["sigma"]),
            and_(RATINGS.c.mu == row["mu"], RATINGS.c.sigma == row["sigma"], users.c.name_key < me),
        )
        where = and_(RATINGS.c.pool == pool, RATINGS.c.sigma <= PROVISIONAL_SIGMA, RATINGS.c.updated_at >= since, ahead)
        query = select(func.count()).select_from(RATINGS.join(users, users.c.id == RATINGS.c.user_id)).where(where)
        out["rank"] = int((await db.execute(query)).scalar_one()) + 1
    return out


def chart(points: list[dict[str, Any]], width: int = 600, height: int = 170) -> dict[str, Any] | None:
    """An SVG line chart of a rating history (:func:`history`): it starts at the rating before
    the first game shown (1500 for a new player, so one game draws a line, not a lone dot), then
    one dot per rated game (won, drawn, lost); grid lines at round ratings; the times of the
    first and last games, as dates or, within one day, as times. None with no game."""
    if not points:
        return None
    left, right, top, bottom = 44, 10, 10, 22
    start = points[0]["rating"] - points[0]["change"]
    ratings: list[int] = [start, *(p["rating"] for p in points)]
    lo, hi = min(ratings), max(ratings)
    step = 25 if hi - lo <= 100 else 50 if hi - lo <= 250 else 100
    lo, hi = (lo // step) * step, -(-hi // step) * step
    if hi == lo:
        lo, hi = lo - step, hi + step

    def x(i: int) -> float:
        return round(left + (width - left - right) * i / len(points), 1)

    def y(r: float) -> float:
        return round(top + (height - top - bottom) * (hi - r) / (hi - lo), 1)

    dots = [
        {
            "x": x(i),
            "y": y(p["rating"]),
            "kind": "win" if p["score"] == 1 else "loss" if p["score"] == 0 else "draw",
            "title": _("{rating} ({change}) after game {game}, {date}").format(
                rating=p["rating"], change=f"{p['change']:+d}", game=p["game_id"], date=p["at"][:10]
            ),
            "game_id": p["game_id"],
        }
        for i, p in enumerate(points, start=1)
    ]
    origin = {"x": x(0), "y": y(start), "title": _("{rating} before game {game}").format(rating=start, game=points[0]["game_id"])}
    line = " ".join(f"{d['x']},{d['y']}" for d in [origin, *dots])
    floor = height - bottom
    area = f"{origin['x']},{floor} {line} {dots[-1]['x']},{floor}"
    grid = [{"y": y(r), "label": r} for r in range(lo, hi + 1, step)]
    since, until = _time_labels(points[0]["at"], points[-1]["at"])
    return {
        "width": width,
        "height": height,
        "left": left,
        "right": width - right,
        "line": line,
        "area": area,
        "start": origin,
        "dots": dots,
        "grid": grid,
        "first": points[0]["at"][:10],
        "last": points[-1]["at"][:10],
        "since": since,
        "until": until,
        "bottom": height - 6,
    }


def _time_labels(first: str, last: str) -> tuple[str, str]:
    """The chart's labels for the first and last games' times (ISO): their dates when the days
    differ; within one day the date and time, then the time; one label (the last, the date and
    time) when both are the same minute; times in UTC, as with a single game."""
    if first[:10] != last[:10]:
        return first[:10], last[:10]
    if first[11:16] != last[11:16]:
        return f"{first[:10]} {first[11:16]}", f"{last[11:16]} UTC"
    return "", f"{last[:10]} {last[11:16]} UTC"


def results_by(games: list[Game], user_id: int) -> dict[str, list[dict[str, Any]]]:
    """A player's finished games counted by the army they played and by variant: for each,
    ``{"label", "won", "drawn", "lost", "games"}``, the most played first. Aborted games (ended
    before both players made their first turn) are no games: left out."""
    tables: dict[str, dict[str, dict[str, Any]]] = {"army": {}, "variant": {}}
    for g in games:
        if g.status != "over" or engine.is_aborted(g.result):
            continue
        seat = 1 if g.player1_id == user_id else 2 if g.player2_id == user_id else None
        if seat is None:
            continue
        outcome = "drawn" if g.winner is None else "won" if g.winner == seat else "lost"
        v = g.variant
        length = f"{v.get('units_to_win', 20)}/{v.get('commands_to_win', 4)}"
        variant = _("{rules}, {hands}, {mat}, {length}").format(
            rules=option_word(v.get("rules", "intermediate")),
            hands=hands_words(v.get("hands", "hidden")),
            mat=option_word(v.get("mat", "bordered")),
            length=length,
        )
        for table, label in (("army", i18n.army_name(g.armies[seat - 1])), ("variant", variant)):
            row = tables[table].setdefault(label, {"label": label, "won": 0, "drawn": 0, "lost": 0, "games": 0})
            row[outcome] += 1
            row["games"] += 1
    return {
        name: sorted(rows.values(), key=lambda r: (-r["games"], r["label"])) for name, rows in tables.items()
    }

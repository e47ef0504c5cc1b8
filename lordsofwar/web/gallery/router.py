"""The card gallery: the page (/learn/cards) and the cards' figures in rated games (/api/learn/cards)."""

# no `from __future__ import annotations`: FastAPI reads the route annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, Response

from lordsofwar import i18n
from lordsofwar.i18n import N_, _
from lordsofwar.rules.cards import CLASSES, CORE, CORE_ARMIES, DIRECTIONS, RANKS, Card
from lordsofwar.web import pages
from lordsofwar.web.deps import MaybeUser, Svc
from lordsofwar.web.errors import COMMON
from lordsofwar.web.gallery.schemas import CardStatsDoc
from lordsofwar.web.gallery.service import MIN_SAMPLE, CardStats
from lordsofwar.web.problem import Problem

router = APIRouter(responses=COMMON)

SEARCH_LIMIT = 40
"""The longest text search the page takes."""

CLASS_DOES: dict[str, str] = {
    # TRANSLATORS: what a unit class does, one sentence on the card gallery (our own words)
    "infantry": N_(
        "Infantry fights with its attack arrows alone: once enemies are on the mat, it may only be "
        "deployed where at least one of its arrows strikes an enemy."
    ),
    # TRANSLATORS: what a unit class does, one sentence on the card gallery (our own words)
    "cavalry": N_(
        "Cavalry fights like infantry, but with the intermediate rules it can be taken back into the "
        "hand even while engaged (unless a spear unit engages it) and even after helping to eliminate "
        "a unit, though never in the turn it arrived."
    ),
    # TRANSLATORS: what a unit class does, one sentence on the card gallery (our own words)
    "berserker": N_(
        "With the intermediate rules, a berserker that helps to eliminate an enemy, survives and is "
        "not engaged must charge into the square the enemy left, which can start a new fight there."
    ),
    # TRANSLATORS: what a unit class does, one sentence on the card gallery (our own words)
    "spear": N_(
        "A spear unit supports: it may be deployed next to a friendly unit without striking anyone, "
        "and a cavalry unit it engages can no longer be taken back into the hand."
    ),
    # TRANSLATORS: what a unit class does, one sentence on the card gallery (our own words)
    "ranged": N_(
        "A ranged unit supports and shoots: once a turn, while no enemy engages it, it may hit one "
        "enemy on a marked square of its grid, over other units, and then adds no melee damage that turn."
    ),
}
"""One sentence per unit class, shown with each card of that class."""

DIRECTION_WORDS: dict[str, str] = {
    "F": N_("front"),
    "FR": N_("front-right"),
    "R": N_("right"),
    "BR": N_("back-right"),
    "B": N_("back"),
    "BL": N_("back-left"),
    "L": N_("left"),
    "FL": N_("front-left"),
}


Filter = Annotated[str, Query(description="one of the listed values; empty: every card")]
TextFilter = Annotated[str, Query(description=f"a part of the card's name or id (at most {SEARCH_LIMIT} characters)")]


def _checked(name: str, value: str, allowed: tuple[str, ...]) -> str:
    """A filter's value, refused (a page that says why) when the gallery has no such choice."""
    if value and value not in allowed:
        raise Problem(
            422,
            _("the card gallery has no such choice of {what}: choose one from the page's lists").format(
                what={"army": _("army"), "rank": _("rank"), "class": _("class")}.get(name, name)
            ),
        )
    return value


def stats_of(request: Request) -> CardStats:
    """This application's figures (made on first use)."""
    stats: CardStats | None = getattr(request.app.state, "card_stats", None)
    if stats is None:
        stats = CardStats()
        request.app.state.card_stats = stats
    return stats


def matches(card: Card, army: str, rank: str, cls: str, text: str) -> bool:
    """Whether ``card`` passes the gallery's filters (an empty one passes every card); the text
    is looked for, case aside, in the card's name and id."""
    needle = text.strip().casefold()
    return (
        (not army or card.army == army)
        and (not rank or card.rank == rank)
        and (not cls or card.cls == cls)
        and (not needle or needle in card.name.casefold() or needle in card.id)
    )


def _percent(value: float | None) -> str | None:
    return None if value is None else f"{round(value * 100)} %"


@router.get("/api/learn/cards", response_model=CardStatsDoc)
async def api_card_stats(request: Request, svc: Svc) -> dict[str, Any]:
    """How often each card is deployed in finished rated games, and its side's win rate when it
    is (each rate only from ``min_sample`` sides on). The card facts themselves: GET /api/cards."""
    return await stats_of(request).current(svc.sessions)


@router.get("/learn/cards", response_class=HTMLResponse, include_in_schema=False)
async def gallery_page(
    request: Request,
    svc: Svc,
    user: MaybeUser,
    army: Filter = "",
    rank: Filter = "",
    cls: Annotated[str, Query(alias="class")] = "",
    q: TextFilter = "",
) -> Response:
    army = _checked("army", army, CORE_ARMIES)
    rank = _checked("rank", rank, RANKS)
    cls = _checked("class", cls, CLASSES)
    if len(q) > SEARCH_LIMIT:
        raise Problem(413, _("{name}: too long (at most {limit} characters)").format(name="q", limit=SEARCH_LIMIT))
    doc = await stats_of(request).current(svc.sessions)
    by_card = {f["card"]: f for f in doc["cards"]}
    items = []
    for card_id in CORE:
        c = CORE.card(card_id)
        f = by_card[card_id]
        items.append(
            {
                "id": c.id,
                "name": c.name,
                "army": c.army,
                "rank": c.rank,
                "cls": c.cls,
                "defence": c.defence,
                "attacks": [(i18n.gettext(DIRECTION_WORDS[d]), c.attacks[d]) for d in DIRECTIONS if d in c.attacks],
                "ranged": c.ranged,
                "command": c.is_command,
                "shown": matches(c, army, rank, cls, q),
                "held": f["held"],
                "deployed": f["deployed"],
                "deploy_share": _percent(f["deploy_share"]),
                "win_rate": _percent(f["win_rate"]),
            }
        )
    ctx = {
        "items": items,
        "shown": sum(1 for i in items if i["shown"]),
        "filters": {"army": army, "rank": rank, "class": cls, "q": q},
        "armies": list(CORE_ARMIES),
        "ranks": list(RANKS),
        "classes": list(CLASSES),
        "class_does": {k: i18n.gettext(v) for k, v in CLASS_DOES.items()},
        "games": doc["games"],
        "min_sample": MIN_SAMPLE,
        "search_limit": SEARCH_LIMIT,
    }
    return pages.render(request, "gallery.html", ctx, user)

"""The deck API (/api/decks) and the decks pages (/decks, /decks/{id})."""

# no `from __future__ import annotations`: FastAPI reads the route annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from lordsofwar import decks as rules
from lordsofwar.rules.cards import CORE
from lordsofwar.web import pages
from lordsofwar.web.decks import service
from lordsofwar.web.decks.schemas import (
    Analyse,
    DeckAnalysis,
    DeckChange,
    DeckCopy,
    DeckDeleted,
    DeckDetail,
    DeckImport,
    DeckList,
    NewDeck,
)
from lordsofwar.web.deps import Csrf, Db, MaybeUser, SignedIn
from lordsofwar.web.errors import COMMON, refusals

DeckId = Annotated[int, Path(ge=1, le=2**31 - 1, description="a deck number")]
router = APIRouter(responses=COMMON)
MINE = refusals(401, 403, 404)
ADDING = refusals(401, 403, 409)
CHANGES = refusals(401, 403, 404, 409)


@router.get("/api/decks", response_model=DeckList, responses=refusals(401))
async def api_decks(db: Db, user: SignedIn) -> dict[str, Any]:
    """Your decks (each with whether it is complete, its armies and kind)."""
    return {"decks": [service.summary(d) for d in await service.list_decks(db, user)], "limit": service.DECKS_PER_PLAYER}


@router.post("/api/decks", response_model=DeckDetail, dependencies=[Csrf], status_code=201, responses=ADDING)
async def api_create(body: NewDeck, db: Db, user: SignedIn) -> dict[str, Any]:
    """A new deck: from a core army's standard deck, from a list of cards, or empty."""
    return service.full(await service.create(db, user, body))


@router.post(
    "/api/decks/import", response_model=DeckDetail, dependencies=[Csrf], status_code=201, responses=ADDING
)
async def api_import(body: DeckImport, db: Db, user: SignedIn) -> dict[str, Any]:
    """A new deck from a deck file's text (plain text or JSON); errors name the line."""
    return service.full(await service.import_deck(db, user, body))


@router.post("/api/decks/analyse", response_model=DeckAnalysis)
async def api_analyse(body: Analyse) -> dict[str, Any]:
    """What the editor shows for a list of cards (changes nothing)."""
    service.known_cards(body.cards)
    for army in body.allowed_armies or ():
        service.known_army(army)
    return rules.analyse(body.cards, CORE, body.allowed_armies)


@router.get("/api/decks/{deck_id:int}", response_model=DeckDetail, responses=MINE)
async def api_deck(deck_id: DeckId, db: Db, user: SignedIn) -> dict[str, Any]:
    return service.full(await service.owned(db, user, deck_id))


@router.put("/api/decks/{deck_id:int}", response_model=DeckDetail, dependencies=[Csrf], responses=CHANGES)
async def api_change(deck_id: DeckId, body: DeckChange, db: Db, user: SignedIn) -> dict[str, Any]:
    """Save a deck (name and cards) over the version you edited."""
    return service.full(await service.change(db, user, deck_id, body))


@router.post(
    "/api/decks/{deck_id:int}/copy", response_model=DeckDetail, dependencies=[Csrf], status_code=201, responses=CHANGES
)
async def api_copy(deck_id: DeckId, body: DeckCopy, db: Db, user: SignedIn) -> dict[str, Any]:
    return service.full(await service.copy(db, user, deck_id, body))


@router.delete("/api/decks/{deck_id:int}", response_model=DeckDeleted, dependencies=[Csrf], responses=MINE)
async def api_delete(deck_id: DeckId, db: Db, user: SignedIn) -> dict[str, Any]:
    await service.delete(db, user, deck_id)
    return {"deleted": deck_id}


@router.get(
    "/api/decks/{deck_id:int}/export",
    responses={**MINE, 200: {"content": {"text/plain": {}, "application/json": {}}, "description": "the deck file"}},
)
async def api_export(
    deck_id: DeckId, db: Db, user: SignedIn, format: Annotated[Literal["text", "json"], Query()] = "text"
) -> Response:
    """The deck as a file to download, plain text or JSON (docs/decks.md)."""
    deck = await service.owned(db, user, deck_id)
    if format == "json":
        body, media, ext = rules.to_json(deck.name, deck.cards), "application/json", "json"
    else:
        body, media, ext = rules.to_text(deck.name, deck.cards, CORE), "text/plain; charset=utf-8", "txt"
    headers = {"Content-Disposition": service.attachment(deck.name, ext)}
    return Response(body, media_type=media, headers=headers)


@router.get("/decks", response_class=HTMLResponse, include_in_schema=False)
async def decks_page(request: Request, db: Db, user: MaybeUser) -> Response:
    if user is None:
        return RedirectResponse("/signin?next=/decks", 303)
    items = [service.summary(d) for d in await service.list_decks(db, user)]
    ctx = {"decks": items, "armies": list(CORE.armies), "limit": service.DECKS_PER_PLAYER}
    return pages.render(request, "decks.html", ctx, user)


@router.get("/decks/{deck_id}", response_class=HTMLResponse, include_in_schema=False)
async def deck_page(request: Request, deck_id: DeckId, db: Db, user: MaybeUser) -> Response:
    if user is None:
        return RedirectResponse(f"/signin?next=/decks/{deck_id}", 303)
    deck = await service.owned(db, user, deck_id)
    ctx = {"deck": service.full(deck), "armies": list(CORE.armies)}
    return pages.render(request, "deck_editor.html", ctx, user)

"""Request bodies of the deck API (strict JSON)."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from lordsofwar import decks as rules
from lordsofwar.rules.cards import DECK_SIZE

CardId = Annotated[str, Field(max_length=20)]


class NewDeck(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    name: str = Field(max_length=200)
    army: str | None = Field(None, max_length=20, description="start from this core army's standard deck")
    cards: list[CardId] | None = Field(None, max_length=DECK_SIZE, description="start from these cards")


class DeckChange(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    name: str = Field(max_length=200)
    cards: list[CardId] = Field(max_length=DECK_SIZE)
    version: int


class DeckCopy(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    name: str | None = Field(None, max_length=200)


class DeckImport(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    text: str = Field(max_length=rules.FILE_LIMIT)
    name: str | None = Field(None, max_length=200)


class Analyse(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    cards: list[CardId] = Field(max_length=2 * DECK_SIZE)
    allowed_armies: list[str] | None = Field(None, max_length=20)



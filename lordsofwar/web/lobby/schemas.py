"""Request bodies of the lobby API (strict JSON: no string for a number, no number for a flag)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from lordsofwar.web.games import GameOptions


class NewInvitation(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    options: GameOptions = Field(default_factory=lambda: GameOptions())
    opponent: str | None = Field(None, max_length=100, description="a player's name for a direct challenge")
    bot: str | None = Field(None, max_length=20, description="play against this bot at once")
    deck: int | None = Field(None, ge=1, le=2**31 - 1, description="your custom deck (when the options allow custom decks)")


class Answer(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    deck: int | None = Field(None, ge=1, le=2**31 - 1, description="your custom deck, to accept with it")


class Created(BaseModel):
    game: int | None = Field(default=None, description="the game started at once (against a bot)")
    invitation: int | None = Field(default=None, description="the invitation posted")


class Answered(BaseModel):
    game: int | None = Field(description="the game started by accepting, else null")

"""Response models of the card gallery's API (/api/learn/cards)."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field


class CardFigures(BaseModel):
    """How one card fares in the counted games (sides: a player of a finished rated game)."""

    model_config = ConfigDict(extra="forbid")
    card: str = Field(description="the card id (the facts: GET /api/cards)")
    held: int = Field(description="sides whose deck held the card")
    deployed: int = Field(description="sides that deployed it at least once")
    deploy_share: float | None = Field(description="deployed / held, 0 to 1; null below min_sample sides holding it")
    win_rate: float | None = Field(
        description="the deploying sides' score (a win 1, a draw ½) / deployed; null below min_sample sides deploying it"
    )


class CardStatsDoc(BaseModel):
    """Every card's figures over the finished rated games counted so far."""

    model_config = ConfigDict(extra="forbid")
    games: int = Field(description="finished rated games counted (aborted ones are not)")
    min_sample: int = Field(description="the fewest sides a rate is shown for")
    refresh_seconds: int = Field(description="the figures are counted again at most this often")
    updated_at: datetime | None = Field(description="when they were last counted")
    cards: list[CardFigures]

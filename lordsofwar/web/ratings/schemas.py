"""Answers of the ratings API: the leaderboards and a player's ratings with their history. They
declare every field the service sends (``extra="forbid"``: a field the service adds without
declaring it here is an error, never dropped in silence; tests/web/test_response_models.py)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

PoolName = Literal["live", "turn"]


class RatingInfo(BaseModel):
    """A player's rating in one pool (a new player's where they have played no rated game)."""

    model_config = ConfigDict(extra="forbid")
    pool: PoolName
    rating: int = Field(description="the rating players see: OpenSkill's mu times 60 (1500 for a new player)")
    provisional: bool = Field(description="sigma is still above the provisional bound (about twelve rated games)")
    mu: float = Field(description="OpenSkill's mu, to 3 decimals")
    sigma: float = Field(description="OpenSkill's sigma, to 3 decimals")
    games: int = Field(ge=0)
    wins: int = Field(ge=0)
    draws: int = Field(ge=0)
    losses: int = Field(ge=0)
    last_played: str | None = Field(description="ISO time of the last rated game in this pool, or null")


class RankedPlayer(RatingInfo):
    rank: int = Field(ge=1, description="the place on the leaderboard (1 first)")
    name: str


class Leaderboard(BaseModel):
    model_config = ConfigDict(extra="forbid")
    pool: PoolName
    page: int = Field(ge=1)
    pages: int = Field(ge=1)
    total: int = Field(ge=0, description="players listed over all pages")
    active_days: int = Field(description="a player is listed after a rated game within this many days")
    provisional_players: bool = Field(description="true: this lists the players whose rating is still provisional")
    players: list[RankedPlayer] = Field(description="this page's players by rating (50 a page)")


class RatingPoint(BaseModel):
    """The rating after one rated game."""

    model_config = ConfigDict(extra="forbid")
    game_id: int
    at: str = Field(description="ISO time")
    rating: int
    change: int = Field(description="the rating's change in that game")
    provisional: bool
    score: float = Field(description="1 a win, 0.5 a draw, 0 a loss")


class PlayerRatings(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    ratings: dict[PoolName, RatingInfo] = Field(description="the rating in each pool")
    history: dict[PoolName, list[RatingPoint]] = Field(
        description="per pool, the rating after each rated game, oldest first"
    )

"""Request bodies and response models of the exercises API (/api/learn/mistakes/...)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from lordsofwar.web.games.schemas import ACTION_MAX, Position


class Exercise(BaseModel):
    """One of your flagged decisions, to find a better action for."""

    model_config = ConfigDict(extra="forbid")
    n: int = Field(description="the step of the game (1 = its first action)")
    turn: int
    verdict: Literal["mistake", "blunder"] = Field(description="how the analysis marked the action you played")
    played: str = Field(description="the action you played (notation §4)")
    played_squares: list[str] = Field(description="the squares it names")
    drop: float | None = Field(description="how much win probability it lost against the analysis' preferred action")
    view: Position = Field(description="the position before it as you saw it then (the opponent's hand hidden)")
    legal: list[str] = Field(description="your legal actions there")


class Exercises(BaseModel):
    """Your exercises from one finished, analysed game (the preferred actions are not in it)."""

    model_config = ConfigDict(extra="forbid")
    game: int
    player: int = Field(description="your seat in the game")
    names: dict[str, str] = Field(description="the players' names by seat")
    level: str | None = Field(description="the bot level that analysed the game")
    margin: float = Field(description="a try within this much win probability of the best is accepted")
    exercises: list[Exercise]


class Try(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    action: str = Field(max_length=ACTION_MAX, description="a legal action of the exercise's position")


class Judgement(BaseModel):
    """The verdict on a try."""

    model_config = ConfigDict(extra="forbid")
    n: int
    action: str
    verdict: Literal["best", "good", "played", "worse", "unjudged"] = Field(
        description="best: the analysis' preferred action; good: within the margin of it; played: the mistake "
        "itself; worse: further below; unjudged: the search never tried this action (no verdict, try another)"
    )
    correct: bool | None = Field(description="whether the try is accepted; null when unjudged")
    win: float | None = Field(description="the try's win probability by the search")
    drop: float | None = Field(description="how far below the search's best it is")
    margin: float
    best: str | None = Field(description="the analysis' preferred action (given with a judged try only)")
    best_squares: list[str] = Field(description="the squares the preferred action names")
    win_best: float | None = Field(description="the preferred action's win probability")

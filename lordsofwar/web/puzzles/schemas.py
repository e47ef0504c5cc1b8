"""Request bodies and answers of the puzzle API (``extra="forbid"``: every field the service sends
is declared here; tests/web/test_response_models.py)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from lordsofwar.web.games.schemas import Position


class PuzzleAnswer(BaseModel):
    model_config = ConfigDict(extra="forbid")
    action: str = Field(max_length=80, description="one action of the puzzle's legal list (notation §4)")
    streak: bool = Field(
        default=False, description="true: the answer to your streak run's puzzle (signed in; a guest's run is the browser's)"
    )


class PuzzleToSolve(BaseModel):
    """A puzzle as its solver sees it: never a hidden card, a deck's order, the solution or the
    themes (those come with the verdict)."""

    model_config = ConfigDict(extra="forbid")
    id: str
    player: Literal[1, 2] = Field(description="the seat that moves: the solver's")
    view: Position = Field(description="the solver's view (notation §3): the opponent's hand hidden, decks as counts")
    deck: list[str] = Field(description="the solver's whole deck list, sorted (its contents are known, not its order)")
    known: list[str] = Field(description="cards of the opponent's hand the solver has seen")
    legal: list[str] = Field(description="every legal action of the solver, as the engine lists them")
    rating: int = Field(description="the puzzle's current rating")


class PuzzleStanding(BaseModel):
    """A player's puzzle rating and streaks."""

    model_config = ConfigDict(extra="forbid")
    rating: int = Field(description="OpenSkill's mu times 60, as the game ratings (1500 for a new player)")
    provisional: bool
    tries: int = Field(ge=0, description="rated tries: first tries at a puzzle")
    solved: int = Field(ge=0, description="rated tries that were right")
    streak: int = Field(ge=0, description="puzzles solved in the streak run under way")
    best_streak: int = Field(ge=0)


class PuzzleStreak(BaseModel):
    model_config = ConfigDict(extra="forbid")
    seed: int = Field(ge=0, description="which puzzle of each difficulty band the run picks (not a secret)")
    step: int = Field(ge=0, description="the band of the puzzle to solve now (0 the easiest)")
    streak: int = Field(ge=0, description="puzzles solved in a row in this run")
    best: int = Field(ge=0, description="the best streak (kept on the server for an account)")
    steps: int = Field(ge=0, description="how many bands there are: a run that solves them all is complete")
    kept: Literal["server", "browser"] = Field(description="who keeps the run: the server (signed in) or the browser")
    ended: bool = Field(description="true: the last answer was a miss and ended the run (this is the new run)")
    puzzle: PuzzleToSolve | None = Field(description="the puzzle of this step; null once every band is solved")


class PuzzleVerdict(BaseModel):
    model_config = ConfigDict(extra="forbid")
    puzzle: str
    action: str = Field(description="the action judged, as the engine writes it")
    correct: bool
    solution: str
    themes: list[str]
    theme_names: list[str] = Field(description="the themes in the request's language")
    margin: float = Field(description="how much better the solution's chance to win is than the next best action's")
    rated: bool = Field(description="true: your first try at this puzzle, which changed both ratings")
    change: int | None = Field(description="your rating's change, when rated")
    you: PuzzleStanding | None = Field(description="your puzzle rating and streaks after this answer (signed in)")
    puzzle_rating: int = Field(description="the puzzle's rating after this answer")
    streak: PuzzleStreak | None = Field(description="your streak run after a streak answer")


class DailyPuzzle(BaseModel):
    model_config = ConfigDict(extra="forbid")
    date: str = Field(description="the UTC day, YYYY-MM-DD")
    puzzle: PuzzleToSolve


class PuzzleTheme(BaseModel):
    model_config = ConfigDict(extra="forbid")
    tag: str
    name: str = Field(description="the theme in the request's language")
    puzzles: int = Field(ge=0)


class PuzzleItem(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str
    rating: int
    themes: list[str]
    status: Literal["new", "solved", "missed"] | None = Field(
        description="signed in: new (not tried), solved (right at some try) or missed; null for a guest"
    )


class PuzzleList(BaseModel):
    model_config = ConfigDict(extra="forbid")
    theme: str | None
    page: int = Field(ge=1)
    pages: int = Field(ge=1)
    total: int = Field(ge=0)
    puzzles: list[PuzzleItem] = Field(description="this page's puzzles, easiest first (50 a page)")
    themes: list[PuzzleTheme] = Field(description="every theme with its number of puzzles")
    you: PuzzleStanding | None = Field(description="your puzzle rating and streaks (signed in)")

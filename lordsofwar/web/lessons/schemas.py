"""Request bodies and answers of the lesson API (strict JSON)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from lordsofwar.learn.lessons import MAX_ACTIONS
from lordsofwar.web.games.schemas import Event, Position

EXACT = ConfigDict(extra="forbid")
ActionText = Annotated[
    str, Field(min_length=1, max_length=40, description="an action in notation (docs/notation.md §4)")
]
Ident = Annotated[str, Field(min_length=1, max_length=40, pattern=r"^[a-z0-9-]+$")]


class LessonExercise(BaseModel):
    model_config = EXACT
    id: str
    prompt: str
    """what the learner is asked to do"""


class LessonSummary(BaseModel):
    model_config = EXACT
    slug: str
    title: str
    summary: str
    exercises: list[str]
    """the exercise ids, in order"""


class LessonList(BaseModel):
    model_config = EXACT
    lessons: list[LessonSummary]


class LessonDoc(BaseModel):
    """A lesson's words in the page's language (positions come from the play answer)."""

    model_config = EXACT
    slug: str
    title: str
    intro: list[str]
    """the introduction's paragraphs"""
    summary: str
    exercises: list[LessonExercise]
    next: str | None
    """the next lesson's slug (None after the last)"""


class LessonPlayBody(BaseModel):
    """The learner's actions so far, replayed from the exercise's position; ``attempt``: an action
    the rules refuse that the learner tried, to be explained (it is not played)."""

    model_config = EXACT
    actions: list[ActionText] = Field(default_factory=list, max_length=MAX_ACTIONS)
    attempt: ActionText | None = None
    shown: bool = False
    """the actions are the expected answer the page played ("show me"): not recorded as solved"""


class LessonPlayState(BaseModel):
    """Where the exercise stands: the learner's view, what they may do now, and what they read."""

    model_config = EXACT
    lesson: str
    exercise: str
    you: Literal[1, 2]
    view: Position
    legal: list[str]
    """the learner's legal actions now (empty once the exercise is done or failed)"""
    status: Literal["playing", "done", "failed"]
    message: str | None
    """the explanation of the last try (success, a wrong try, a refused attempt), in the page's language"""
    events: list[Event]
    """what the last action did (and the opponent's scripted replies after it)"""
    replies: list[str]
    """the opponent's scripted actions played after the last action"""
    saved: bool
    """the exercise was recorded as solved for the signed-in player"""


class LessonAnswer(BaseModel):
    """An expected answer ("show me"): the learner's actions that meet the goal."""

    model_config = EXACT
    actions: list[str]


class LessonSolved(BaseModel):
    model_config = EXACT
    lesson: str
    exercises: list[str]
    """the solved exercises' ids, in the lesson's order"""


class LessonProgressDoc(BaseModel):
    """The lessons with a solved exercise, in teaching order."""

    model_config = EXACT
    lessons: list[LessonSolved]


class LessonProgressMerge(BaseModel):
    """A guest's progress (kept in the browser) to add to the account."""

    model_config = EXACT
    lessons: dict[Ident, Annotated[list[Ident], Field(max_length=20)]] = Field(
        max_length=40, json_schema_extra={"additionalProperties": False}  # keys only of the pattern
    )

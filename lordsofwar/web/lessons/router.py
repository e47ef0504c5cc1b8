"""The lessons: the /learn hub, /learn/lessons and /learn/lessons/{slug}, and the lesson API
(/api/learn/lessons..., /api/learn/progress). The API is stateless: a play carries the actions so far."""

# no `from __future__ import annotations`: FastAPI reads the route annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Request
from fastapi.responses import HTMLResponse, Response

from lordsofwar.learn import lessons as data
from lordsofwar.web import pages
from lordsofwar.web.deps import Csrf, Db, MaybeUser, SignedIn
from lordsofwar.web.errors import COMMON, refusals
from lordsofwar.web.lessons import service
from lordsofwar.web.lessons.schemas import (
    LessonAnswer,
    LessonDoc,
    LessonList,
    LessonPlayBody,
    LessonPlayState,
    LessonProgressDoc,
    LessonProgressMerge,
)

data.lessons()  # read and check the lessons and their texts once, at start: bad data stops the server here

Slug = Annotated[str, Path(min_length=1, max_length=40, pattern=r"^[a-z0-9-]+$", description="a lesson's slug")]
ExerciseId = Annotated[str, Path(min_length=1, max_length=40, pattern=r"^[a-z0-9-]+$", description="an exercise id")]
router = APIRouter(responses=COMMON)


@router.get("/learn", response_class=HTMLResponse, include_in_schema=False)
async def hub_page(request: Request, db: Db, user: MaybeUser) -> Response:
    done = await service.progress(db, user) if user else {}
    ctx = {"lessons": service.overview(), "done": done, "total": sum(len(les.exercises) for les in data.lessons())}
    return pages.render(request, "learn.html", ctx, user)


@router.get("/learn/lessons", response_class=HTMLResponse, include_in_schema=False)
async def lessons_page(request: Request, db: Db, user: MaybeUser) -> Response:
    done = await service.progress(db, user) if user else {}
    return pages.render(request, "lessons.html", {"lessons": service.overview(), "done": done}, user)


@router.get("/learn/lessons/{slug}", response_class=HTMLResponse, include_in_schema=False)
async def lesson_page(request: Request, slug: Slug, db: Db, user: MaybeUser) -> Response:
    les = service.lesson(slug)
    done = await service.progress(db, user) if user else {}
    ctx = {"lesson": service.document(les), "done": done.get(les.slug, [])}
    return pages.render(request, "lesson.html", ctx, user)


@router.get("/api/learn/lessons", response_model=LessonList)
async def api_lessons() -> dict[str, Any]:
    """Every lesson, in teaching order, in the request's language."""
    return {"lessons": service.overview()}


@router.get("/api/learn/lessons/{slug}", response_model=LessonDoc, responses=refusals(404))
async def api_lesson(slug: Slug) -> dict[str, Any]:
    """A lesson's words: its introduction, summary and each exercise's task."""
    return service.document(service.lesson(slug))


@router.post(
    "/api/learn/lessons/{slug}/exercises/{exercise}/play",
    response_model=LessonPlayState,
    response_model_exclude_unset=True,
    dependencies=[Csrf],
    responses=refusals(403, 404, 409, 422),
)
async def api_play(slug: Slug, exercise: ExerciseId, body: LessonPlayBody, db: Db, user: MaybeUser) -> dict[str, Any]:
    """Replay the learner's actions from the exercise's position (the opponent's scripted replies
    included) and say where it stands: the learner's view, legal actions, whether the goal is met
    and the explanation of the last try. ``attempt`` asks why the rules refuse an action (it is not
    played). An illegal action in ``actions``, or one after the end: 409, nothing recorded. A
    signed-in player's solved exercise is recorded."""
    les, ex = service.exercise(slug, exercise)
    played, doc = service.play(les, ex, body.actions, body.attempt)
    if user is not None and played.status == "done" and body.attempt is None and not body.shown:
        await service.record(db, user, [(les.slug, ex.id)])
        doc["saved"] = True
    return doc


@router.get(
    "/api/learn/lessons/{slug}/exercises/{exercise}/answer", response_model=LessonAnswer, responses=refusals(404)
)
async def api_answer(slug: Slug, exercise: ExerciseId) -> dict[str, Any]:
    """An expected answer ("show me"): actions that meet the exercise's goal."""
    _, ex = service.exercise(slug, exercise)
    return {"actions": list(ex.answer)}


@router.get("/api/learn/progress", response_model=LessonProgressDoc, responses=refusals(401))
async def api_progress(db: Db, user: SignedIn) -> dict[str, Any]:
    """Your solved exercises by lesson."""
    return service.progress_doc(await service.progress(db, user))


@router.post("/api/learn/progress", response_model=LessonProgressDoc, dependencies=[Csrf], responses=refusals(401, 403, 404))
async def api_merge(body: LessonProgressMerge, db: Db, user: SignedIn) -> dict[str, Any]:
    """Add the exercises solved while signed out (kept in the browser) to your progress; an
    unknown lesson or exercise: 422, nothing added."""
    await service.record(db, user, service.known_pairs(body.lessons))
    return service.progress_doc(await service.progress(db, user))

"""What the lesson routes do: the texts in the page's language, a play of an exercise, progress."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncSession

from lordsofwar import i18n
from lordsofwar.i18n import _
from lordsofwar.learn import lessons as data
from lordsofwar.web.models import LessonProgress, User, utcnow
from lordsofwar.web.problem import Problem


def _text(slug: str, eid: str | None, key: str) -> str:
    """A lesson text in the request's language (the test language: the English one, marked as a
    catalogued string is, so that the page checks see it as translated)."""
    return _marked(data.text(i18n.current(), slug, eid, key))


def _marked(text: str) -> str:
    return i18n.pseudo(text) if i18n.current() == i18n.PSEUDO else text


def _paragraphs(slug: str, key: str) -> list[str]:
    return [_marked(p) for p in data.text(i18n.current(), slug, None, key).split("\n\n")]


def lesson(slug: str) -> data.Lesson:
    found = data.by_slug(slug)
    if found is None:
        raise Problem(404, _("no such lesson: {slug}").format(slug=slug[:40]))
    return found


def exercise(slug: str, eid: str) -> tuple[data.Lesson, data.Exercise]:
    les = lesson(slug)
    ex = les.exercise(eid)
    if ex is None:
        raise Problem(404, _("no such exercise: {exercise}").format(exercise=eid[:40]))
    return les, ex


def summary(les: data.Lesson) -> dict[str, Any]:
    return {
        "slug": les.slug,
        "title": _text(les.slug, None, "title"),
        "summary": _text(les.slug, None, "summary"),
        "exercises": [e.id for e in les.exercises],
    }


def overview() -> list[dict[str, Any]]:
    return [summary(les) for les in data.lessons()]


def document(les: data.Lesson) -> dict[str, Any]:
    all_lessons = data.lessons()
    i = all_lessons.index(les)
    return {
        "slug": les.slug,
        "title": _text(les.slug, None, "title"),
        "intro": _paragraphs(les.slug, "intro"),
        "summary": _text(les.slug, None, "summary"),
        "exercises": [{"id": e.id, "prompt": _text(les.slug, e.id, "prompt")} for e in les.exercises],
        "next": all_lessons[i + 1].slug if i + 1 < len(all_lessons) else None,
    }


def play(
    les: data.Lesson, ex: data.Exercise, actions: Sequence[str], attempt: str | None
) -> tuple[data.Played, dict[str, Any]]:
    """Replay the learner's actions (the engine decides everything); a refused play is a 409."""
    try:
        played = data.play(ex, list(actions), attempt)
    except data.PlayError as exc:
        raise Problem(
            422 if exc.malformed else 409, str(exc), code="malformed" if exc.malformed else "illegal"
        ) from None
    message = None
    if played.message is not None:
        message = _text(les.slug, ex.id, played.message)
    elif played.refusal is not None:
        message = played.refusal
    doc = {
        "lesson": les.slug,
        "exercise": ex.id,
        "you": played.you,
        "view": played.view(),
        "legal": played.legal(),
        "status": played.status,
        "message": message,
        "events": played.events,
        "replies": played.replies,
        "saved": False,
    }
    return played, doc


async def progress(db: AsyncSession, user: User) -> dict[str, list[str]]:
    """The player's solved exercises by lesson, in the lessons' order (unknown ones left out)."""
    rows = (await db.execute(select(LessonProgress).where(LessonProgress.user_id == user.id))).scalars().all()
    solved = {(r.lesson, r.exercise) for r in rows}
    return {
        les.slug: [e.id for e in les.exercises if (les.slug, e.id) in solved]
        for les in data.lessons()
        if any((les.slug, e.id) in solved for e in les.exercises)
    }


def progress_doc(solved: Mapping[str, list[str]]) -> dict[str, Any]:
    return {"lessons": [{"lesson": slug, "exercises": ids} for slug, ids in solved.items()]}


async def record(db: AsyncSession, user: User, pairs: Sequence[tuple[str, str]]) -> None:
    """Mark exercises solved (a pair already recorded stays as it was)."""
    if not pairs:
        return
    now = utcnow()
    rows = [
        {"user_id": user.id, "lesson": slug, "exercise": eid, "solved_at": now} for slug, eid in dict.fromkeys(pairs)
    ]
    insert = pg_insert if db.get_bind().dialect.name == "postgresql" else sqlite_insert
    await db.execute(insert(LessonProgress).values(rows).on_conflict_do_nothing())
    await db.commit()


def known_pairs(doc: Mapping[str, Sequence[str]]) -> list[tuple[str, str]]:
    """The (lesson, exercise) pairs of a guest's progress that exist; an unknown one is a 404
    (well formed, but no such lesson or exercise), and nothing is added."""
    out = []
    for slug, eids in doc.items():
        les = data.by_slug(slug)
        if les is None:
            raise Problem(404, _("no such lesson: {slug}").format(slug=slug[:40]))
        for eid in dict.fromkeys(eids):
            if les.exercise(eid) is None:
                raise Problem(404, _("no such exercise: {exercise}").format(exercise=eid[:40]))
            out.append((slug, eid))
    return out

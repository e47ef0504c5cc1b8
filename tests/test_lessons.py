"""The lessons' data on the engine: every exercise's expected answer meets its goal, every listed
wrong try is legal-but-wrong or refused as the data says and gets its own explanation, the texts
are complete in every language, and malformed lesson data is refused at load with a clear message."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from lordsofwar.learn import lessons as L
from lordsofwar.rules import engine, notation
from lordsofwar.rules.actions import parse_action

ALL = [(les, ex) for les in L.lessons() for ex in les.exercises]
IDS = [f"{les.slug}.{ex.id}" for les, ex in ALL]


def test_about_ten_lessons_from_the_first_card_to_hidden_hands() -> None:
    slugs = [les.slug for les in L.lessons()]
    assert len(slugs) >= 10
    assert slugs[0] == "mat-and-cards" and slugs[-1] == "hidden-hands"
    classes = {"ranged", "spears", "berserkers", "cavalry", "reinforcement", "command-units"}
    assert classes <= set(slugs)


@pytest.mark.parametrize(("les", "ex"), ALL, ids=IDS)
def test_the_expected_answer_meets_the_goal_and_nothing_less_does(les: L.Lesson, ex: L.Exercise) -> None:
    start = ex.start()
    assert start.result is None and start.decider == ex.you
    first = L.play(ex, [])
    assert first.status == "playing" and first.legal(), "the learner must have something to do"
    for n in range(len(ex.answer)):  # every step of the answer is legal, and the goal comes only at its end
        part = L.play(ex, list(ex.answer[:n]))
        assert part.status == "playing", (ex.answer[:n], part.message)
        assert ex.answer[n] in part.legal()
    done = L.play(ex, list(ex.answer))
    assert done.status == "done" and done.message == "success"
    assert done.legal() == []
    with pytest.raises(L.PlayError, match="over"):
        L.play(ex, [*ex.answer, "draw"])


@pytest.mark.parametrize(
    ("les", "ex"), [x for x in ALL if x[1].wrong], ids=[i for i, x in zip(IDS, ALL, strict=True) if x[1].wrong]
)
def test_each_wrong_try_is_explained_as_the_data_says(les: L.Lesson, ex: L.Exercise) -> None:
    for w in ex.wrong:
        *before, last = w.example
        pos = ex.start()
        for a in before:
            pos.push(a)
        legal = engine.is_legal(pos, parse_action(last, pos))
        if w.refusal is not None:  # refused by the rules: explained without being played
            assert not legal, w
            assert engine.refuse(pos, parse_action(last, pos)).kind == w.refusal
            got = L.play(ex, before, attempt=last)
            assert got.status == "playing" and got.message == f"wrong.{w.text}" and got.refusal is None
        else:  # legal but wrong: played, and the exercise fails with this explanation
            assert legal, w
            if w.action is not None:
                assert w.action == last
            got = L.play(ex, list(w.example))
            assert got.status == "failed" and got.message == f"wrong.{w.text}", (w, got.message)
            assert got.legal() == []


def test_a_try_no_text_explains_gets_the_engines_own_reason() -> None:
    ex = _exercise("combat", "together")
    got = L.play(ex, [], attempt="deploy orcs:06 a1")
    assert got.message is None and got.refusal and "clarifications 3.3" in got.refusal
    with pytest.raises(L.PlayError, match="legal"):
        L.play(ex, [], attempt="deploy orcs:06 d5")  # a legal action is played, not explained


def test_illegal_and_malformed_actions_are_refused_naming_the_action() -> None:
    ex = _exercise("engagement", "engage")
    with pytest.raises(L.PlayError) as bad:
        L.play(ex, ["deploy orcs:06 e3"])
    assert bad.value.index == 0 and not bad.value.malformed and "3.3" in str(bad.value)
    with pytest.raises(L.PlayError) as bad:
        L.play(ex, ["fly d4"])
    assert bad.value.malformed
    with pytest.raises(L.PlayError):
        L.play(ex, ["draw"] * (L.MAX_ACTIONS + 1))


def test_the_learner_sees_only_their_own_view() -> None:
    for _les, ex in ALL:
        view = L.play(ex, []).view()
        opp = view["players"][str(3 - ex.you)]
        assert all(c is None for c in opp["hand"]), ex.id
        assert isinstance(view["players"]["1"]["deck"], int) and isinstance(view["players"]["2"]["deck"], int)


def test_scripted_replies_are_played_when_the_opponent_must_act() -> None:
    les = L.lessons()[1]
    ex = les.exercises[0]
    pos = copy.deepcopy(ex.position)
    doc = {
        "lessons": [
            {
                "slug": "s",
                "exercises": [
                    {
                        **_plain(ex),
                        "position": pos,
                        "replies": ["deploy dwarves:06 d4", "draw"],
                        "goal": [{"is": "turn_over"}, {"is": "lost", "count": 5}],
                    }
                ],
            }
        ]
    }
    lesson = L.parse_lessons(doc)[0]
    got = L.play(lesson.exercises[0], ["deploy orcs:30 e3", "draw"])
    assert got.replies == ["deploy dwarves:06 d4", "draw"] and got.status == "failed"
    assert any(e["type"] == "deploy" and e["player"] == 2 for e in got.events)


def _exercise(slug: str, eid: str) -> L.Exercise:
    les = L.by_slug(slug)
    assert les is not None
    ex = les.exercise(eid)
    assert ex is not None
    return ex


def _plain(ex: L.Exercise) -> dict[str, Any]:
    return {"id": ex.id, "position": ex.position, "goal": list(ex.goal), "answer": list(ex.answer)}


def test_every_language_has_every_text() -> None:
    for lang in L.LANGUAGES:
        for les in L.lessons():
            for path, keys in L.text_keys(les).items():
                slug, _, eid = path.partition(".")
                for key in keys:
                    assert L.text(lang, slug, eid or None, key).strip()
    assert L.text("de", "combat", None, "title") != L.text("en", "combat", None, "title")


def test_a_missing_or_different_text_is_refused() -> None:
    texts = {lang: copy.deepcopy(L.texts(lang)) for lang in L.LANGUAGES}
    del texts["pl"]["ranged"]["exercises"]["fire"]["wrong"]["no-shot"]
    with pytest.raises(L.LessonDataError, match=r"text.pl.json: ranged.fire.wrong.no-shot is missing"):
        L.check_texts(L.lessons(), texts)
    texts = {lang: copy.deepcopy(L.texts(lang)) for lang in L.LANGUAGES}
    texts["de"]["combat"]["title"] = "{name} kämpft"
    with pytest.raises(L.LessonDataError, match="placeholders differ"):
        L.check_texts(L.lessons(), texts)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda e: e["goal"].append({"is": "teleported"}), "unknown predicate 'teleported'"),
        (lambda e: e["goal"].append({"is": "on"}), "on takes"),
        (lambda e: e.update(answer=[]), "answer: at least one action"),
        (lambda e: e["position"].update(turn="x"), "position"),
        (lambda e: e.update(wrong=[{"text": "x", "example": ["draw"]}]), "exactly one of"),
        (lambda e: e.update(wrong=[{"text": "x", "refusal": "nope", "example": ["draw"]}]), "unknown refusal"),
        (lambda e: e.update(id="Bad Id"), "an id of 1-40"),
        (lambda e: e.update(by="later"), "by: 'deploy' or 'turn'"),
    ],
)
def test_malformed_lesson_data_is_refused_naming_the_field(change: Any, message: str) -> None:
    doc = json.loads((L.DATA / "lessons.json").read_text(encoding="utf-8"))
    change(doc["lessons"][2]["exercises"][0])
    with pytest.raises(L.LessonDataError, match=message):
        L.parse_lessons(doc)


def test_positions_are_notation_and_round_trip() -> None:
    for _les, ex in ALL:
        pos = ex.start()
        assert notation.position_to_json(
            notation.parse_position(notation.position_to_json(pos))
        ) == notation.position_to_json(pos)


def test_an_opponents_choice_inside_the_learners_turn_is_made_for_them() -> None:
    """Two enemy berserkers may take the square of the unit they eliminated together: the opponent
    must choose, mid-turn; without a script the first choice in string order is played."""
    pos = {
        "format": "lordsofwar-position",
        "version": 1,
        "turn": 7,
        "to_move": 1,
        "board": [
            {"square": "d2", "card": "orcs:09", "owner": 1},
            {"square": "c4", "card": "dwarves:13", "owner": 2},
            {"square": "e4", "card": "dwarves:30", "owner": 2},
        ],
        "players": {
            "1": {"hand": ["orcs:30"], "deck": ["orcs:31"]},
            "2": {"hand": ["dwarves:06"], "deck": ["dwarves:35"]},
        },
    }
    doc = {
        "lessons": [
            {"slug": "t", "exercises": [{"id": "x", "position": pos, "goal": [{"is": "drew"}], "answer": ["draw"]}]}
        ]
    }
    ex = L.parse_lessons(doc)[0].exercises[0]
    got = L.play(ex, ["deploy orcs:30 d3"])
    assert got.replies == ["advance c4 d3"] and got.status == "playing" and got.legal() == ["draw"]
    assert L.play(ex, ["deploy orcs:30 d3", "draw"]).status == "done"

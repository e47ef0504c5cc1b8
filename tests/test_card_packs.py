"""Card packs: JSON files in the card schema that add cards to the core set."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lordsofwar.rules.cards import CORE, load_card_set, parse_card_file
from lordsofwar.rules.errors import CardPackError
from lordsofwar.rules.notation import parse_position, position_to_json

RUNNER = {
    "id": "goblins:01",
    "name": "Goblin Runner",
    "rank": "recruit",
    "class": "infantry",
    "defence": 2,
    "attacks": "F3 FL1 B0",
    "moves": "F L R",
}
SLINGER = {
    "id": "goblins:02",
    "name": "Goblin Slinger",
    "rank": "regular",
    "class": "ranged",
    "defence": 2,
    "attacks": "F1",
    # Top row is furthest forward; 'U' is the unit itself.
    "ranged": {"damage": 3, "grid": ["#..", "...", ".#.", ".U#"]},
}
PACK: dict[str, Any] = {
    "format": "lordsofwar-cards",
    "version": 1,
    "title": "Test pack: goblins",
    "cards": [RUNNER, SLINGER],
}


def write_pack(tmp_path: Path, doc: Any, name: str = "goblins-pack.json") -> Path:
    path = tmp_path / name
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
    return path


def edited(change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    doc = copy.deepcopy(PACK)
    change(doc)
    return doc


# --- a valid pack ----------------------------------------------------------------------------------


def test_valid_pack_adds_its_cards(tmp_path: Path) -> None:
    cards = CORE.with_pack(write_pack(tmp_path, PACK))
    assert len(cards) == len(CORE) + 2
    assert "goblins:01" in cards and "goblins:02" in cards
    assert "goblins" in cards.armies
    assert cards.armies[:6] == CORE.armies
    assert [c.id for c in cards.army("goblins")] == ["goblins:01", "goblins:02"]
    # The core set itself is unchanged.
    assert len(CORE) == 216 and "goblins:01" not in CORE


def test_pack_unit_with_movement_arrows_has_expected_facts(tmp_path: Path) -> None:
    card = CORE.with_pack(write_pack(tmp_path, PACK)).card("goblins:01")
    assert card.facts() == {
        "id": "goblins:01",
        "army": "goblins",
        "name": "Goblin Runner",
        "rank": "recruit",
        "class": "infantry",
        "defence": 2,
        "attacks": {"F": 3, "FL": 1},  # the 0 arrow is no arrow
        "ranged": None,
        "moves": ["F", "L", "R"],
    }
    assert card.erratum is None


def test_pack_ranged_grid_becomes_right_forward_offsets(tmp_path: Path) -> None:
    card = CORE.with_pack(write_pack(tmp_path, PACK)).card("goblins:02")
    facts = card.facts()
    assert facts["class"] == "ranged"
    assert facts["attacks"] == {"F": 1}
    assert facts["moves"] == []
    assert facts["ranged"]["damage"] == 3
    # grid rows, top = furthest forward, 'U' on the bottom row in the middle column:
    #   "#.."  -> (-1, 3)
    #   ".#."  -> ( 0, 1)
    #   ".U#"  -> ( 1, 0)
    assert sorted(map(tuple, facts["ranged"]["targets"])) == [(-1, 3), (0, 1), (1, 0)]


def test_load_card_set_applies_packs_in_order(tmp_path: Path) -> None:
    first = write_pack(tmp_path, PACK)
    second_doc = edited(lambda d: d.update(cards=[dict(RUNNER, id="trolls:01", name="Troll")]))
    second = write_pack(tmp_path, second_doc, "trolls.json")
    cards = load_card_set([first, second])
    assert {"goblins:01", "goblins:02", "trolls:01"} <= set(cards)
    assert len(cards) == 219
    assert set(load_card_set([])) == set(CORE)


def test_positions_can_use_pack_cards(tmp_path: Path) -> None:
    cards = CORE.with_pack(write_pack(tmp_path, PACK))
    doc = {
        "format": "lordsofwar-position",
        "version": 1,
        "turn": 9,
        "to_move": 1,
        "board": [{"square": "d3", "card": "goblins:01", "owner": 1}],
        "players": {"1": {"hand": ["goblins:02"]}, "2": {"hand": []}},
    }
    pos = parse_position(doc, cards)
    assert position_to_json(pos)["board"] == doc["board"]


def test_pack_card_id_clashing_with_core_is_refused(tmp_path: Path) -> None:
    path = write_pack(tmp_path, edited(lambda d: d["cards"][0].update(id="orcs:07")))
    with pytest.raises(CardPackError) as err:
        CORE.with_pack(path)
    message = str(err.value)
    assert path.name in message and "orcs:07" in message and "id" in message


def test_loading_the_same_pack_twice_is_refused(tmp_path: Path) -> None:
    path = write_pack(tmp_path, PACK)
    with pytest.raises(CardPackError, match="goblins:01"):
        load_card_set([path, path])


# --- malformed packs -------------------------------------------------------------------------------


def _set(card: int, key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    return lambda d: d["cards"][card].__setitem__(key, value)


def _del(card: int, key: str) -> Callable[[dict[str, Any]], None]:
    return lambda d: d["cards"][card].__delitem__(key)


def _grid(rows: list[str]) -> Callable[[dict[str, Any]], None]:
    return lambda d: d["cards"][1]["ranged"].__setitem__("grid", rows)


# (test id, change, card id named in the message, field named in the message)
CARD_ERRORS: list[tuple[str, Callable[[dict[str, Any]], None], str, str]] = [
    ("missing-defence", _del(0, "defence"), "goblins:01", "defence"),
    ("missing-name", _del(0, "name"), "goblins:01", "name"),
    ("missing-rank", _del(1, "rank"), "goblins:02", "rank"),
    ("defence-not-a-number", _set(0, "defence", "three"), "goblins:01", "defence"),
    ("defence-null", _set(0, "defence", None), "goblins:01", "defence"),
    ("attacks-not-a-string", _set(0, "attacks", 5), "goblins:01", "attacks"),
    ("name-not-a-string", _set(0, "name", ["Goblin"]), "goblins:01", "name"),
    ("negative-defence", _set(0, "defence", -1), "goblins:01", "defence"),
    ("unknown-rank", _set(0, "rank", "captain"), "goblins:01", "rank"),
    ("unknown-class", _set(0, "class", "wizard"), "goblins:01", "class"),
    ("bad-attack-token", _set(0, "attacks", "F3 X3"), "goblins:01", "attacks"),
    ("duplicate-attack-direction", _set(0, "attacks", "F3 FL1 F2"), "goblins:01", "attacks"),
    ("attacks-under-the-old-name", _set(0, "arrows", "F3"), "goblins:01", "arrows"),
    ("bad-moves-token", _set(0, "moves", "F UP"), "goblins:01", "moves"),
    ("duplicate-moves-direction", _set(0, "moves", "F F"), "goblins:01", "moves"),
    ("grid-two-units", _grid(["#U.", "...", ".U."]), "goblins:02", "grid"),
    ("grid-no-unit", _grid(["#..", "...", "..."]), "goblins:02", "grid"),
    ("grid-ragged-rows", _grid(["#..", "..", ".U."]), "goblins:02", "grid"),
    ("grid-bad-character", _grid(["#x.", "...", ".U."]), "goblins:02", "grid"),
    ("grid-no-target", _grid(["...", ".U."]), "goblins:02", "grid"),
    ("ranged-damage-missing", lambda d: d["cards"][1]["ranged"].pop("damage"), "goblins:02", "damage"),
    ("extra-unknown-field", _set(0, "colour", "green"), "goblins:01", "colour"),
    ("bad-id-shape", _set(0, "id", "goblins-1"), "goblins-1", "id"),
    ("duplicate-id-in-file", _set(1, "id", "goblins:01"), "goblins:01", "id"),
]


@pytest.mark.parametrize(
    ("change", "card_id", "field"),
    [pytest.param(change, card_id, field, id=name) for name, change, card_id, field in CARD_ERRORS],
)
def test_malformed_card_names_file_card_and_field(
    tmp_path: Path, change: Callable[[dict[str, Any]], None], card_id: str, field: str
) -> None:
    path = write_pack(tmp_path, edited(change))
    with pytest.raises(CardPackError) as err:
        CORE.with_pack(path)
    message = str(err.value)
    assert "\n" not in message
    assert path.name in message
    assert card_id in message
    assert field in message


@pytest.mark.parametrize("with_attacks", [False, True], ids=["alone", "beside-attacks"])
def test_the_old_key_arrows_is_refused_with_its_new_name(tmp_path: Path, with_attacks: bool) -> None:
    """A pack written for the first schema (``arrows``) is refused, the message saying what to write."""

    def rename(doc: dict[str, Any]) -> None:
        card = doc["cards"][0]
        card["arrows"] = card["attacks"] if with_attacks else card.pop("attacks")

    path = write_pack(tmp_path, edited(rename))
    with pytest.raises(CardPackError) as err:
        load_card_set([path])
    assert str(err.value) == (
        f"{path}: card 'goblins:01': field 'arrows': the old name of 'attacks': write 'attacks' instead"
        " (the same value, e.g. 'F4 FR2')"
    )


@pytest.mark.parametrize("value", ["3", True], ids=["string-digits", "boolean"])
def test_defence_of_the_wrong_json_type_is_refused(tmp_path: Path, value: Any) -> None:
    path = write_pack(tmp_path, edited(_set(0, "defence", value)))
    with pytest.raises(CardPackError) as err:
        CORE.with_pack(path)
    message = str(err.value)
    assert path.name in message and "goblins:01" in message and "defence" in message


# (test id, file text or document, field or phrase named in the message)
FILE_ERRORS: list[tuple[str, Any, str]] = [
    ("bad-json", '{"format": "lordsofwar-cards", "version": 1, "cards": [', "JSON"),
    ("not-an-object", json.dumps([RUNNER]), "object"),
    ("wrong-format", edited(lambda d: d.update(format="lordsofwar-position")), "format"),
    ("missing-format", edited(lambda d: d.pop("format")), "format"),
    ("wrong-version", edited(lambda d: d.update(version=2)), "version"),
    ("version-as-string", edited(lambda d: d.update(version="1")), "version"),
    ("cards-not-a-list", edited(lambda d: d.update(cards={"goblins:01": RUNNER})), "cards"),
    ("missing-cards", edited(lambda d: d.pop("cards")), "cards"),
    ("unknown-top-level-field", edited(lambda d: d.update(author="me")), "author"),
]


@pytest.mark.parametrize(("doc", "phrase"), [pytest.param(doc, phrase, id=name) for name, doc, phrase in FILE_ERRORS])
def test_malformed_file_names_file_and_field(tmp_path: Path, doc: Any, phrase: str) -> None:
    path = write_pack(tmp_path, doc)
    with pytest.raises(CardPackError) as err:
        CORE.with_pack(path)
    message = str(err.value)
    assert "\n" not in message
    assert path.name in message
    assert phrase in message


def test_missing_file_is_refused_by_name(tmp_path: Path) -> None:
    path = tmp_path / "no-such-pack.json"
    with pytest.raises(CardPackError) as err:
        CORE.with_pack(path)
    assert "no-such-pack.json" in str(err.value)


def test_directory_is_refused_by_name(tmp_path: Path) -> None:
    folder = tmp_path / "a-folder.json"
    folder.mkdir()
    with pytest.raises(CardPackError, match="a-folder.json"):
        CORE.with_pack(folder)


def test_non_utf8_file_is_refused_by_name(tmp_path: Path) -> None:
    path = tmp_path / "latin1.json"
    path.write_bytes(b'{"title": "\xe9\xff"}')
    with pytest.raises(CardPackError, match="latin1.json"):
        CORE.with_pack(path)


def test_parse_card_file_names_the_source() -> None:
    with pytest.raises(CardPackError, match="my-source"):
        parse_card_file("[]", "my-source")
    assert [c.id for c in parse_card_file(json.dumps(PACK), "my-source")] == ["goblins:01", "goblins:02"]


def test_card_pack_error_is_a_value_error() -> None:
    assert issubclass(CardPackError, ValueError)

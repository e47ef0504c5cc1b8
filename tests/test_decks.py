"""Deck files, the editor's rules and statistics (lordsofwar.decks), and ``lordsofwar deck check``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lordsofwar import decks
from lordsofwar.rules.cards import CORE, RANK_COUNTS, RANKS
from lordsofwar.rules.errors import DeckError
from tests.test_cli import assert_bad_input, ok, run, write

ALL = [c.id for a in CORE.armies for c in CORE.army(a)]


def of(army: str, rank: str) -> list[str]:
    return [c.id for c in CORE.army(army) if c.rank == rank]


def mercenary() -> list[str]:
    deck = CORE.standard_deck("orcs")
    for out, new in zip(of("orcs", "elite")[:2], of("lizardmen", "elite")[:2], strict=True):
        deck[deck.index(out)] = new
    return deck


def keepable(name: str) -> bool:
    try:
        decks.clean_name(name)
    except ValueError:
        return False
    return True


@st.composite
def drafts(draw: st.DrawFn) -> list[str]:
    """Any draft the editor may keep: up to the count of each rank, from any army."""
    ids: list[str] = []
    for rank in RANKS:
        pool = [c for c in ALL if CORE.card(c).rank == rank]
        ids += draw(st.lists(st.sampled_from(pool), max_size=RANK_COUNTS[rank]))
    return draw(st.permutations(ids))


@settings(max_examples=60, deadline=None)
@given(drafts(), st.text(min_size=1, max_size=40).filter(keepable))
def test_both_file_formats_read_back_what_they_wrote(ids: list[str], name: str) -> None:
    text = decks.parse(decks.to_text(decks.clean_name(name), ids, CORE), CORE)
    assert sorted(text.cards) == sorted(ids)
    assert text.name == decks.clean_name(name)
    doc = decks.parse(decks.to_json(name, ids), CORE)
    assert doc.cards == ids


@settings(max_examples=60, deadline=None)
@given(drafts())
def test_a_draft_is_complete_exactly_when_nothing_is_missing(ids: list[str]) -> None:
    a = decks.analyse(ids, CORE)
    assert a["over"] is None
    assert a["complete"] == (len(ids) == 36) == (a["missing"] == [])
    assert (a["game_problem"] is None) == a["complete"]
    assert a["stats"]["cards"] == len(ids) == sum(a["stats"]["classes"].values())
    for card_id in ALL[::7]:
        full = a["stats"]["ranks"][CORE.card(card_id).rank]
        assert (decks.add_problem(ids, card_id, CORE) is None) == (full["have"] < full["need"])


def test_the_refusal_to_add_names_the_rank_and_the_card() -> None:
    deck = CORE.standard_deck("orcs")
    quill = of("lizardmen", "elite")[0]
    message = decks.add_problem(deck, quill, CORE)
    assert message is not None and "elite rank is full (4 of 4)" in message and CORE.card(quill).name in message


def test_kinds_of_deck() -> None:
    assert decks.kind(CORE.standard_deck("elves"), CORE) == "elves"
    assert decks.kind(mercenary(), CORE) == "mercenary"
    twice = CORE.standard_deck("orcs")
    twice[twice.index(of("orcs", "elite")[0])] = of("orcs", "elite")[1]
    assert decks.kind(twice, CORE) == "custom orcs"


def test_statistics_of_a_standard_deck() -> None:
    s = decks.stats(CORE.standard_deck("orcs"), CORE)
    cards = [CORE.card(c) for c in CORE.standard_deck("orcs")]
    assert s["classes"] == {k: sum(1 for c in cards if c.cls == k) for k in ("infantry", "cavalry", "berserker", "spear", "ranged")}
    assert s["attack_total"] == sum(s["attacks"].values()) == sum(sum(c.attacks.values()) for c in cards)
    assert s["ranged_units"] == sum(1 for c in cards if c.ranged) and s["command_units"] == 6
    assert decks.stats([], CORE)["average_defence"] is None


def test_names_come_from_the_first_comment_only() -> None:
    assert decks.parse("# name: Fast elves\norcs:01\n", CORE).name == "Fast elves"
    assert decks.parse("orcs:01\n# name: late\n", CORE).name is None
    assert decks.parse("# a comment\norcs:01\n", CORE).name is None
    with pytest.raises(DeckError, match="too long"):
        decks.parse("orcs:01\n" * 10_000, CORE)


# --- lordsofwar deck check --------------------------------------------------------------------------


def test_deck_check_accepts_a_valid_deck(tmp_path: Path) -> None:
    path = write(tmp_path / "mercs.txt", decks.to_text("Mercs", mercenary(), CORE))
    out = ok(run("deck", "check", path, "--allowed-armies", "orcs,lizardmen"))
    assert "a valid deck (mercenary: orcs 34, lizardmen 2)" in out and "orcs, lizardmen" in out
    assert "support units" in out and "average defence" in out
    doc = json.loads(ok(run("deck", "check", path, "--json")))
    assert doc["valid"] and doc["problems"] == [] and doc["name"] == "Mercs" and doc["kind"] == "mercenary"
    assert doc["stats"]["armies"] == {"orcs": 34, "lizardmen": 2}
    assert json.loads(ok(run("deck", "check", "-", "--json", input=json.dumps(mercenary()))))["valid"]


def test_deck_check_lists_every_problem(tmp_path: Path) -> None:
    deck = mercenary()[:-1] + of("orcs", "general")
    path = write(tmp_path / "bad.txt", "\n".join(deck))
    result = run("deck", "check", path, "--allowed-armies", "orcs")
    assert result.exit_code == 2
    assert "2 general cards (1 over the 1 allowed)" in result.stdout
    assert f"lacks 1 {CORE.card(mercenary()[-1]).rank} card (it holds 36 of 36 cards)" in result.stdout
    assert "2 cards from army 'lizardmen'" in result.stdout and "allowed: orcs" in result.stdout
    assert result.stderr.strip() == f"error: {path}: not a valid deck (3 problems)"
    doc = json.loads(run("deck", "check", path, "--json", "--allowed-armies", "orcs").stdout)
    assert not doc["valid"] and len(doc["problems"]) == 3 and doc["kind"] is None


def test_deck_check_refuses_bad_input(tmp_path: Path) -> None:
    path = write(tmp_path / "deck.txt", "orcs:01\norcs:02\n\nelves:99  # no such card\n")
    assert_bad_input(run("deck", "check", path), "deck.txt", "line 4", "unknown card 'elves:99'")
    path = write(tmp_path / "deck.json", '{"name": "x",\n "cards": [\n  "orcs:01",\n  null]}')
    assert_bad_input(run("deck", "check", path), "deck.json", "line 4 (card 2)")
    assert_bad_input(run("deck", "check", str(tmp_path / "none.txt")), "cannot read")
    good = write(tmp_path / "orcs.txt", "\n".join(CORE.standard_deck("orcs")))
    assert_bad_input(run("deck", "check", good, "--allowed-armies", "orcs,gnomes"), "unknown army 'gnomes'")


def test_unreadable_json_is_refused_in_one_line() -> None:
    with pytest.raises(DeckError, match="not readable JSON"):
        decks.parse("[" + "1" * 5000 + "]", CORE)
    with pytest.raises(DeckError, match="nested too deeply"):
        decks.parse("[" * 100_00 + "]" * 100_00, CORE)


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.text(max_size=300),
        st.lists(st.one_of(st.sampled_from(ALL), st.text(max_size=12)), max_size=40).map(lambda xs: "\n".join(xs)),
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.text(max_size=10) | st.sampled_from(ALL),
            lambda kids: st.lists(kids, max_size=6) | st.dictionaries(st.sampled_from(["name", "cards", "format", "version", "x"]), kids, max_size=4),
            max_leaves=30,
        ).map(json.dumps),
    )
)
def test_any_text_reads_as_a_deck_or_a_one_line_deck_error(text: str) -> None:
    try:
        parsed = decks.parse(text, CORE)
    except DeckError as exc:
        assert "\n" not in str(exc) and str(exc)
        return
    assert all(CORE.card(c) for c in parsed.cards)
    assert parsed.name is None or 0 < len(parsed.name) <= decks.NAME_LIMIT


def test_deck_check_reads_no_more_than_a_deck_file_can_hold(tmp_path: Path) -> None:
    path = tmp_path / "huge.txt"
    path.write_bytes(b"orcs:01\n" * 100_000)
    assert_bad_input(run("deck", "check", str(path)), "huge.txt", "longer than")

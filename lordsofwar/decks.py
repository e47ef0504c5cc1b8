"""Custom decks (clarifications 8.4): reading and writing deck files, the editor's rules and the
deck statistics. Used by the deck editor on the web and by ``lordsofwar deck check``.

Two file formats (docs/decks.md):

* plain text: one card id a line; ``#`` starts a comment, to the end of the line; blank lines
  are skipped. A first comment ``# name: ...`` names the deck.
* JSON: ``{"format": "lordsofwar-deck", "version": 1, "name": "...", "cards": ["orcs:01", ...]}``,
  or just the list of ids.

A *draft* may hold fewer than 36 cards, but never more cards of a rank than a deck holds: that is
what the editor keeps. A deck is *complete* when every rank is full; only a complete deck is
played, and only in a game that allows custom decks from all of its armies.
"""

from __future__ import annotations

import hashlib
import json
import unicodedata
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from lordsofwar.i18n import _, ngettext
from lordsofwar.rules.cards import CLASSES, DECK_SIZE, DIRECTIONS, RANK_COUNTS, RANKS, Card, CardSet, rank_word
from lordsofwar.rules.errors import DeckError, UnknownCardError, read_json

NAME_LIMIT = 40
FILE_LIMIT = 32 * 1024
FORMAT = "lordsofwar-deck"


@dataclass(frozen=True)
class DeckFile:
    """What a deck file holds: its name (if it gives one), its card ids in file order, and the
    line of each card."""

    name: str | None
    cards: list[str]
    lines: list[int]


def hidden(ch: str) -> bool:
    """Whether a deck name may not hold ``ch``: a control character, an invisible format character
    or a lone surrogate (Unicode Cc, Cf, Cs), white space apart (runs of it become one space)."""
    return unicodedata.category(ch) in ("Cc", "Cf", "Cs") and not ch.isspace()


def clean_name(name: str) -> str:
    """A deck name as kept: at most ``NAME_LIMIT`` characters as sent, at least one of them
    neither white space nor :func:`hidden`, none hidden; runs of white space made one space;
    NFC-normalised (unless that would make it longer than ``NAME_LIMIT``: combining marks in an
    unusual order can). Raises ValueError saying what is wrong.

    The web API declares exactly this rule in its OpenAPI description (a length and a pattern)."""
    sent = len(name)
    name = " ".join(name.split())
    if not name:
        raise ValueError(_("a deck needs a name"))
    bad = next((ch for ch in name if hidden(ch)), None)
    if bad is not None:
        raise ValueError(
            _("the name holds an invisible or control character ({code})").format(code=f"U+{ord(bad):04X}")
        )
    if sent > NAME_LIMIT:
        raise ValueError(_("the name is too long ({n} characters, at most {limit})").format(n=sent, limit=NAME_LIMIT))
    normal = unicodedata.normalize("NFC", name)
    return normal if len(normal) <= NAME_LIMIT else name


def name_key(name: str) -> str:
    """What makes two names the same name (case and Unicode normalisation do not count), in at
    most ``NAME_LIMIT`` characters: case folding can lengthen a name ('ß' is 'ss'), and a longer
    key keeps its start and ends with a digest of the whole."""
    key = unicodedata.normalize("NFC", name).casefold()
    if len(key) <= NAME_LIMIT:
        return key
    digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return key[: NAME_LIMIT - len(digest) - 1] + "~" + digest


# --- reading -----------------------------------------------------------------------------------


def parse(text: str, cards: CardSet, where: str = "") -> DeckFile:
    """A deck file in either format (JSON when it starts with ``{`` or ``[``).

    Every error names the line (and ``where``, a file name, when given): a line that is not one
    card id, an unknown card, JSON that does not parse, a wrong shape. The ids are not checked
    against the deck rules here (see :func:`draft_problem` and :func:`game_problem`).
    """
    prefix = f"{where}: " if where else ""
    if len(text) > FILE_LIMIT:
        raise DeckError(
            prefix + _("the file is too long ({n} characters, at most {limit})").format(n=len(text), limit=FILE_LIMIT)
        )
    if text.lstrip().startswith(("{", "[")):
        return _parse_json(text, cards, where)
    return _parse_text(text, cards, prefix)


def _parse_text(text: str, cards: CardSet, prefix: str) -> DeckFile:
    name = None
    ids: list[str] = []
    lines: list[int] = []
    for n, line in enumerate(text.split("\n"), 1):  # lines as editors count them
        entry, _sep, comment = line.partition("#")
        entry = entry.strip()
        if not entry:
            label, _sep, value = comment.strip().partition(":")
            if name is None and not ids and label.strip().lower() == "name" and value.strip():
                name = _file_name(value, prefix + _("line {line}").format(line=n))
            continue
        if len(entry.split()) != 1:
            raise DeckError(
                prefix + _("line {line}: expected one card id a line, got {text}").format(line=n, text=repr(entry[:60]))
            )
        _known(cards, entry, prefix + _("line {line}").format(line=n))
        ids.append(entry)
        lines.append(n)
    return DeckFile(name, ids, lines)


def _file_name(value: str, where: str) -> str:
    """A name given in a file, cut to ``NAME_LIMIT``; a name that cannot be kept is an error."""
    try:
        value.encode("utf-8")
        return clean_name(" ".join(value.split())[:NAME_LIMIT])
    except (UnicodeEncodeError, ValueError) as exc:
        reason = _("it is not valid Unicode text") if isinstance(exc, UnicodeEncodeError) else str(exc)
        raise DeckError(
            _("{where}: the deck's name cannot be kept: {reason}").format(where=where, reason=reason)
        ) from None


def _line(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


def _parse_json(text: str, cards: CardSet, where: str) -> DeckFile:
    prefix = f"{where}: " if where else ""
    doc = read_json(text, DeckError, where)
    name = None
    if isinstance(doc, dict):
        unknown = sorted(set(doc) - {"format", "version", "name", "cards"})
        if unknown:
            raise DeckError(
                prefix
                + _("line {line}: unknown field {field} (expected format, version, name, cards)").format(
                    line=1, field=repr(unknown[0])
                )
            )
        if doc.get("format", FORMAT) != FORMAT:
            raise DeckError(
                prefix
                + _("line {line}: format must be {format}, got {value}").format(
                    line=1, format=repr(FORMAT), value=repr(str(doc.get("format"))[:40])
                )
            )
        if doc.get("version", 1) != 1:
            raise DeckError(
                prefix
                + _("line {line}: unknown version {version} (this program reads version 1)").format(
                    line=1, version=str(doc.get("version"))[:20]
                )
            )
        raw_name = doc.get("name")
        where = prefix + _("line {line}").format(line=_key_line(text, "name"))
        if raw_name is not None and not isinstance(raw_name, str):
            raise DeckError(_("{where}: name must be a string").format(where=where))
        name = _file_name(raw_name, where) if raw_name and raw_name.strip() else None
        if "cards" not in doc:
            raise DeckError(prefix + _("line {line}: the field 'cards' (a list of card ids) is missing").format(line=1))
        items, start = doc["cards"], _key_value_start(text, "cards")
    else:
        items, start = doc, text.index("[")
    if not isinstance(items, list):
        raise DeckError(
            prefix
            + _('line {line}: expected a list of card ids such as ["orcs:07", ...]').format(line=_line(text, start))
        )
    lines = _item_lines(text, start)
    lines += [_line(text, start)] * (len(items) - len(lines))
    ids: list[str] = []
    for i, item in enumerate(items):
        if not isinstance(item, str):
            where = prefix + _("line {line} (card {card})").format(line=lines[i], card=i + 1)
            raise DeckError(
                _("{where}: expected a card id such as 'orcs:07', got {value}").format(
                    where=where, value=json.dumps(item)[:40]
                )
            )
        where = prefix + _("line {line} (card {card})").format(line=lines[i], card=i + 1)
        _known(cards, item, where)
        ids.append(item)
    return DeckFile(name, ids, lines[: len(ids)])


def _key_line(text: str, key: str) -> int:
    return _line(text, max(0, text.find(f'"{key}"')))


def _key_value_start(text: str, key: str) -> int:
    """Where the value of the top-level ``key`` starts (found by decoding the object's members)."""
    decoder = json.JSONDecoder()
    i = text.index("{") + 1
    while True:
        i = _skip(text, i, ",")
        k, i = decoder.raw_decode(text, i)
        i = _skip(text, i, ":")
        if k == key:
            return i
        _v, i = decoder.raw_decode(text, i)


def _item_lines(text: str, start: int) -> list[int]:
    """The line of each item of the JSON array that starts at ``start``."""
    decoder = json.JSONDecoder()
    lines: list[int] = []
    i = _skip(text, start, "")
    if text[i] != "[":
        return []
    i += 1
    while True:
        i = _skip(text, i, ",")
        if text[i] == "]":
            return lines
        lines.append(_line(text, i))
        _v, i = decoder.raw_decode(text, i)


def _skip(text: str, i: int, seps: str) -> int:
    while i < len(text) and (text[i].isspace() or text[i] in seps):
        i += 1
    return i


def _known(cards: CardSet, card_id: str, where: str) -> None:
    try:
        cards.card(card_id)
    except UnknownCardError as exc:
        raise DeckError(_("{where}: {problem}").format(where=where, problem=exc)) from None


# --- writing -----------------------------------------------------------------------------------


def to_text(name: str, ids: Iterable[str], cards: CardSet) -> str:
    """The plain-text file: the name, then the cards grouped by rank, each with its name."""
    ids = list(ids)
    name = " ".join(name.split())
    out = [f"# name: {name}", f"# Lords of War deck, {len(ids)} of {DECK_SIZE} cards: one card id a line"]
    for rank in RANKS:
        of_rank = [c for c in ids if cards.card(c).rank == rank]
        out.append("")
        out.append(f"# {rank} ({len(of_rank)} of {RANK_COUNTS[rank]})")
        for c in of_rank:
            card = cards.card(c)
            out.append(f"{c:<14}# {card.name} ({card.army}, {card.cls})")
    return "\n".join(out) + "\n"


def to_json(name: str, ids: Iterable[str]) -> str:
    return json.dumps({"format": FORMAT, "version": 1, "name": name, "cards": list(ids)}, indent=1) + "\n"


# --- the editor's rules ------------------------------------------------------------------------


def sort_key(cards: CardSet) -> Any:
    """Order of cards in a deck: by rank, then army, then number."""
    return lambda c: (RANKS.index(cards.card(c).rank), cards.card(c).army, cards.card(c).number, c)


def rank_counts(ids: Iterable[str], cards: CardSet) -> Counter[str]:
    return Counter(cards.card(c).rank for c in ids)


def add_problem(ids: Iterable[str], card_id: str, cards: CardSet) -> str | None:
    """Why ``card_id`` cannot join the draft ``ids`` (its rank is full), or None."""
    card = cards.card(card_id)
    have = rank_counts(ids, cards)[card.rank]
    need = RANK_COUNTS[card.rank]
    if have >= need:
        if card.rank[0] in "aeiou":
            text = _("the {rank} rank is full ({have} of {need}): take an {rank} card out before adding {card}")
        else:
            text = _("the {rank} rank is full ({have} of {need}): take a {rank} card out before adding {card}")
        return text.format(rank=rank_word(card.rank), have=have, need=need, card=card.name)
    return None


def draft_problem(ids: Iterable[str], cards: CardSet) -> str | None:
    """Why ``ids`` cannot be kept as a draft (a rank over its count), or None. Unknown ids raise."""
    ids = list(ids)
    counts = rank_counts(ids, cards)
    over = [
        _("{have} {rank} cards ({over} over the {need} allowed)").format(
            have=counts[r], rank=rank_word(r), over=counts[r] - RANK_COUNTS[r], need=RANK_COUNTS[r]
        )
        for r in RANKS
        if counts[r] > RANK_COUNTS[r]
    ]
    if over:
        # TRANSLATORS: {problems} is a list of phrases such as "5 elite cards (1 over the 4 allowed)"
        return _("the deck has {problems}").format(problems="; ".join(over))
    return None


def first_over(ids: list[str], cards: CardSet) -> int | None:
    """The index of the first card that puts its rank over the count, or None."""
    seen: Counter[str] = Counter()
    for i, c in enumerate(ids):
        rank = cards.card(c).rank
        seen[rank] += 1
        if seen[rank] > RANK_COUNTS[rank]:
            return i
    return None


def missing(ids: Iterable[str], cards: CardSet) -> list[str]:
    """What a draft still lacks, one phrase per rank (empty when complete)."""
    counts = rank_counts(ids, cards)
    return [
        ngettext("{n} {rank} card", "{n} {rank} cards", RANK_COUNTS[r] - counts[r]).format(
            n=RANK_COUNTS[r] - counts[r], rank=rank_word(r)
        )
        for r in RANKS
        if counts[r] < RANK_COUNTS[r]
    ]


def game_problem(ids: Iterable[str], cards: CardSet, allowed_armies: Iterable[str] | None) -> str | None:
    """Why the deck cannot be played in a game allowing custom decks from ``allowed_armies``
    (None: any army), or None when it can."""
    ids = list(ids)
    lacking = missing(ids, cards)
    if lacking:
        # TRANSLATORS: {missing} is a list of phrases such as "2 elite cards, 1 recruit card"
        return _("it is not complete: it needs {missing} more").format(missing=", ".join(lacking))
    try:
        cards.validate_deck(ids, allowed_armies)
    except DeckError as exc:
        return str(exc)
    return None


def kind(ids: list[str], cards: CardSet) -> str:
    """The army shown for a complete deck: its core army for a standard deck, "custom <army>" for
    a personalised deck of one army, "mercenary" for a deck mixing armies."""
    standard = cards.standard_army_of(ids)
    if standard is not None:
        return standard
    armies = {cards.card(c).army for c in ids}
    return f"custom {armies.pop()}" if len(armies) == 1 else "mercenary"


# --- statistics ----------------------------------------------------------------------------------


def stats(ids: Iterable[str], cards: CardSet) -> dict[str, Any]:
    """The editor's figures for a deck (or draft)."""
    units: list[Card] = [cards.card(c) for c in ids]
    n = len(units)
    ranged = [u for u in units if u.ranged is not None]
    by_army = Counter(u.army for u in units)
    return {
        "cards": n,
        "ranks": {r: {"have": sum(1 for u in units if u.rank == r), "need": RANK_COUNTS[r]} for r in RANKS},
        "classes": {c: sum(1 for u in units if u.cls == c) for c in CLASSES},
        "armies": dict(sorted(by_army.items(), key=lambda kv: (-kv[1], kv[0]))),
        "average_defence": round(sum(u.defence for u in units) / n, 2) if n else None,
        "attacks": {d: sum(u.attacks.get(d, 0) for u in units) for d in DIRECTIONS},
        "attack_total": sum(sum(u.attacks.values()) for u in units),
        "ranged_units": len(ranged),
        "ranged_damage": sum(u.ranged.damage for u in ranged if u.ranged is not None),
        "support_units": sum(1 for u in units if u.is_support),
        "support_share": round(sum(1 for u in units if u.is_support) / n, 3) if n else None,
        "command_units": sum(1 for u in units if u.is_command),
    }


def analyse(ids: Iterable[str], cards: CardSet, allowed_armies: Iterable[str] | None = None) -> dict[str, Any]:
    """Everything the editor shows about a draft: what is missing or over, whether it is a core
    army's standard deck, whether a game with ``allowed_armies`` could use it, and its figures."""
    ids = list(ids)
    over = draft_problem(ids, cards)
    lacking = missing(ids, cards)
    complete = not lacking and over is None
    return {
        "complete": complete,
        "missing": lacking,
        "over": over,
        "standard_army": cards.standard_army_of(ids) if complete else None,
        "game_problem": game_problem(ids, cards, allowed_armies),
        "stats": stats(ids, cards),
    }


def check(ids: list[str], cards: CardSet, allowed_armies: Iterable[str] | None) -> list[str]:
    """Every problem of a deck file for a game allowing ``allowed_armies``: for ``deck check``."""
    problems = []
    over_at = first_over(ids, cards)
    if over_at is not None:
        problems.append(draft_problem(ids, cards) or "")
    lacking = missing(ids, cards)
    if lacking:
        problems.append(
            _("the deck lacks {missing} (it holds {n} of {size} cards)").format(
                missing=", ".join(lacking), n=len(ids), size=DECK_SIZE
            )
        )
    if allowed_armies is not None:
        allowed = set(allowed_armies)
        outside = sorted({cards.card(c).army for c in ids} - allowed)
        for army in outside:
            which = [c for c in ids if cards.card(c).army == army]
            problems.append(
                ngettext(
                    "{n} card from army {army} ({cards}), which the game does not allow (allowed: {allowed})",
                    "{n} cards from army {army} ({cards}), which the game does not allow (allowed: {allowed})",
                    len(which),
                ).format(n=len(which), army=repr(army), cards=_some(which), allowed=", ".join(sorted(allowed)))
            )
    return problems


def _some(ids: list[str], most: int = 5) -> str:
    distinct = list(dict.fromkeys(ids))
    shown = ", ".join(distinct[:most])
    if len(distinct) <= most:
        return shown
    return _("{cards} and {n} more").format(cards=shown, n=len(distinct) - most)


__all__ = [
    "FORMAT",
    "NAME_LIMIT",
    "DeckFile",
    "add_problem",
    "analyse",
    "check",
    "clean_name",
    "draft_problem",
    "first_over",
    "game_problem",
    "hidden",
    "kind",
    "missing",
    "name_key",
    "parse",
    "rank_counts",
    "sort_key",
    "stats",
    "to_json",
    "to_text",
]

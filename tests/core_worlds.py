"""Starting points for the differential test of ``lordsofwar.core`` against the rules engine.

Each generator draws from a ``random.Random`` and returns a :class:`World`: a rules
:class:`~lordsofwar.rules.state.Position` (never a view), its card set, and which generator made
it. The same ``Random`` state always gives the same world, so a seed names a world.

- :func:`dealt`: the opening of a game (``notation.deal``) in any variant, with standard or
  mercenary decks.
- :func:`scrambled`: a crowded position of the middle game, written as notation.md section 3 and
  read by ``notation.parse_position``, mostly without a unit the arrows would eliminate, now and
  then with decks full of berserkers; half the time a few actions into its turn (``turn_state``:
  declared shots, a deployment made, a berserker choice waiting).
- :func:`with_moving_pack`: a dealt or scrambled game with the core cards plus :data:`RAIDERS`, a
  pack of units with movement arrows and unusual target grids.
- :func:`start`: one of the three, mostly dealt games.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from lordsofwar.rules import engine, mat
from lordsofwar.rules.cards import CORE, RANKS, CardSet, parse_card_file
from lordsofwar.rules.notation import POSITION_FORMAT, VERSION, deal, parse_position, position_to_json
from lordsofwar.rules.state import HAND_LIMIT, LENGTHS, Action, Position, Variant


class World(NamedTuple):
    """A starting point: the position, its card set, and the generator that made it
    (``"dealt"``, ``"scrambled"``, ``"pack"`` or ``"pack-scrambled"``)."""

    pos: Position
    cards: CardSet
    kind: str


# --- the moving pack ------------------------------------------------------------------------------

RAIDERS_PACK: dict[str, Any] = {
    "format": "lordsofwar-cards",
    "version": 1,
    "title": "Differential test pack: raiders",
    "cards": [
        # One card of every rank at least, so that any card of a deck can be swapped for a raider.
        {
            "id": "raiders:01",
            "name": "Raider Warlord",
            "rank": "general",
            "class": "cavalry",
            "defence": 6,
            "attacks": "F4 FL3 FR3 L2 R2",
            "moves": "F FL FR L R",
        },
        {
            "id": "raiders:02",
            "name": "Raider Chieftain",
            "rank": "command",
            "class": "berserker",
            "defence": 5,
            "attacks": "F4 FL3 FR3",
            "moves": "F",
        },
        {
            "id": "raiders:03",
            "name": "Raider Bowmaster",
            "rank": "command",
            "class": "ranged",
            "defence": 4,
            "attacks": "B2",
            # Corners two squares out, behind as well as in front.
            "ranged": {"damage": 4, "grid": ["#...#", ".....", "..U..", ".....", "#...#"]},
        },
        {
            "id": "raiders:04",
            "name": "Pike Runner",
            "rank": "special",
            "class": "spear",
            "defence": 4,
            "attacks": "F3 FL2 FR2",
            "moves": "F B",
        },
        {
            "id": "raiders:05",
            "name": "Raider Outrider",
            "rank": "special",
            "class": "cavalry",
            "defence": 3,
            "attacks": "FL2 FR2 BL1 BR1",
            "moves": "F FR R BR B BL L FL",
        },
        {
            "id": "raiders:06",
            "name": "Long Slinger",
            "rank": "elite",
            "class": "ranged",
            "defence": 3,
            "attacks": "F1",
            "moves": "L R",
            # Five rows ahead in the middle, and two squares out on the diagonals of row three.
            "ranged": {"damage": 3, "grid": ["..#..", ".....", "#...#", ".....", ".....", "..U.."]},
        },
        {
            "id": "raiders:07",
            "name": "Berserk Rider",
            "rank": "elite",
            "class": "berserker",
            "defence": 4,
            "attacks": "F3 R2 L2",
            "moves": "F FL FR",
        },
        {
            "id": "raiders:08",
            "name": "Shieldwall",
            "rank": "veteran",
            "class": "spear",
            "defence": 5,
            "attacks": "F2",
        },
        {
            "id": "raiders:09",
            "name": "Skirmisher",
            "rank": "veteran",
            "class": "ranged",
            "defence": 2,
            # No arrow at all: it never engages, and it shoots the squares beside it.
            "moves": "B BL BR",
            "ranged": {"damage": 2, "grid": [".#.", "#U#"]},
        },
        {
            "id": "raiders:10",
            "name": "Raider",
            "rank": "regular",
            "class": "infantry",
            "defence": 3,
            "attacks": "F3 FL1 FR1",
            "moves": "F",
        },
        {
            "id": "raiders:11",
            "name": "Scout",
            "rank": "regular",
            "class": "infantry",
            "defence": 1,
            "moves": "F B L R",
        },
        {
            "id": "raiders:12",
            "name": "Thrall",
            "rank": "recruit",
            "class": "infantry",
            "defence": 0,
            "attacks": "F2 B0",
            "moves": "FL FR",
        },
        {
            "id": "raiders:13",
            "name": "Hound",
            "rank": "recruit",
            "class": "berserker",
            "defence": 2,
            "attacks": "F2 FL1 FR1 B1",
            "moves": "F L R",
        },
    ],
}
"""A card pack (docs/cards.md) of moving units of every class and rank: movement in one to
eight directions, target grids behind, beside and five rows ahead, a unit without arrows and one
of defence 0."""

RAIDERS: CardSet = CORE.with_cards(
    parse_card_file(json.dumps(RAIDERS_PACK), "tests/core_worlds.py raiders"), "tests/core_worlds.py raiders"
)
"""The core cards plus the raiders pack (one card set, so the native core builds its table once)."""


def _by_rank(cards: CardSet, army: str | None = None) -> dict[str, list[str]]:
    return {
        r: sorted(c for c in cards if cards[c].rank == r and (army is None or cards[c].army == army)) for r in RANKS
    }


CORE_BY_RANK = _by_rank(CORE)
RAIDERS_BY_RANK = _by_rank(RAIDERS, "raiders")
BERSERKERS_BY_RANK = {
    rank: ids for rank, ids in ((r, [c for c in CORE_BY_RANK[r] if CORE[c].cls == "berserker"]) for r in RANKS) if ids
}


# --- variants and decks ---------------------------------------------------------------------------


def variant(rng: random.Random) -> Variant:
    """Any variant: basic or intermediate rules, hidden or visible hands, bordered or unbordered
    mat, 15/3, 20/4 or 25/5, and no progress for mostly 40 turns, sometimes 12 or 3."""
    length = rng.choice(sorted(LENGTHS))
    return Variant(
        rng.choice(("intermediate", "basic")),
        rng.choice(("hidden", "visible")),
        rng.choice(("bordered", "unbordered")),
        *LENGTHS[length],
        rng.choice((40, 40, 40, 12, 3)),
    )


def swapped(deck: Sequence[str], rng: random.Random, by_rank: dict[str, list[str]], swaps: int) -> list[str]:
    """``deck`` with ``swaps`` random cards replaced by cards of the same rank from ``by_rank``
    (clarifications 8.4: a custom deck keeps the rank counts)."""
    out = list(deck)
    for _ in range(swaps):
        i = rng.randrange(len(out))
        out[i] = rng.choice(by_rank[RAIDERS[out[i]].rank])
    return out


def core_deck(rng: random.Random) -> list[str]:
    """A standard core deck, or (half the time) a mercenary one made by same-rank swaps."""
    deck = CORE.standard_deck(rng.choice(CORE.armies))
    if rng.random() < 0.5:
        deck = swapped(deck, rng, CORE_BY_RANK, rng.randint(1, 12))
    return deck


def berserker_deck(rng: random.Random) -> list[str]:
    """A core deck whose regulars and recruits are mostly berserkers (all core berserkers are of
    those two ranks), for positions where berserker advances compete."""
    deck = core_deck(rng)
    for i, card in enumerate(deck):
        berserkers = BERSERKERS_BY_RANK.get(CORE[card].rank)
        if berserkers and rng.random() < 0.8:
            deck[i] = rng.choice(berserkers)
    return deck


def raiders_deck(rng: random.Random) -> list[str]:
    """A core deck with 3 to 20 cards swapped for raiders of the same rank."""
    return swapped(core_deck(rng), rng, RAIDERS_BY_RANK, rng.randint(3, 20))


def _army(cards: CardSet, deck: Sequence[str]) -> str:
    return cards.standard_army_of(deck) or "mercenary"


# --- dealt games ----------------------------------------------------------------------------------


def _dealt(rng: random.Random, cards: CardSet, make_deck: Callable[[random.Random], list[str]], kind: str) -> World:
    decks = [make_deck(rng), make_deck(rng)]
    return World(deal(decks, rng.randrange(2**32), variant(rng), cards), cards, kind)


def dealt(rng: random.Random) -> World:
    """The opening of a game (``notation.deal``): two core decks, standard or mercenary, and any
    variant."""
    return _dealt(rng, CORE, core_deck, "dealt")


# --- scrambled positions --------------------------------------------------------------------------

PRINTED = [mat.name(mat.square(x, y)) for x in range(mat.WIDTH) for y in range(mat.HEIGHT)]


def _squares(rng: random.Random, bordered: bool, fill: tuple[float, float]) -> list[str]:
    """Where the units stand: a share ``fill`` of the bordered mat, or on the unbordered mat a
    random box around the printed one (partly off it), now and then with a few units far out."""
    if bordered:
        return rng.sample(PRINTED, round(len(PRINTED) * rng.uniform(*fill)))
    x0, y0 = rng.randint(-5, 2), rng.randint(-5, 2)
    width, height = rng.randint(5, 16), rng.randint(5, 14)
    box = [mat.name(mat.square(x, y)) for x in range(x0, x0 + width) for y in range(y0, y0 + height)]
    count = min(len(box), 56, max(4, round(len(box) * rng.uniform(0.25, 0.8))))
    chosen = rng.sample(box, count)
    if rng.random() < 0.15:  # far out: beyond the 21 x 21 frame of integer actions
        far = {mat.name(mat.square(rng.randint(-40, 40), rng.randint(-40, 40))) for _ in range(rng.randint(1, 3))}
        chosen += sorted(far - set(chosen))
    return chosen


def _holdings(
    rng: random.Random, cards: CardSet, deck: Sequence[str], on_board: int, v: Variant
) -> tuple[list[str], dict[str, Any]]:
    """A player's units on the mat and the rest of their deck split into hand, deck and lost
    pile; fewer units lost than either threshold of the variant (8.2)."""
    shuffled = list(deck)
    rng.shuffle(shuffled)
    units, rest = shuffled[:on_board], shuffled[on_board:]
    lost: list[str] = []
    lost_commands = 0
    for card in rest[: rng.randint(0, min(len(rest), v.units_to_win - 1))]:
        if cards[card].is_command:
            if lost_commands + 1 >= v.commands_to_win:
                continue
            lost_commands += 1
        lost.append(card)
    for card in lost:
        rest.remove(card)
    hand_size = rng.randint(0, min(HAND_LIMIT, len(rest)))
    return units, {"army": _army(cards, deck), "hand": rest[:hand_size], "deck": rest[hand_size:], "lost": lost}


def scrambled_doc(
    rng: random.Random,
    cards: CardSet,
    decks: Sequence[Sequence[str]],
    v: Variant,
    fill: tuple[float, float] = (0.6, 0.95),
) -> dict[str, Any]:
    """The notation document of a crowded start-of-turn position of the middle game: units of
    both players from their decks on ``fill`` of the bordered mat, the rest of each deck in hand,
    deck and lost pile."""
    squares = _squares(rng, v.bordered, fill)
    share = rng.uniform(0.3, 0.7)
    owners = [1 if rng.random() < share else 2 for _ in squares]
    board: list[dict[str, Any]] = []
    players: dict[str, Any] = {}
    for p in (1, 2):
        mine = [sq for sq, o in zip(squares, owners, strict=True) if o == p][: len(decks[p - 1]) - 2]
        units, players[str(p)] = _holdings(rng, cards, decks[p - 1], len(mine), v)
        board += [{"square": sq, "card": card, "owner": p} for sq, card in zip(mine, units, strict=True)]
    return {
        "format": POSITION_FORMAT,
        "version": VERSION,
        "variant": v.to_json(),
        "turn": rng.randint(3, 80),
        "to_move": rng.choice((1, 2)),
        "quiet_turns": rng.randint(0, max(0, v.no_progress_turns - 1)),
        "board": board,
        "players": players,
        "result": None,
    }


def settled(doc: dict[str, Any], cards: CardSet, rng: random.Random, rounds: int = 8) -> dict[str, Any]:
    """The document without a unit that the arrows on the mat would eliminate (4.1), as no turn
    of a real game starts with one: each such unit is swapped for a random card of its owner's
    deck or hand, for a few rounds, and any still doomed then goes back into the deck (removing
    units only lowers the damage of the others, so the result is settled)."""
    out: dict[str, Any] = json.loads(json.dumps(doc))
    for final in [False] * rounds + [True]:
        pos = parse_position(out, cards)
        doomed = {mat.name(sq) for sq, dmg in engine.damage(pos).items() if dmg > pos.board[sq].defence}
        if not doomed:
            break
        board = []
        for entry in out["board"]:
            if entry["square"] in doomed:
                player = out["players"][str(entry["owner"])]
                pile = player["deck"] if final or not player["hand"] or rng.random() < 0.5 else player["hand"]
                if final or not pile:
                    player["deck"].append(entry["card"])
                    continue
                i = rng.randrange(len(pile))
                entry, pile[i] = dict(entry, card=pile[i]), entry["card"]
            board.append(entry)
        out["board"] = board
    return out


_TURN_ENDING = ("draw", "recall", "pass")


def into_the_turn(pos: Position, rng: random.Random, steps: int, seek_advance: bool = False) -> Position:
    """Up to ``steps`` random actions of the turn under way (never its reinforcement, never one
    that ends the game), declared shots preferred; with ``seek_advance``, an action after which a
    berserker choice waits whenever there is one. Stops at a berserker choice most of the time."""
    for _ in range(steps):
        options = [a for a in sorted(pos.legal_actions(), key=str) if a.kind not in _TURN_ENDING]
        if not options:
            break
        shots = [a for a in options if a.kind == "shoot"]
        if shots and rng.random() < 0.5:
            options = shots
        after = None
        if seek_advance and pos.variant.intermediate:
            for action in rng.sample(options, len(options)):
                candidate = _after(pos, action)
                if candidate is not None and candidate.phase == "advance":
                    after = candidate
                    break
        if after is None:
            after = _after(pos, rng.choice(options))
            if after is None:
                break
        pos = after
        if pos.phase == "advance" and rng.random() < 0.8:
            break
    return pos


def _after(pos: Position, action: Action) -> Position | None:
    """The position after ``action``, or None when it ends the game."""
    after, _ = pos.apply(action)
    return None if after.is_over else after


def _scrambled(rng: random.Random, cards: CardSet, make_deck: Callable[[random.Random], list[str]], kind: str) -> World:
    """A scrambled position of ``cards`` with decks of ``make_deck``: settled three times in four,
    a few actions into its turn one time in two."""
    v = variant(rng)
    decks = [make_deck(rng), make_deck(rng)]
    if rng.random() < 0.75:
        # Settling takes a few units off a crowded mat: start fuller to end at 60-95%.
        doc = settled(scrambled_doc(rng, cards, decks, v, (0.72, 1.0)), cards, rng)
    else:
        doc = scrambled_doc(rng, cards, decks, v)
    pos = parse_position(doc, cards)
    if rng.random() < 0.5:
        pos = into_the_turn(pos, rng, rng.randint(1, 4), seek_advance=rng.random() < 0.8)
    return World(pos, cards, kind)


def scrambled(rng: random.Random) -> World:
    """A crowded position of the middle game with core decks (turn 3 or later, any variant),
    sometimes a few actions into its turn."""
    return _scrambled(rng, CORE, berserker_deck if rng.random() < 0.3 else core_deck, "scrambled")


# --- the moving pack ------------------------------------------------------------------------------


def with_moving_pack(rng: random.Random) -> World:
    """A game with :data:`RAIDERS` cards in both decks: dealt (mostly) or scrambled."""
    if rng.random() < 0.7:
        return _dealt(rng, RAIDERS, raiders_deck, "pack")
    return _scrambled(rng, RAIDERS, raiders_deck, "pack-scrambled")


# --- any of them ----------------------------------------------------------------------------------

GENERATORS: tuple[tuple[Callable[[random.Random], World], float], ...] = (
    (dealt, 0.55),
    (scrambled, 0.25),
    (with_moving_pack, 0.20),
)
"""The generators :func:`start` draws from, with their weights."""


def start(rng: random.Random) -> World:
    """A starting point: mostly a dealt game, else a scrambled position or a game with the pack."""
    generators, weights = zip(*GENERATORS, strict=True)
    make = rng.choices(generators, weights)[0]
    return make(rng)


def world(seed: int) -> World:
    """The world of a seed: ``start(random.Random(seed))`` (the test and the bench script then play
    its game with the same ``Random``)."""
    return start(random.Random(seed))


def describe(w: World) -> set[str]:
    """The families a world belongs to, for coverage checks: its kind, rules, hands, mat,
    length (``"20/4"``), ``"mercenary"``, ``"mid-turn"``, ``"phase:advance"``, ``"declared-shot"``,
    ``"off-mat"``."""
    pos = w.pos
    v = pos.variant
    tags = {w.kind, v.rules, v.hands, v.mat, f"{v.units_to_win}/{v.commands_to_win}", f"quiet:{v.no_progress_turns}"}
    if "mercenary" in pos.armies:
        tags.add("mercenary")
    doc = position_to_json(pos)
    ts = doc.get("turn_state")
    if ts is not None:
        tags.add("mid-turn")
        tags.add(f"phase:{ts['phase']}")
        if ts["phase"] == "pre" and ts["shots"]:
            tags.add("declared-shot")
    if any(sq not in mat.ON_MAT for sq in pos.board):
        tags.add("off-mat")
    return tags

"""Mining puzzles from bot games: ``lordsofwar puzzles generate`` (docs/learn.md, "The puzzle generator").

Bots play games on the compiled core; every decision with a choice is a possible puzzle, seen
from the deciding player's side (their view, the opponent's hand cards they have seen, their
own deck list). A decision becomes a puzzle only if it passes four checks, cheapest first, so
that the costly ones run only for the few candidates:

1. **screen**: a quick search (the ``veteran`` level's settings) finds one action ahead of
   every other it looked at by :attr:`Settings.screen` in win probability;
2. **deep search**: ``general``'s search with a larger budget rates its choice at
   least :attr:`Settings.margin` above the best other action it weighed (the *margin*); a
   shorter search first weeds out the candidates that fall well short;
3. **second search**: a different algorithm, flat Monte Carlo, plays every legal action in each
   of :attr:`Settings.flat_worlds` redrawn worlds with greedy playouts and judges the end by
   the search's evaluation; the solution must have the best mean, at least
   :attr:`Settings.confirm` above every other action's;
4. **worlds**: in each of :attr:`Settings.worlds` redrawn worlds (the opponent's hidden hand
   and both decks drawn again, consistent with what the solver knows) a search that sees that
   world whole must again choose the solution, ahead of every other action by the margin, in
   at least :attr:`Settings.world_share` of them.

Checks 2 to 4 (:func:`judge`) run twice, the second time with other seeds for every search, and
a puzzle is kept only when both pass with the same solution (:attr:`Settings.again`).

Win probabilities are the search's own (:func:`lordsofwar.bots.analysis.win_probability`). The
solution's themes come from what it causes (:func:`themes_of`), its starting rating from how
hard it is to find (:func:`rating_of`).

Seeds: game ``i`` of a run with seed ``s`` is dealt from ``derived_seed(s, "puzzle-game", i)``,
its bots and checks seeded from other derivations of the same (these are bot games, not secrets;
no seed is stored with a puzzle, so a puzzle never tells the cards its solver cannot see).
"""

from __future__ import annotations

import concurrent.futures
import math
import multiprocessing
import os
import random
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from lordsofwar.bots import make_bot
from lordsofwar.bots.analysis import win_probability
from lordsofwar.bots.greedy import GreedyBot, card_value
from lordsofwar.bots.play import MAX_ACTIONS, deal_for, derived_seed
from lordsofwar.bots.search import LEVELS, Analysis, SearchBot, SearchLevel, pool_of
from lordsofwar.learn.puzzles import RATING_RANGE, THEMES, Puzzle, check, puzzle_id, read, write
from lordsofwar.rules import notation
from lordsofwar.rules.knowledge import known_hands
from lordsofwar.rules.position import unit_kind
from lordsofwar.rules.state import Action, Event, Position

PAIRINGS: tuple[tuple[str, str], ...] = (
    ("greedy", "recruit"),
    ("recruit", "recruit"),
    ("greedy", "greedy"),
)
"""The bots that play the games puzzles are mined from (game ``i`` plays pairing ``i mod n``,
seats swapped every other round): weaker players leave more chances for their opponent, and
cheap ones leave the time to the checks."""


@dataclass(frozen=True)
class Settings:
    """How hard a decision must be won for a puzzle, and how much each check searches."""

    margin: float = 0.25
    """The deep search's win-probability gap between the solution and the best other action."""
    screen: float = 0.12
    """The quick search's gap that makes a decision a candidate."""
    screen_iterations: int = 120
    deep_iterations: int = 10000
    first_iterations: int = 2000
    """A first, shorter deep search: a candidate whose gap there is below 0.8 of the margin
    goes no further (the full deep search alone decides for the others)."""
    seconds: float = 30.0
    """Every search's time budget: far above what its iterations take, so that the iteration
    caps end the searches and a run repeats from its seed on any machine."""
    explore: float = 0.6
    """The exploration constant of the deep and the world searches: higher than the bots' own
    (0.1), so that the search also weighs the actions it does not choose and their estimates
    rest on many lines, not one."""
    min_visits: int = 30
    """An action's estimate counts in a gap once the search tried it this often (when no other
    action was, the most tried one counts)."""
    flat_worlds: int = 12
    """Redrawn worlds of the second search (each legal action played once in each)."""
    flat_turns: int = 3
    """Turns of greedy playout after each action in the second search."""
    confirm: float = 0.02
    """The second search's least gap between the solution and the best other action."""
    worlds: int = 10
    """Redrawn worlds of the world check."""
    world_iterations: int = 3000
    world_share: float = 0.9
    """The share of worlds in which the solution must stay best by the margin."""
    again: bool = True
    """Judge every puzzle that passes checks 2 to 4 a second time, with other seeds for every
    search, and keep it only if it passes again with the same solution (a borderline case
    passes once by luck more often than twice)."""
    max_legal: int = 400
    """Decisions with more legal actions are left out (the second search plays every one)."""

    def level(self) -> SearchLevel:
        """The settings of the deep and the world searches: the top level's, with :attr:`explore`."""
        return replace(LEVELS["general"], explore=self.explore, seconds=self.seconds)

    def tiny(self) -> Settings:
        """Small budgets for a quick test run (puzzles it finds still pass every check)."""
        return replace(
            self,
            screen_iterations=80,
            deep_iterations=3000,
            first_iterations=1000,
            flat_worlds=4,
            flat_turns=2,
            worlds=4,
            world_iterations=600,
            world_share=0.75,
        )


@dataclass
class Tally:
    """What a run (or one game of it) looked at and kept, with the CPU seconds it took."""

    games: int = 0
    decisions: int = 0
    screened: int = 0
    deep: int = 0
    confirmed: int = 0
    judged: int = 0
    """Passed the world check (the first judgement)."""
    kept: int = 0
    cpu: float = 0.0
    margins: list[float] = field(default_factory=list)
    stages: dict[str, float] = field(default_factory=dict)
    """CPU seconds by stage: ``play`` (the bots' own moves), ``screen``, ``deep``, ``second``,
    ``worlds``, ``again`` (the second judgement)."""

    def add(self, other: Tally) -> None:
        self.games += other.games
        self.decisions += other.decisions
        self.screened += other.screened
        self.deep += other.deep
        self.confirmed += other.confirmed
        self.judged += other.judged
        self.kept += other.kept
        self.cpu += other.cpu
        self.margins += other.margins
        for stage, spent in other.stages.items():
            self.stages[stage] = self.stages.get(stage, 0.0) + spent

    def spend(self, stage: str, since: float) -> float:
        """Add the CPU time since ``since`` (``time.process_time()``) to ``stage``; the time now."""
        now = time.process_time()
        self.stages[stage] = self.stages.get(stage, 0.0) + now - since
        return now

    def per_hour(self) -> float:
        """Puzzles kept per hour of CPU time on one core."""
        return 3600.0 * self.kept / self.cpu if self.cpu > 0 else 0.0

    def report(self) -> str:
        """The yield and the margin distribution, as the command prints them."""
        lines = [
            f"games {self.games}, decisions with a choice {self.decisions}, candidates {self.screened}, "
            f"past the deep search {self.deep}, confirmed by the second search {self.confirmed}, "
            f"past the world check {self.judged}, kept (judged again alike) {self.kept}",
            f"CPU {self.cpu / 3600:.3f} core-hours: {self.per_hour():.0f} puzzles per core-hour",
        ]
        if self.cpu > 0 and self.stages:
            shares = ", ".join(f"{k} {100 * v / self.cpu:.0f}%" for k, v in self.stages.items())
            lines.append(f"CPU by stage: {shares}")
        if self.margins:
            lines.append("margin distribution:")
            for lo, hi, n in margin_histogram(self.margins):
                lines.append(f"  {lo:.2f}-{hi:.2f}  {n:5d}  {'#' * round(60 * n / len(self.margins))}")
        return "\n".join(lines)


def margin_histogram(margins: Sequence[float], step: float = 0.05) -> list[tuple[float, float, int]]:
    """Counts of ``margins`` in bins of ``step`` from the lowest bin that holds one up to 1."""
    if not margins:
        return []
    first = math.floor(min(margins) / step)
    last = max(first, math.floor(min(max(margins), 0.9999) / step))
    counts = Counter(min(math.floor(m / step), last) for m in margins)
    return [(b * step, (b + 1) * step, counts.get(b, 0)) for b in range(first, last + 1)]


# --- the checks -------------------------------------------------------------------------------------

_SEARCHERS: dict[SearchLevel, SearchBot] = {}


def _searcher(level: SearchLevel, seed: int) -> SearchBot:
    """A search bot of ``level`` that searches as ``SearchBot(level, seed)`` would; one per level
    and process, so that its table of card values is made once."""
    bot = _SEARCHERS.get(level)
    if bot is None:
        bot = _SEARCHERS[level] = SearchBot(level, seed)
    bot.seed, bot.rng = seed, random.Random(seed)
    return bot


def _wins(view: Position, player: int, found: Analysis, level: SearchLevel) -> list[tuple[str, int, float]]:
    return [
        (str(a), visits, win_probability(view, player, mean, level)) for a, visits, mean in found.actions if visits > 0
    ]


def gap(
    view: Position, player: int, found: Analysis, level: SearchLevel, min_visits: int
) -> tuple[str, float, float, str]:
    """(the search's choice, its win probability, the gap to the best other action it weighed,
    that action). An action counts once tried ``min_visits`` times (when none was, the most
    tried other action counts); a choice whose estimate is not the highest has a gap of at most 0."""
    wins = _wins(view, player, found, level)
    choice = str(found.choice)
    best = next(w for a, _, w in wins if a == choice)
    others = [(w, a) for a, v, w in wins if a != choice and v >= min_visits]
    if not others:  # the most tried other action (the list is most visited first)
        others = [(w, a) for a, _, w in wins if a != choice][:1]
    if not others:
        return choice, best, 0.0, ""
    other, alt = max(others)
    return choice, best, best - other, alt


def _view_with_known(view: Position, known: Mapping[int, Sequence[str]]) -> Position:
    out = view.copy()
    for p, cards in known.items():
        hand, todo = list(out.hands[p]), list(cards)
        for i, c in enumerate(hand):
            if c is None and todo:
                hand[i] = todo.pop(0)
        out.hands[p] = hand
    return out


def worlds_of(
    view: Position, known: Mapping[int, Sequence[str]], deck: Sequence[str], n: int, rng: random.Random
) -> Iterator[Position]:
    """``n`` full positions consistent with what the solver knows at ``view``: the known cards in
    the opponent's hand, every other hidden card drawn from that player's pool (the solver's own
    list for their deck, the opponent's army's standard list less the cards in the open)."""
    from lordsofwar.core.encoding import determinize_position

    me = view.decider
    base = _view_with_known(view, known)
    for _ in range(n):
        pools = {p: pool_of(base, p, deck if p == me else None, rng) for p in (1, 2)}
        yield determinize_position(base, rng.getrandbits(63), pools)


def flat_monte_carlo(
    worlds: Sequence[Position], player: int, turns: int, seed: int
) -> list[tuple[str, float]]:
    """The second search: every legal action played in every world, each followed by
    ``turns`` turns of the core's greedy playout and judged by the search's evaluation of the
    end; (action, mean win probability for ``player``), best first."""
    from lordsofwar.core._native import Game

    level = LEVELS["general"]
    totals: dict[str, float] = {}
    rng = random.Random(seed)
    for world in worlds:
        game = Game.from_position(world)
        values = [card_value(world.cards.card(c), world.variant) for c in game._t.ids]
        for text in game.legal():
            g = game.clone()
            g.apply(text)
            if not g.is_over:
                g.playout(rng.getrandbits(63), "greedy", turns)
            p1 = float(g._s.evaluate(values, level.scale))
            totals[text] = totals.get(text, 0.0) + (p1 if player == 1 else 1.0 - p1)
    ranked = [(a, t / len(worlds)) for a, t in totals.items()]
    ranked.sort(key=lambda t: (-t[1], t[0]))
    return ranked


def themes_of(world: Position, action: Action) -> list[str]:
    """The themes of ``action`` (:data:`THEMES`), from the action itself and the events it causes
    in ``world`` (a full position where it is legal; the solver's own action causes the same
    events in every world)."""
    player = world.decider
    cards = world.cards
    after = world.copy()
    events: list[Event] = after.push(action)
    found: set[str] = set()
    enemy = [e for e in events if e["type"] == "eliminated" and e["owner"] != player]
    own = [e for e in events if e["type"] == "eliminated" and e["owner"] == player]
    for e in enemy:
        card = cards.card(e["card"])
        if card.rank == "general":
            found.add("general-kill")
        elif card.is_command:
            found.add("command-kill")
    if len(enemy) >= 2:
        found.add("double-kill")
    if enemy and own:
        found.add("trade")
    if not enemy:
        found.add("quiet")
    if action.kind == "shoot" or any(e["type"] == "shot" and e.get("declared") is False for e in events):
        found.add("ranged")
    moved = action.card if action.kind == "deploy" else world.board[action.frm].id if action.frm in world.board else None
    if action.kind == "deploy" and moved is not None and unit_kind(cards.card(moved), player).is_support:
        found.add("support")
    if moved is not None and enemy:
        kind = unit_kind(cards.card(moved), player)
        if kind.is_cavalry:
            found.add("cavalry")
        if kind.is_spear:
            found.add("spear")
    if action.kind == "advance" or any(e["type"] == "advance" for e in events):
        found.add("berserker")
    kinds = {"move": "move", "recall": "recall", "deploy": "deployment"}
    if action.kind in kinds:
        found.add(kinds[action.kind])
    if action.kind in ("draw", "recall", "pass"):
        found.add("reinforcement")
    if any(e["type"] == "result" and e["winner"] == player for e in events):
        found.add("winning-blow")
    return [t for t in THEMES if t in found]


def rating_of(legal: int, margin: float, greedy_finds: bool, screen_finds: bool) -> int:
    """A starting rating: more legal actions make it harder, as does a solution the greedy bot
    or the quick search would miss; a wide margin makes it easier (the solution stands out)."""
    r = 700 + 120 * math.log2(max(legal, 2))
    r += 0 if greedy_finds else 350
    r += 0 if screen_finds else 200
    r -= 400 * min(max(margin - 0.25, 0.0), 0.5)
    return int(min(max(round(r / 10) * 10, RATING_RANGE[0]), RATING_RANGE[1]))


def examine(
    pos: Position,
    events: Sequence[Event],
    deck: Sequence[str],
    settings: Settings,
    seed: int,
    tally: Tally,
) -> Puzzle | None:
    """The puzzle the decision at ``pos`` (a full position, ``events`` the game's so far, ``deck``
    the decider's list) makes, or None when a check fails; counts what it did in ``tally``."""
    player = pos.decider
    legal = pos.legal_actions()
    if len(legal) < 2 or len(legal) > settings.max_legal:
        return None
    tally.decisions += 1
    clock = time.process_time()
    view = notation.view(pos, player)
    known = known_hands(events, player)
    choice, screen_gap = _screen(view, known, deck, settings, seed)
    tally.spend("screen", clock)
    if screen_gap < settings.screen:
        return None
    tally.screened += 1
    puzzle = judge(view, known, deck, settings, seed, tally, choice)
    if puzzle is None:
        return None
    if settings.again:
        clock = time.process_time()
        again = judge(view, known, deck, settings, derived_seed(seed, "again"), None, choice)
        tally.spend("again", clock)
        if again is None or again.solution != puzzle.solution:
            return None
    tally.kept += 1
    tally.margins.append(puzzle.margin)
    return puzzle


def _screen(
    view: Position, known: Mapping[int, Sequence[str]], deck: Sequence[str], settings: Settings, seed: int
) -> tuple[str, float]:
    level = replace(LEVELS["veteran"], iterations=settings.screen_iterations, seconds=settings.seconds)
    quick = _searcher(level, derived_seed(seed, "screen")).analyse(view, known=known, deck=deck)
    choice, _, screen_gap, _ = gap(view, view.decider, quick, level, 3)
    return choice, screen_gap


def judge(
    view: Position,
    known: Mapping[int, Sequence[str]],
    deck: Sequence[str],
    settings: Settings,
    seed: int,
    tally: Tally | None = None,
    screen_choice: str | None = None,
) -> Puzzle | None:
    """Checks 2 to 4 (the deep search, the second search, the world check) of the decision at
    ``view`` (the solver's view; ``known``: the opponent's hand cards they have seen; ``deck``:
    their list): the puzzle, or None when one fails. Everything it needs is what a puzzle
    stores, so a shipped puzzle can be judged again (:func:`recheck`)."""
    tally = tally if tally is not None else Tally()
    player = view.decider
    legal = view.legal_actions()
    clock = time.process_time()
    top = settings.level()
    first = _searcher(top, derived_seed(seed, "first")).analyse(
        view, known=known, deck=deck, seconds=settings.seconds, iterations=settings.first_iterations
    )
    if gap(view, player, first, top, settings.min_visits)[2] < 0.8 * settings.margin:
        tally.spend("deep", clock)
        return None
    deep = _searcher(top, derived_seed(seed, "deep")).analyse(
        view, known=known, deck=deck, seconds=settings.seconds, iterations=settings.deep_iterations
    )
    solution, win, margin, alternative = gap(view, player, deep, top, settings.min_visits)
    clock = tally.spend("deep", clock)
    if margin < settings.margin:
        return None
    tally.deep += 1
    rng = random.Random(derived_seed(seed, "worlds"))
    flat = flat_monte_carlo(
        list(worlds_of(view, known, deck, settings.flat_worlds, rng)), player, settings.flat_turns, rng.getrandbits(63)
    )
    clock = tally.spend("second", clock)
    if flat[0][0] != solution or flat[0][1] - flat[1][1] < settings.confirm:
        return None
    tally.confirmed += 1
    world_level = replace(top, iterations=settings.world_iterations)
    passed = 0
    worlds = list(worlds_of(view, known, deck, settings.worlds, rng))
    allowed = math.floor(settings.worlds * (1 - settings.world_share) + 1e-9)  # failed worlds allowed
    for i, world in enumerate(worlds):
        found = _searcher(world_level, derived_seed(seed, "world", i)).analyse(world)
        chosen, _, world_gap, _ = gap(world, player, found, world_level, settings.min_visits)
        passed += chosen == solution and world_gap >= settings.margin
        if i + 1 - passed > allowed:
            tally.spend("worlds", clock)
            return None  # too many worlds failed already
    tally.spend("worlds", clock)
    share = passed / len(worlds)
    if share < settings.world_share:
        return None
    if screen_choice is None:
        screen_choice = _screen(view, known, deck, settings, seed)[0]
    action = notation.parse_action(solution, view)
    greedy = GreedyBot(derived_seed(seed, "greedy")).choose(view, known, deck)
    view_doc = notation.view_json(view, player)
    puzzle = Puzzle(
        id=puzzle_id(view_doc, solution),
        view=view_doc,
        player=player,
        deck=list(deck),
        known=list(known.get(3 - player, [])),
        solution=solution,
        margin=round(margin, 4),
        themes=themes_of(worlds[0], action),
        rating=rating_of(len(legal), margin, str(greedy) == solution, screen_choice == solution),
        win=round(win, 4),
        alternative=alternative,
        worlds=round(share, 4),
        confirm=round(flat[0][1] - flat[1][1], 4),
        legal=len(legal),
    )
    check(puzzle)
    tally.judged += 1
    return puzzle


def recheck(puzzle: Puzzle, settings: Settings | None = None, seed: int = 0) -> Puzzle | None:
    """Judge a stored puzzle again from what it stores, with other seeds for every search
    (``seed``): the puzzle as found again, or None when a check now fails."""
    view = puzzle.position()
    known = {3 - puzzle.player: list(puzzle.known)} if puzzle.known else {}
    return judge(view, known, puzzle.deck, settings or Settings(), derived_seed(seed, "recheck", int.from_bytes(puzzle.id.encode(), "big")))


def mine_game(seed: int, index: int, settings: Settings) -> tuple[list[Puzzle], Tally]:
    """Play game ``index`` of the run with ``seed`` and examine each of its decisions."""
    start = time.process_time()
    tally = Tally(games=1)
    a, b = PAIRINGS[index % len(PAIRINGS)]
    if (index // len(PAIRINGS)) % 2:
        a, b = b, a
    game_seed = derived_seed(seed, "puzzle-game", index)
    bots = {1: make_bot(a, derived_seed(game_seed, "bot", 1)), 2: make_bot(b, derived_seed(game_seed, "bot", 2))}
    decks, pos = deal_for(derived_seed(game_seed, "deal"))
    events: list[Event] = []
    found: list[Puzzle] = []
    n = 0
    while pos.result is None and n < MAX_ACTIONS:
        player = pos.decider
        puzzle = examine(pos, events, decks[player - 1], settings, derived_seed(game_seed, "decision", n), tally)
        if puzzle is not None:
            found.append(puzzle)
        clock = time.process_time()
        view = notation.view(pos, player)
        action = bots[player].choose(view, known_hands(events, player), decks[player - 1])
        events.extend(pos.push(action))
        tally.spend("play", clock)
        n += 1
    tally.cpu = time.process_time() - start
    return found, tally


def _mine_task(args: tuple[int, int, Settings]) -> tuple[list[Puzzle], Tally]:
    return mine_game(*args)


def generate(
    seed: int,
    count: int | None = None,
    seconds: float | None = None,
    out: str | Path | None = None,
    processes: int = 1,
    settings: Settings | None = None,
    first_game: int = 0,
    progress: Callable[[Tally, int], None] | None = None,
) -> tuple[list[Puzzle], Tally]:
    """Mine games ``first_game``, ``first_game + 1``... of the run ``seed`` until ``count``
    new puzzles are kept or ``seconds`` have passed (whichever first; neither: one game per
    process). With ``out``, the puzzles already there are kept and the file is written again
    after every game that adds one, so a run stopped at any time leaves its puzzles usable.
    ``progress(tally, total)`` is called after every game."""
    settings = settings or Settings()
    puzzles: dict[str, Puzzle] = {}
    if out is not None and Path(out).exists():
        puzzles = {p.id: p for p in read(out)}
    before = len(puzzles)
    tally = Tally()
    deadline = None if seconds is None else time.monotonic() + seconds
    limit = processes if count is None and seconds is None else None

    def more(started: int) -> bool:
        if limit is not None and started >= limit:
            return False
        if count is not None and len(puzzles) - before >= count:
            return False
        return deadline is None or time.monotonic() < deadline

    def take(result: tuple[list[Puzzle], Tally]) -> None:
        found, t = result
        tally.add(t)
        new = [p for p in found if p.id not in puzzles]
        for p in new:
            puzzles[p.id] = p
        if new and out is not None:
            tmp = Path(f"{out}.tmp{os.getpid()}")
            write(tmp, list(puzzles.values()), compress=Path(out).suffix == ".gz")
            tmp.replace(out)
        if progress is not None:
            progress(tally, len(puzzles))

    started = 0
    if processes <= 1:
        while more(started):
            take(mine_game(seed, first_game + started, settings))
            started += 1
    else:
        ctx = multiprocessing.get_context("spawn")
        with concurrent.futures.ProcessPoolExecutor(processes, mp_context=ctx) as pool:
            running: set[concurrent.futures.Future[tuple[list[Puzzle], Tally]]] = set()
            while True:
                while len(running) < processes and more(started):
                    running.add(pool.submit(_mine_task, (seed, first_game + started, settings)))
                    started += 1
                if not running:
                    break
                done, running = concurrent.futures.wait(running, return_when=concurrent.futures.FIRST_COMPLETED)
                for future in done:
                    take(future.result())
    return sorted(puzzles.values(), key=lambda p: p.id), tally


__all__ = [
    "PAIRINGS",
    "Settings",
    "Tally",
    "examine",
    "judge",
    "recheck",
    "flat_monte_carlo",
    "generate",
    "gap",
    "margin_histogram",
    "mine_game",
    "rating_of",
    "themes_of",
    "worlds_of",
]

"""Players that choose actions: one interface, a ladder of strengths (docs/bots.md).

A bot sees only its own view of the game (``notation.view(pos, player)``): the opponent's hand
in the hidden-hands variant and both decks are ``None`` there, so a bot cannot cheat by
construction. It may also be told what its player knows besides the view: the hand cards the
opponent showed (``known``) and its own deck list (``deck``). The game loop, not the bot,
applies the chosen action to the real position.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from lordsofwar.rules.i18n import N_
from lordsofwar.rules.state import Action, Position


@runtime_checkable
class Bot(Protocol):
    """A player program: it is shown its own view and answers with one of its legal actions."""

    name: str

    def choose(
        self,
        view: Position,
        known: Mapping[int, Sequence[str]] | None = None,
        deck: Sequence[str] | None = None,
    ) -> Action:
        """One of ``view.legal_actions()`` for ``view.decider`` (the bot's own player).

        ``known``: per opponent, hand cards shown in the open (a forced deployment's reveal, a
        recall; :func:`lordsofwar.rules.knowledge.known_hands`); ``deck``: the bot's own deck list."""
        ...


BotFactory = Callable[[int | None], Bot]


def _random_bot(seed: int | None) -> Bot:
    from lordsofwar.bots.random_bot import RandomBot

    return RandomBot(seed)


def _greedy_bot(seed: int | None) -> Bot:
    from lordsofwar.bots.greedy import GreedyBot

    return GreedyBot(seed)


def _scout_bot(seed: int | None) -> Bot:
    from lordsofwar.bots.policy import ScoutBot

    return ScoutBot(seed)


def _search_bot(name: str) -> BotFactory:
    def factory(seed: int | None) -> Bot:
        from lordsofwar.bots.search import LEVELS, SearchBot

        return SearchBot(LEVELS[name], seed)

    return factory


@dataclass(frozen=True, slots=True)
class BotLevel:
    """One built-in bot: the name a user picks it by and the words that describe it. The words
    are English, marked for the catalogues and translated where they are shown (the web pages
    and their scripts get them from the server)."""

    name: str
    """Its key: ``lordsofwar play --opponent NAME``, the web's ``bot:NAME``, a bot account's level."""
    factory: BotFactory
    player_name: str
    """The bot as a player: "Veteran bot"."""
    title: str
    """The level alone, as in "estimated by the Veteran bot"."""
    blurb: str
    """What it does, in a few words (the lobby shows it beside the name)."""
    searches: bool = False
    """A level of the search bot (:data:`lordsofwar.bots.search.LEVELS` holds its settings)."""


BOT_LEVELS: tuple[BotLevel, ...] = (
    BotLevel("random", _random_bot, N_("Random bot"), N_("Random"), N_("plays random legal actions")),
    BotLevel(
        "recruit",
        _search_bot("recruit"),
        N_("Recruit bot"),
        N_("Recruit"),
        N_("a beginner: a small search, a turn ahead"),
        searches=True,
    ),
    BotLevel("greedy", _greedy_bot, N_("Greedy bot"), N_("Greedy"), N_("takes the most value each turn")),
    BotLevel("scout", _scout_bot, N_("Scout bot"), N_("Scout"), N_("a trained network's instinct, no search")),
    BotLevel(
        "veteran",
        _search_bot("veteran"),
        N_("Veteran bot"),
        N_("Veteran"),
        N_("searches hundreds of lines"),
        searches=True,
    ),
    BotLevel(
        "elite",
        _search_bot("elite"),
        N_("Elite bot"),
        N_("Elite"),
        N_("searches thousands of lines"),
        searches=True,
    ),
    BotLevel(
        "general",
        _search_bot("general"),
        N_("General bot"),
        N_("General"),
        N_("searches 40,000 lines a decision"),
        searches=True,
    ),
    BotLevel(
        "marshal",
        _search_bot("marshal"),
        N_("Marshal bot"),
        N_("Marshal"),
        N_("the strongest: a search guided by a trained network"),
        searches=True,
    ),
)
"""The built-in bots, weakest first (the ladder measured by bench/bots.py, docs/bots.md):
``random`` (uniformly random legal actions), ``recruit`` (a small search), ``greedy`` (the
action that eliminates the most value this turn, see :mod:`lordsofwar.bots.greedy`), ``scout``
(a trained network's policy alone, :class:`lordsofwar.bots.policy.ScoutBot`), then the search
levels ``veteran``, ``elite``, ``general`` and ``marshal`` (the search guided by a trained
network). The one list of them: everything else (the CLI's choices, the web's bot accounts, the
lobby, the pages' scripts) is derived from it."""

BOTS: dict[str, BotFactory] = {level.name: level.factory for level in BOT_LEVELS}
"""The bots a user can pick by name (``lordsofwar play --opponent NAME``), each built from a seed,
weakest first."""

SEARCH_LEVELS: tuple[str, ...] = tuple(level.name for level in BOT_LEVELS if level.searches)
"""The search bots (:mod:`lordsofwar.bots.search`), weakest first."""

TOP: str = SEARCH_LEVELS[-1]
"""The strongest search level (``marshal``): it gives the hints and analyses games
(:mod:`lordsofwar.bots.analysis`)."""


def decide(
    bot: Bot, view: Position, known: Mapping[int, Sequence[str]] | None = None, deck: Sequence[str] | None = None
) -> Action:
    """``bot.choose`` with what its player knows besides the view, for a bot that takes it; a
    bot written as ``choose(self, view)`` (the interface before ``known`` and ``deck``) is shown
    the view alone."""
    import inspect

    params = inspect.signature(bot.choose).parameters
    if "known" in params or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return bot.choose(view, known=known, deck=deck)
    return bot.choose(view)


POLICY_PREFIX = "policy:"
"""``policy:FILE`` names a trained policy network (:mod:`lordsofwar.bots.policy`, docs/rl.md)."""

PYTHON_PREFIX = "python:"
"""``python:MODULE:FACTORY`` names a bot written in Python: ``FACTORY(seed)`` in ``MODULE`` (a
module name, or the path of a ``.py`` file) returns an object with ``choose(view, known=None,
deck=None)`` (:class:`Bot`)."""


def _python_factory(spec: str) -> Callable[[int | None], Any]:
    """The callable ``FACTORY`` of ``MODULE:FACTORY``. A module is imported by name, looked for
    in the working directory too (as ``python -m`` does), so that worker processes started from
    the same directory find it; a ``.py`` path is loaded from that file."""
    import importlib
    import importlib.util
    import os
    import sys

    module_name, sep, attr = spec.rpartition(":")
    if not sep or not module_name or not attr:
        raise ValueError(f"python:{spec}: write python:MODULE:FACTORY (a module or a .py file, and a callable in it)")
    try:
        if module_name.endswith(".py"):
            path = os.path.abspath(module_name)
            if not os.path.isfile(path):
                raise ValueError(f"python:{spec}: no file {module_name!r}")
            key = "lordsofwar_agent_" + format(abs(hash(path)), "x")
            module = sys.modules.get(key)
            if module is None:
                loader_spec = importlib.util.spec_from_file_location(key, path)
                if loader_spec is None or loader_spec.loader is None:
                    raise ValueError(f"python:{spec}: {module_name!r} is not a Python file")
                module = importlib.util.module_from_spec(loader_spec)
                sys.modules[key] = module
                try:
                    loader_spec.loader.exec_module(module)
                except BaseException:
                    del sys.modules[key]
                    raise
        else:
            if os.getcwd() not in sys.path and "" not in sys.path:
                sys.path.append(os.getcwd())
            module = importlib.import_module(module_name)
    except ValueError:
        raise
    except ModuleNotFoundError as exc:
        raise ValueError(f"python:{spec}: no module named {exc.name or module_name!r}") from None
    except Exception as exc:
        raise ValueError(f"python:{spec}: importing {module_name!r} failed: {type(exc).__name__}: {exc}") from None
    try:
        factory = getattr(module, attr)
    except AttributeError:
        raise ValueError(f"python:{spec}: {module_name!r} has no {attr!r}") from None
    if not callable(factory):
        raise ValueError(f"python:{spec}: {attr!r} is a {type(factory).__name__}, not a callable taking a seed")
    return factory  # type: ignore[no-any-return]


def _python_bot(spec: str, seed: int | None) -> Bot:
    """The bot that ``python:MODULE:FACTORY`` makes for ``seed``, refused with a ``ValueError``
    when the factory fails or returns something without ``choose``. One without a ``name`` is
    given the name it was called by."""
    factory = _python_factory(spec)
    try:
        bot = factory(seed)
    except Exception as exc:
        raise ValueError(f"python:{spec}: calling it with a seed failed: {type(exc).__name__}: {exc}") from None
    if not callable(getattr(bot, "choose", None)):
        raise ValueError(
            f"python:{spec} returned {type(bot).__name__}, not a bot (an object with choose(view, known=None, deck=None))"
        )
    if not isinstance(getattr(bot, "name", None), str):
        try:
            bot.name = PYTHON_PREFIX + spec
        except (AttributeError, TypeError):
            raise ValueError(f"python:{spec} returned a bot with no name, and one cannot be set on it") from None
    return bot  # type: ignore[no-any-return]


def agent_label(name: str) -> str:
    """How tables show the bot called ``name``: a built-in level or a Python bot by that name,
    a policy by its file name, a Python file by its file name and factory."""
    import os

    if name.startswith(POLICY_PREFIX):
        return os.path.basename(name[len(POLICY_PREFIX) :]) or name
    if name.startswith(PYTHON_PREFIX):
        module_name, _, attr = name[len(PYTHON_PREFIX) :].rpartition(":")
        if module_name.endswith(".py"):
            return f"{os.path.basename(module_name)}:{attr}"
    return name


def make_bot(name: str, seed: int | None = None) -> Bot:
    """The bot called ``name``: one of :data:`BOTS`, ``policy:FILE`` for a trained policy, or
    ``python:MODULE:FACTORY`` for a bot written in Python (``FACTORY(seed)``). An unknown name
    raises ``ValueError`` listing the known ones (weakest first), a file that is not a policy
    ``PolicyError`` (a ``ValueError``) saying why, a Python bot that cannot be made a
    ``ValueError`` saying why (no such module, not callable, no bot returned)."""
    if name.startswith(POLICY_PREFIX):
        from lordsofwar.bots.policy import PolicyBot

        return PolicyBot(name[len(POLICY_PREFIX) :], seed)
    if name.startswith(PYTHON_PREFIX):
        return _python_bot(name[len(PYTHON_PREFIX) :], seed)
    try:
        factory = BOTS[name]
    except KeyError:
        raise ValueError(
            f"unknown bot {name!r} (known: {', '.join(BOTS)}, policy:FILE or python:MODULE:FACTORY)"
        ) from None
    return factory(seed)


__all__ = [
    "BOTS",
    "BOT_LEVELS",
    "POLICY_PREFIX",
    "PYTHON_PREFIX",
    "SEARCH_LEVELS",
    "TOP",
    "Bot",
    "BotFactory",
    "BotLevel",
    "agent_label",
    "decide",
    "make_bot",
]

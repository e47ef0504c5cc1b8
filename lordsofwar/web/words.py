"""The words for a game's options that pages and messages show (translated where they are shown,
docs/i18n.md): the option values themselves stay English keys on the wire."""

from __future__ import annotations

from lordsofwar import i18n
from lordsofwar.bots import BOT_LEVELS
from lordsofwar.i18n import N_, _

OPTION_WORDS = {
    "basic": N_("basic"),
    "intermediate": N_("intermediate"),
    "bordered": N_("bordered"),
    "unbordered": N_("unbordered"),
    "rated": N_("rated"),
    "casual": N_("casual"),
    "hints": N_("hints"),
}
HANDS = {"hidden": N_("hidden hands"), "visible": N_("visible hands")}


def option_word(value: str) -> str:
    """An option's value (``basic``, ``bordered``...) in the current language (unknown: as it is)."""
    return _(OPTION_WORDS[value]) if value in OPTION_WORDS else value


def hands_words(value: str) -> str:
    """``hidden hands`` or ``visible hands`` in the current language."""
    return _(HANDS[value]) if value in HANDS else _("{hands} hands").format(hands=value)


def army_word(key: str) -> str:
    """An army inside a list of options: the key in English (``custom decks: orcs, elves``), the
    rules' own name of the army in another language."""
    return key if i18n.current() == i18n.DEFAULT else i18n.army_name(key)


BOT_NAMES = {level.name: level.player_name for level in BOT_LEVELS}
"""Each built-in bot's name as a player (English; :data:`lordsofwar.bots.BOT_LEVELS`)."""


def bot_name(level: str) -> str:
    """A built-in bot level's name, in the current language (an unknown level: as it is)."""
    return _(BOT_NAMES[level]) if level in BOT_NAMES else level

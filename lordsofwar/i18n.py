"""Languages: English, German and Polish, from gettext catalogues (docs/i18n.md).

The catalogues live in ``lordsofwar/locale``: ``messages`` for the server's words (pages, errors,
mails, the rules engine's refusals), ``js`` for the words the browser scripts write. The ``.po``
files are the source; the set-up command compiles them to ``.mo`` (``scripts/i18n compile``). A
catalogue whose ``.mo`` is missing or older than its ``.po`` is read from the ``.po`` itself, so
an installed package without the compiled files still speaks every language.

The language of the moment is a context variable: the web server sets it for each request (the
player's setting, else the ``low_lang`` cookie, else Accept-Language) and the mailer for each mail.
Outside of both, such as in the command line, it is English, the language the code is written in.
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from pathlib import Path
from typing import Any

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.numbers import format_decimal
from babel.support import NullTranslations, Translations

from lordsofwar.rules import result as result_codes
from lordsofwar.rules.result import Result, Termination

LOCALE_DIR = Path(__file__).parent / "locale"
DEFAULT = "en"
LOCALES = ("en", "de", "pl")
NAMES = {"en": "English", "de": "Deutsch", "pl": "Polski"}
"""Each language by its own name, as a language menu shows it."""
DOMAINS = ("messages", "js")
PSEUDO = "qps"
"""A test-only language (``LOW_I18N_PSEUDO=1``): every catalogued string in ⟦ ⟧, so that a test can
find any word on a page that no catalogue holds."""

_current: ContextVar[str] = ContextVar("lordsofwar_locale", default=DEFAULT)


def pseudo_enabled() -> bool:
    return os.environ.get("LOW_I18N_PSEUDO") == "1"


def available() -> tuple[str, ...]:
    return (*LOCALES, PSEUDO) if pseudo_enabled() else LOCALES


def current() -> str:
    return _current.get()


def activate(locale: str | None) -> None:
    """Make ``locale`` the language of the running task (unknown or None: unchanged)."""
    if locale in available():
        _current.set(locale)


@contextmanager
def use(locale: str | None) -> Iterator[None]:
    """Speak ``locale`` inside the block (an unknown one speaks English)."""
    token = _current.set(locale if locale in available() else DEFAULT)
    try:
        yield
    finally:
        _current.reset(token)


_PLACEHOLDER = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*(?:![rsa])?\}|%\([A-Za-z_]+\)[sd]")


def pseudo(message: str) -> str:
    """``message`` in the test language: its words in ⟦ ⟧, its placeholders outside them, so that
    a value filled in is checked as any other text of the page (data, or catalogued itself)."""
    return "⟦" + _PLACEHOLDER.sub(lambda m: "⟧" + m.group(0) + "⟦", message) + "⟧"


class _Pseudo(NullTranslations):
    """Every string of the catalogue template in the test language; one not in it as it is."""

    def __init__(self, known: set[str]):
        super().__init__()
        self.known = known

    def gettext(self, message: str) -> str:
        return pseudo(message) if message in self.known else message

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return self.gettext(singular if n == 1 else plural)


def _catalogue_path(locale: str, domain: str) -> Path:
    return LOCALE_DIR / locale / "LC_MESSAGES" / f"{domain}.po"


@cache
def translations(locale: str, domain: str = "messages") -> NullTranslations:
    """The compiled catalogue of ``locale`` (English: the strings as written)."""
    if locale == PSEUDO:
        with open(LOCALE_DIR / f"{domain}.pot", "rb") as f:
            template = read_po(f)
        known = {m.id if isinstance(m.id, str) else m.id[0] for m in template if m.id}
        known |= {m.id[1] for m in template if m.id and not isinstance(m.id, str)}
        return _Pseudo(known)
    if locale not in LOCALES or locale == DEFAULT:
        return NullTranslations()
    po = _catalogue_path(locale, domain)
    mo = po.with_suffix(".mo")
    if mo.exists() and mo.stat().st_mtime >= po.stat().st_mtime:
        with open(mo, "rb") as f:
            return Translations(f, domain=domain)
    with open(po, "rb") as f:
        catalogue = read_po(f, locale=locale, domain=domain)
    buf = io.BytesIO()
    write_mo(buf, catalogue)
    buf.seek(0)
    return Translations(buf, domain=domain)


def gettext(message: str) -> str:
    """``message`` in the current language."""
    return translations(_current.get()).gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of ``singular``/``plural`` for ``n``, in the current language."""
    return translations(_current.get()).ngettext(singular, plural, n)


_ = gettext


def N_(message: str) -> str:
    """Marks a string for the catalogue where it is written; it is translated where it is shown."""
    return message


_Q = re.compile(r"^\s*([A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*|\*)\s*(?:;\s*q\s*=\s*([0-9.]{1,5}))?\s*$")


def negotiate(header: str | None) -> str | None:
    """The best of our languages for an Accept-Language header, or None when it names none."""
    if not header:
        return None
    ranked: list[tuple[float, int, str]] = []
    for i, part in enumerate(header[:500].split(",")[:20]):
        m = _Q.match(part)
        if not m:
            continue
        try:
            q = float(m.group(2)) if m.group(2) else 1.0
        except ValueError:
            continue
        if q > 0:
            ranked.append((-q, i, m.group(1).lower()))
    for _q, _i, tag in sorted(ranked):
        lang = tag.split("-")[0]
        if lang in available():
            return lang
    return None


@cache
def js_catalogue(locale: str) -> dict[str, Any]:
    """The ``js`` domain of ``locale`` for the browser: ``{msgid: msgstr}`` and, for plurals,
    ``{msgid: [forms...]}`` (keyed by the singular); a message with a context (pgettext) is keyed
    ``context + "\\x04" + msgid``, as gettext does; English is empty (the scripts' own words)."""
    if locale == PSEUDO:
        with open(LOCALE_DIR / "js.pot", "rb") as f:
            template = read_po(f)
        out: dict[str, Any] = {}
        for m in template:
            if not m.id:
                continue
            if isinstance(m.id, str):
                out[_js_key(m.context, m.id)] = pseudo(m.id)
            else:
                out[_js_key(m.context, m.id[0])] = [pseudo(m.id[0]), pseudo(m.id[1])]
        return out
    if locale not in LOCALES or locale == DEFAULT:
        return {}
    with open(_catalogue_path(locale, "js"), "rb") as f:
        catalogue = read_po(f, locale=locale, domain="js")
    out = {}
    for m in catalogue:
        if not m.id or m.fuzzy:
            continue
        if isinstance(m.id, str):
            if m.string:
                out[_js_key(m.context, m.id)] = m.string
        elif isinstance(m.string, (tuple, list)) and all(m.string):
            out[_js_key(m.context, m.id[0])] = list(m.string)
    return out


def _js_key(context: str | None, msgid: str) -> str:
    return f"{context}\x04{msgid}" if context else msgid



ARMIES = {
    "dwarves": N_("Dwarves"),
    "elves": N_("Elves"),
    "lizardmen": N_("Lizardmen"),
    "orcs": N_("Orcs"),
    "templars": N_("Templars"),
    "undead": N_("Undead"),
}
RANKS = {
    "general": N_("General"),
    "command": N_("Command"),
    "special": N_("Special"),
    "elite": N_("Elite"),
    "veteran": N_("Veteran"),
    "regular": N_("Regular"),
    "recruit": N_("Recruit"),
}
CLASSES = {
    "infantry": N_("Infantry"),
    "cavalry": N_("Cavalry"),
    "berserker": N_("Berserker"),
    "spear": N_("Spear"),
    "ranged": N_("Ranged"),
}
"""The rules' words for the data's keys (armies, ranks, classes), in the current language; a key
not listed is shown as it is. Card names stay as printed: the card data has them in English only."""


def army_name(key: str) -> str:
    if key == "random":
        return gettext("Random")
    return gettext(ARMIES[key]) if key in ARMIES else key.capitalize()


def deck_kind(kind: str) -> str:
    """A deck's kind as the data has it (lordsofwar.decks.kind: "orcs", "custom orcs",
    "mercenary"), for people."""
    if kind == "mercenary":
        return gettext("Mercenary")
    if kind.startswith("custom "):
        return gettext("Custom {army}").format(army=army_name(kind[len("custom "):]))
    return army_name(kind)


def rank_name(key: str) -> str:
    return gettext(RANKS[key]) if key in RANKS else key.capitalize()


def class_name(key: str) -> str:
    return gettext(CLASSES[key]) if key in CLASSES else key.capitalize()


def _more(threshold: Termination | None, more: Termination, who: str) -> str:
    if threshold is Termination.COMMANDS:
        if more is Termination.MORE_UNITS:
            return gettext("both reached the command threshold; {player} eliminated more units").format(player=who)
        return gettext("both reached the command threshold; {player} eliminated more command units").format(player=who)
    if more is Termination.MORE_UNITS:
        return gettext("both reached the unit threshold; {player} eliminated more units").format(player=who)
    return gettext("both reached the unit threshold; {player} eliminated more command units").format(player=who)


def _sentence(r: Result, who: Callable[[int | None], str]) -> str:  # noqa: C901 - one branch per termination
    t, n = r.termination, r.count or 0
    if t is Termination.UNITS:
        return ngettext("{n} unit eliminated", "{n} units eliminated", n).format(n=n)
    if t is Termination.COMMANDS:
        return ngettext("{n} command unit eliminated", "{n} command units eliminated", n).format(n=n)
    if t is Termination.BOTH_COMMAND_THRESHOLD:
        return gettext("both reached a threshold; {player} reached the command threshold").format(player=who(r.winner))
    if t in (Termination.MORE_UNITS, Termination.MORE_COMMANDS):
        return _more(r.threshold, t, who(r.winner))
    if t is Termination.EQUAL:
        if r.threshold is Termination.COMMANDS:
            return gettext("both reached the command threshold with equal units and command units")
        return gettext("both reached the unit threshold with equal units and command units")
    if t is Termination.NO_PROGRESS:
        return ngettext("no unit eliminated in {n} turn", "no unit eliminated in {n} turns", n).format(n=n)
    if t is Termination.NO_ACTION:
        return gettext("neither player can deploy, draw or recall")
    if t is Termination.RESIGNATION:
        return gettext("{player} resigned").format(player=who(r.player))
    if t is Termination.TIMEOUT:
        return gettext("{player} ran out of time").format(player=who(r.player))
    if t is Termination.DEADLINE:
        return gettext("{player} missed the turn deadline").format(player=who(r.player))
    if t is Termination.DRAW_AGREED:
        return gettext("draw agreed")
    if r.ending is None:  # aborted by a player
        return gettext("{player} aborted the game").format(player=who(r.player))
    inner = _sentence(Result(None, r.ending, player=r.player), who)
    return gettext("game aborted: {reason}").format(reason=inner)


def result_reason(result: Result | Mapping[str, Any] | None, names: Mapping[int, str] | None = None) -> str:
    """Why a game ended, in the current language, its players by name where ``names`` has them:
    written from the result's code and facts (lordsofwar.rules.result), a :class:`Result` or its
    JSON (``{"winner", "reason", "termination", ...}``, as the API and records give it). A
    result without a code (None, or an unknown one) is said by its ``reason`` as it is. The
    browser says the same (static/js/i18n.js ``reasonText``)."""
    if result is None:
        return ""
    if not isinstance(result, Result):
        doc = dict(result)
        try:
            result = result_codes.from_json(doc)
        except (KeyError, ValueError):
            return str(doc.get("reason") or "")

    def who(p: int | None) -> str:
        return (names or {}).get(p or 0) or gettext("player {n}").format(n=p)

    return _sentence(result, who)


def babel_locale() -> str:
    """The current language as Babel's locale, for dates and numbers (the test language: English)."""
    code = _current.get()
    return code if code in LOCALES and code != DEFAULT else "en_GB"  # "25 November 2026", as before


def number(value: float | int | str | None) -> str:
    """A score (``1.5``, ``3``) written as the current language writes numbers ("1,5" in German and
    Polish), with as many decimals as it has; anything else as it is."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "" if value is None else str(value)
    text = repr(float(value)) if isinstance(value, float) else str(value)
    decimals = len(text.split(".")[1]) if "." in text and isinstance(value, float) else 0
    pattern = "0" + ("." + "0" * decimals if decimals else "")
    return format_decimal(value, format=pattern, locale=babel_locale())

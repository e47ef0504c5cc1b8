"""The rules' messages in the player's language, without the rules importing anything of ours.

Messages are marked as docs/i18n.md says: ``_("...")``, ``ngettext(...)``, ``N_("...")`` (the
names ``pybabel extract`` looks for). Translating is the application's part: once it has loaded
``lordsofwar.i18n`` (the web server does), these use its language of the moment; a program that
never loads it (the rules as a library) gets the English text as written. Only error paths call
them.
"""

from __future__ import annotations

import sys

_APP = "lordsofwar.i18n"


def _(message: str) -> str:
    """``message`` in the current language."""
    app = sys.modules.get(_APP)
    translate = getattr(app, "gettext", None)
    return message if translate is None else str(translate(message))


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of ``singular``/``plural`` for ``n``, in the current language."""
    app = sys.modules.get(_APP)
    translate = getattr(app, "ngettext", None)
    if translate is None:
        return singular if n == 1 else plural
    return str(translate(singular, plural, n))


def N_(message: str) -> str:
    """Marks a string for the catalogue where it is written; it is translated where it is shown."""
    return message

"""The browser client's state for the browser tests.

The game page and the replay are ES modules with no global namespace: js/game.js exports ``live``
({S, UI, render, sync, send, toast, announce}) and js/replay.js ``replay`` ({R, go}). ``low(page)``
imports them, with everything js/render.js exports (actionText, cardName, describeText, ...), into
the test's own ``window.LoW`` of that page (again after each navigation), so that the tests' page
functions read ``window.LoW.live.S``, ``window.LoW.replay.R`` or ``window.LoW.actionText(...)``.
Importing a module the page has loaded gives the page's own instance: the same state.
"""

from __future__ import annotations

from typing import Any

_INSTALL = """() => {
  if (window.LoW) return true;
  if (window.__lowFailed) throw new Error('the page modules could not be imported: ' + window.__lowFailed);
  if (!window.__lowImport) {
    const entry = document.getElementById('replay') ? '/static/js/replay.js'
      : document.getElementById('game') ? '/static/js/game.js' : null;
    window.__lowImport = Promise.all([import('/static/js/render.js'), entry ? import(entry) : {}])
      .then(([render, page]) => { window.LoW = Object.assign({}, render, page); })
      .catch((e) => { window.__lowFailed = String(e); });
  }
  return false;
}"""


def low(page: Any) -> Any:
    """``page`` once its ``window.LoW`` holds the client modules' exports (see above)."""
    page.wait_for_function(_INSTALL)
    return page

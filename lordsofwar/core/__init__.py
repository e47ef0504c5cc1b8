"""The rules core for search and learning: the rules of :mod:`lordsofwar.rules`, compiled.

``Game`` is the compiled core (``IMPLEMENTATION == "native"``) when the extension was built,
and otherwise the same API on the Python engine (``"python"``), said once as a
:class:`CoreFallbackWarning`. ``LOW_CORE=python`` in the environment chooses the Python engine.
See docs/core.md.
"""

from __future__ import annotations

import os
import warnings

from lordsofwar.core.batching import SKIP
from lordsofwar.core.encoding import FRAME, FrameError
from lordsofwar.core.protocol import BatchProtocol, GameProtocol


class CoreFallbackWarning(RuntimeWarning):
    """The compiled core is not available: ``lordsofwar.core`` runs on the Python engine."""


IMPLEMENTATION: str
Game: type[GameProtocol]
Batch: type[BatchProtocol]
FALLBACK_REASON: str | None = None

if os.environ.get("LOW_CORE") == "python":
    FALLBACK_REASON = "LOW_CORE=python is set"
else:
    try:
        import lordsofwar.core._core  # noqa: F401
    except ImportError as exc:
        FALLBACK_REASON = f"the compiled extension is not installed ({exc})"

if FALLBACK_REASON is None:
    from lordsofwar.core import _batch, _native

    Game, Batch = _native.Game, _batch.Batch
    IMPLEMENTATION = "native"
else:
    from lordsofwar.core import _python

    Game, Batch = _python.Game, _python.Batch
    IMPLEMENTATION = "python"
    warnings.warn(
        f"lordsofwar.core runs on the Python engine, about 100 times slower: {FALLBACK_REASON}",
        CoreFallbackWarning,
        stacklevel=2,
    )

__all__ = [
    "FRAME",
    "IMPLEMENTATION",
    "SKIP",
    "Batch",
    "BatchProtocol",
    "CoreFallbackWarning",
    "FrameError",
    "Game",
    "GameProtocol",
]

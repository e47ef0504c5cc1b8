"""The refusal of a web request: an HTTP status and a one-line message for the user."""

from __future__ import annotations


class Problem(Exception):
    """An HTTP error with a one-line message for the user; nothing changed."""

    def __init__(self, status: int, message: str, code: str | None = None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code
        """A word for programs, the same in every language (``stale``, ``name``), where a client
        must tell refusals of one status apart; the message is for people, in their language."""

"""Answers of the accounts API (the request bodies, with their declared name and password rules,
stay beside the router that reads them). ``extra="forbid"``: a field sent without being declared
here is an error, never dropped in silence (tests/web/test_response_models.py)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class SessionUser(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(description="the signed-in player's name")


class SessionInfo(BaseModel):
    """The session as the browser has it: who is signed in, and the CSRF token to send."""

    model_config = ConfigDict(extra="forbid")
    user: SessionUser | None = Field(description="the signed-in player, or null")
    csrf: str = Field(description="the token to send as X-CSRF-Token (it changes when you sign in or out)")

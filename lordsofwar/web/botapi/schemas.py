"""Answers of the token and bot API (the game endpoints answer the game state of
lordsofwar.web.games.schemas). ``extra="forbid"``: a field sent without being declared here is an
error, never dropped in silence (tests/web/test_response_models.py). The request bodies stay
beside the router that reads them; the streams' lines are described in docs/bot-api.md."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field


class TokenInfo(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: int
    description: str
    scopes: list[str]
    created_at: datetime
    last_used_at: datetime | None = Field(description="about when it was last used (to the minute), or null")


class TokenCreated(TokenInfo):
    token: str = Field(description="the token itself: shown this once, never again (the server keeps only its SHA-256)")


class Revoked(BaseModel):
    model_config = ConfigDict(extra="forbid")
    revoked: int


class BotAccount(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    bot_account: bool = Field(description="the account is a bot account (it may use the game endpoints)")
    scopes: list[str] = Field(description="this token's scopes")


class ChallengeCreated(BaseModel):
    model_config = ConfigDict(extra="forbid")
    invitation: int = Field(description="the challenge posted (it waits in the opponent's lobby and event stream)")

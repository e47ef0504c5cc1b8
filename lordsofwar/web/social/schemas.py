"""Answers of the friends, presence and blocking API (docs/web-api.md)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Relation(BaseModel):
    """What you do to a player: whether you follow and whether you block them. Whether they
    block you is never told."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(description="the player's name, as spelt on their profile")
    following: bool
    blocking: bool
    online: bool | None = Field(
        None,
        description="whether the player is online now (false where either of you blocks the other: it reads as offline); null for a built-in bot",
    )


class Friend(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    online: bool = Field(description="online now: a socket of theirs open, or closed less than the fade ago; false for a player either of you blocks")


class Friends(BaseModel):
    """The players you follow (by name) with who is online, and the players you block."""

    model_config = ConfigDict(extra="forbid")
    friends: list[Friend]
    blocks: list[str] = Field(description="the names of the players you block")
    online: int = Field(description="players online on the whole site now")


class Online(BaseModel):
    model_config = ConfigDict(extra="forbid")
    count: int = Field(description="players online on the whole site now")

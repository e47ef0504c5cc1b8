"""Request bodies and answers of the chat API (``extra="forbid"``: every field the service sends
is declared here; tests/web/test_response_models.py)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.json_schema import models_json_schema

from lordsofwar.web.chat.service import MAX_LENGTH, VISIBLE

PhraseKey = Literal["hello", "good_luck", "good_game", "thanks", "well_played"]


class ChatText(BaseModel):
    """Your own words."""

    model_config = ConfigDict(extra="forbid", strict=True)
    text: str = Field(
        min_length=1,
        max_length=MAX_LENGTH,
        pattern=VISIBLE,
        description="one line as you typed it; control characters and bidirectional controls are removed, "
        "so it must hold some other character",
    )


class ChatPhrase(BaseModel):
    """A quick phrase: each reader sees it in their own language."""

    model_config = ConfigDict(extra="forbid", strict=True)
    phrase: PhraseKey


ChatPost = ChatText | ChatPhrase


class ChatMessageOut(BaseModel):
    """A chat message. Its ``text`` is plain text, never HTML; a quick phrase's ``text`` is its
    English words: show ``phrase`` in the reader's language instead."""

    model_config = ConfigDict(extra="forbid")
    id: int
    room: Literal["players", "spectators"]
    user: str = Field(description="the writer's name")
    text: str
    phrase: str | None = Field(description="a quick phrase's key, or null for the writer's own text")
    at: str = Field(description="when it was written (ISO 8601, UTC)")


class ChatRooms(BaseModel):
    """The rooms you may read, each its newest messages (oldest first); a room you may not read
    is left out."""

    model_config = ConfigDict(extra="forbid")
    players: list[ChatMessageOut] | None = None
    spectators: list[ChatMessageOut] | None = None


class ChatHistory(BaseModel):
    model_config = ConfigDict(extra="forbid")
    available: bool = Field(description="false: this game has no chat (it is played against a bot)")
    enabled: bool = Field(description="false: you turned chat off (nothing is sent to you, no rooms here)")
    room: Literal["players", "spectators"] | None = Field(
        description="the room you write in (players: the game's players; spectators: everyone else), null when you cannot write"
    )
    rooms: ChatRooms
    phrases: list[str] = Field(description="the quick phrases' keys")
    max_length: int = Field(description="characters of one message")


class ChatSettingsBody(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    enabled: bool = Field(description="false: hide every game's chat and send you none")


class ChatSettingsOut(BaseModel):
    model_config = ConfigDict(extra="forbid")
    enabled: bool


class ChatSocketMessage(BaseModel):
    """Sent on the game's socket to each reader of the message's room who has chat on."""

    model_config = ConfigDict(extra="forbid")
    type: Literal["chat"]
    message: ChatMessageOut


def chat_socket_components() -> dict[str, Any]:
    """The chat's socket message (and the models it uses) as OpenAPI components."""
    _refs, doc = models_json_schema([(ChatSocketMessage, "serialization")], ref_template="#/components/schemas/{model}")
    return dict(doc.get("$defs", {}))

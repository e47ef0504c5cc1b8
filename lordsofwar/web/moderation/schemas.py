"""Reports and moderation: request bodies and answers (strict JSON in, every field declared out:
``extra="forbid"``; tests/web/test_response_models.py)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from lordsofwar.web.moderation import service as moderation

Reason = Literal["abuse", "cheating", "spam", "name", "other"]
Action = Literal["warn", "mute", "ban", "close", "lift", "dismiss"]


class _Report(BaseModel):
    model_config = ConfigDict(extra="forbid")
    reason: Reason = Field(description="abuse: insults or harassment; cheating; spam; name: an offensive name; other")
    text: str = Field(default="", max_length=moderation.TEXT_MAX, description="what happened, in your words (optional)")


class PlayerReport(_Report):
    """A report of a player as a whole."""

    player: str = Field(max_length=30, description="the name of the player reported")


class MessageReport(_Report):
    """A report of a chat message (you must have been able to read it)."""

    message: int = Field(ge=1, le=2**31 - 1, description="the id of the chat message reported")


ReportIn = PlayerReport | MessageReport
"""A report: of a player (``player``) or of a chat message (``message``), not both."""


class ReportOut(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: int
    status: Literal["open", "actioned", "dismissed"]


class ChatLine(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: int
    room: str
    user: str
    text: str
    phrase: str | None
    at: str


class MessageContext(BaseModel):
    """The reported message and the messages of its room around it."""

    model_config = ConfigDict(extra="forbid")
    message: ChatLine
    before: list[ChatLine]
    after: list[ChatLine]


class HistoryOut(BaseModel):
    model_config = ConfigDict(extra="forbid")
    at: datetime
    action: Action
    moderator: str | None = Field(description="the moderator's name (null: the account is gone)")
    reason: str
    until: datetime | None = Field(description="a mute's or ban's end as given (null: a ban for good, or none)")


class PastReportOut(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: int
    at: datetime
    reason: Reason
    status: Literal["open", "actioned", "dismissed"]
    reporter: str


class QueueItemOut(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: int
    at: datetime
    reporter: str
    player: str = Field(description="the player reported")
    reason: Reason
    text: str
    game: int | None = Field(description="the game of the reported message")
    context: MessageContext | None = Field(description="a reported message with its neighbours (null: a player report)")
    muted_until: datetime | None
    banned: bool
    history: list[HistoryOut] = Field(description="what moderators did to the player, newest first")
    reports: list[PastReportOut] = Field(description="the other reports about the player, newest first")


class QueueOut(BaseModel):
    model_config = ConfigDict(extra="forbid")
    reports: list[QueueItemOut] = Field(description="one page of the open reports, in the order asked")
    open: int = Field(description="how many reports are open in all")
    page: int = Field(description="this page's number, from 1")
    pages: int = Field(description="how many pages the open reports fill (at least 1)")
    order: Literal["oldest", "newest"] = Field(description="the order of the reports: the oldest or the newest first")


class _Action(BaseModel):
    model_config = ConfigDict(extra="forbid")
    player: str = Field(max_length=30, description="the player acted on")
    reason: str = Field(
        max_length=moderation.TEXT_MAX, pattern=r"\S",
        description="why (kept in the log; a warning's words are shown to the player)",
    )
    report: int | None = Field(default=None, ge=1, le=2**31 - 1, description="the open report this settles")


class WarnIn(_Action):
    action: Literal["warn"]


class MuteIn(_Action):
    action: Literal["mute"]
    hours: int = Field(ge=1, le=moderation.MUTE_HOURS_MAX, description="how long the chat refuses the player")


class BanIn(_Action):
    action: Literal["ban"]
    days: int | None = Field(default=None, ge=1, le=moderation.BAN_DAYS_MAX, description="how long; null or absent: for good")


class CloseIn(_Action):
    action: Literal["close"]


class LiftIn(_Action):
    action: Literal["lift"]


class DismissIn(_Action):
    action: Literal["dismiss"]
    report: int = Field(ge=1, le=2**31 - 1, description="the open report dismissed")


ActionIn = Annotated[WarnIn | MuteIn | BanIn | CloseIn | LiftIn | DismissIn, Field(discriminator="action")]
"""A moderator's action; its fields depend on ``action``."""


class ActionOut(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: int
    action: Action
    player: str = Field(description="the player's name now (a closed account's placeholder)")
    until: datetime | None


class NoticeOut(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: int
    at: datetime
    reason: str = Field(description="the moderator's words")


class NoticesOut(BaseModel):
    model_config = ConfigDict(extra="forbid")
    notices: list[NoticeOut] = Field(description="warnings not yet acknowledged, oldest first")
    open_reports: int | None = Field(
        default=None, description="for a moderator: how many reports wait in the queue (null for anyone else)"
    )

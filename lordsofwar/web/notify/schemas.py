"""The email settings' request body and answer (strict JSON in, every field declared out:
``extra="forbid"``, so a field sent without being declared here is an error, never dropped in
silence; tests/web/test_response_models.py)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from lordsofwar.web.notify import service as notify


class MailSettingsOut(BaseModel):
    model_config = ConfigDict(extra="forbid")
    email: str | None = Field(description="your address as kept (normalised), or null")
    confirmed: bool = Field(description="the address was confirmed by the link mailed to it")
    notifications: Literal["off", "turn", "digest"] = Field(
        description="off; 'turn': a mail when a turn-based game waits for you (at most one per game a day); "
        "'digest': one mail a day listing the games waiting"
    )
    available: bool = Field(description="whether this server sends email at all")


class MailSettingsIn(BaseModel):
    """A change: only the fields sent change."""

    model_config = ConfigDict(extra="forbid", strict=True)
    email: str | None = Field(
        default=None,
        max_length=notify.EMAIL_MAX,
        description="a new address (a confirmation mail goes to it; nothing else until confirmed); "
        "null or '' removes it",
    )
    notifications: Literal["off", "turn", "digest"] | None = Field(default=None, description="the mails you want")

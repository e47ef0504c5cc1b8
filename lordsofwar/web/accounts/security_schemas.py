"""Request bodies and answers of the account security API: the password, the reset link and
the sessions (``extra="forbid"``: a field not declared here is refused, never dropped)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from lordsofwar.web import fields
from lordsofwar.web.accounts import recovery
from lordsofwar.web.accounts import service as accounts

NewPasswordField = Annotated[
    str,
    Field(max_length=1000, description=f"{accounts.PASSWORD_MIN} to {accounts.PASSWORD_MAX} characters"),
    fields.Declared(lambda: {"minLength": accounts.PASSWORD_MIN, "maxLength": accounts.PASSWORD_MAX}),
]


class PasswordChange(BaseModel):
    """A new password, with the current one."""

    model_config = ConfigDict(extra="forbid", strict=True)
    current: str = Field(max_length=1000, description="the password now")
    password: NewPasswordField


class PasswordChanged(BaseModel):
    model_config = ConfigDict(extra="forbid")
    signed_out: int = Field(description="how many other sessions were signed out")
    mailed: bool = Field(description="whether a notice went to your confirmed address")


class ResetRequest(BaseModel):
    """Who forgot their password: a player's name or a confirmed email address."""

    model_config = ConfigDict(extra="forbid", strict=True)
    who: str = Field(min_length=1, max_length=recovery.WHO_MAX, description="a name or a confirmed email address")


class ResetRequested(BaseModel):
    model_config = ConfigDict(extra="forbid")
    message: str = Field(
        description="the same sentence whatever was asked: it never tells whether an account or an address exists"
    )


class PasswordReset(BaseModel):
    """The token of a reset link, and the new password."""

    model_config = ConfigDict(extra="forbid", strict=True)
    token: str = Field(max_length=100, description="the token of the link mailed to you")
    password: NewPasswordField


class SessionOut(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str = Field(description="names the session (to sign it out)")
    created_at: datetime = Field(description="when it was opened (signed in)")
    last_seen_at: datetime = Field(description="its last request (kept to the minute or so)")
    browser: str | None = Field(description="browser and system, as read from its User-Agent; null: unknown")
    network: str | None = Field(description="the network it was opened from (/24 or /48), never the full address")
    current: bool = Field(description="the session of this request")


class SessionList(BaseModel):
    model_config = ConfigDict(extra="forbid")
    sessions: list[SessionOut]
    recoverable: bool = Field(description="whether a forgotten password can be reset (a confirmed address is set)")


class SessionsClosed(BaseModel):
    model_config = ConfigDict(extra="forbid")
    signed_out: int = Field(description="how many sessions were signed out")

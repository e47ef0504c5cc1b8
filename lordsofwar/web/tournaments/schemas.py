"""Answers of the tournaments API: the list, a tournament with its entrants, standings and boards,
and a new tournament's number. They declare every field the service sends (``extra="forbid"``: a
field the service adds without declaring it here is an error, never dropped in silence;
tests/web/test_response_models.py). The request bodies live beside the service that checks them
(``NewTournament``, ``Join``, ``EnterBot``)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from lordsofwar.web.lobby.schemas import InvitationOptions

Kind = Literal["swiss", "round_robin", "arena"]


class TournamentSummary(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: int
    name: str
    kind: Kind
    kind_name: str = Field(description="the kind in the request's language")
    status: Literal["upcoming", "running", "finished"]
    rounds: int = Field(description="Swiss: the rounds; round robin: one per opponent once started; arena: 0")
    current_round: int = Field(description="0 before the start")
    entrants: int
    summary: str = Field(description="the games' options in a few words, in the request's language")
    created_at: str = Field(description="ISO time")
    started_at: str | None = Field(description="ISO time, or null")
    finished_at: str | None = Field(description="ISO time, or null")
    minutes: int = Field(description="an arena's length from its start (0 for the other kinds)")
    ends_at: str | None = Field(description="when a running arena ends (ISO time), or null")


class TournamentList(BaseModel):
    model_config = ConfigDict(extra="forbid")
    upcoming: list[TournamentSummary] = Field(description="the 50 latest of each, newest first")
    running: list[TournamentSummary]
    finished: list[TournamentSummary]


class TournamentCreated(BaseModel):
    model_config = ConfigDict(extra="forbid")
    tournament: int = Field(description="the new tournament, open for registration")


class Entry(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    bot: str | None = Field(description="the level of a bot entrant, else null")
    rating: int = Field(description="the seeding rating")
    army: str = Field(description="the army played, or 'random'")
    deck: bool = Field(description="plays a custom deck")
    withdrawn: bool


class Standing(BaseModel):
    """A Swiss or round robin's line of the table."""

    model_config = ConfigDict(extra="forbid")
    rank: int
    name: str
    bot: str | None
    score: float
    buchholz: float = Field(description="the sum of the opponents' final scores")
    sonneborn_berger: float = Field(description="the scores of the opponents beaten, plus half of those drawn")
    wins: int
    played: int
    byes: int
    withdrawn: bool


class ArenaStanding(BaseModel):
    """An arena's line of the table."""

    model_config = ConfigDict(extra="forbid")
    rank: int
    name: str
    bot: str | None
    points: int
    games: int
    wins: int
    on_fire: bool = Field(description="two wins in a row: a win now counts double")
    playing: bool = Field(description="in a game now")
    sheet: list[str] = Field(description="the points of each game, in order")
    withdrawn: bool


class Board(BaseModel):
    model_config = ConfigDict(extra="forbid")
    board: int
    white: str = Field(description="player 1")
    black: str | None = Field(description="player 2; null for a bye")
    game: int | None = Field(description="the game played on it (null for a bye)")
    result: str | None = Field(
        description="from player 1's side: '1-0', '1/2', '0-1', a forfeit '+-' or '-+', '--' neither scores, "
        "'bye'; null while it is played"
    )


class Round(BaseModel):
    model_config = ConfigDict(extra="forbid")
    round: int
    boards: list[Board]


class Yours(BaseModel):
    model_config = ConfigDict(extra="forbid")
    withdrawn: bool


class BotLevel(BaseModel):
    model_config = ConfigDict(extra="forbid")
    level: str
    name: str = Field(description="the bot's name in the request's language")
    rating: int | None = Field(description="its measured rating")


class TournamentDetail(TournamentSummary):
    options: InvitationOptions = Field(description="the options of its games")
    creator: str | None
    entries: list[Entry] = Field(description="by seeding rating")
    standings: list[Standing] | list[ArenaStanding] = Field(description="an arena's table has its own columns")
    rounds_played: list[Round]
    you: Yours | None = Field(description="your entry, or null")
    can_start: bool
    can_enter_bots: bool
    can_remove_bots: bool
    bot_levels: list[BotLevel] = Field(description="the bot levels not entered")
    progress: str = Field(description="changes whenever something in the tournament does (for polling)")

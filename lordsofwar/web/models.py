"""Database tables (SQLAlchemy 2). The schema is created and upgraded by Alembic (migrations/)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    false,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.types import TypeDecorator

from lordsofwar.rules import result as result_codes
from lordsofwar.rules.result import Result


def utcnow() -> datetime:
    return datetime.now(UTC)


class UTCDateTime(TypeDecorator[datetime]):
    """Timezone-aware UTC datetimes on every backend (SQLite stores naive values)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is not None and value.tzinfo is None:
            raise ValueError("naive datetime")
        return value

    def process_result_value(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is not None and value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        return value


class Base(DeclarativeBase):
    pass


class User(Base):
    __tablename__ = "users"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(24))
    name_key: Mapped[str] = mapped_column(String(24), unique=True)
    password_hash: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    bot: Mapped[str | None] = mapped_column(String(20))
    """A built-in bot level's account (lordsofwar.bots.BOTS): made when the level is first entered
    in a tournament, named so that no player can sign up as it, and never signed in to."""
    bot_account: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    """An external bot's account (the bot API, lordsofwar.web.botapi): a player's account that had no
    games when its owner turned it into one; it plays through the bot API with a token."""
    locale: Mapped[str | None] = mapped_column(String(8))
    """The player's language (lordsofwar.i18n.LOCALES) for pages and mails; None: the browser's."""
    closed_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    """When the player closed the account (lordsofwar.web.accounts.closing): the row stays under a
    placeholder name (``closed-<id>``) so that the opponents' games stay whole; nobody signs in to it."""


class HeldName(Base):
    """The name of a closed account, kept from everyone until ``held_until`` (nobody can sign up
    as the player who left while their games are fresh in people's minds)."""

    __tablename__ = "held_names"

    name_key: Mapped[str] = mapped_column(String(24), primary_key=True)
    held_until: Mapped[datetime] = mapped_column(UTCDateTime())


class AuthSession(Base):
    __tablename__ = "sessions"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime())
    last_seen_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    """When the session last made a request (written at most once a minute: accounts.sessions)."""
    browser: Mapped[str | None] = mapped_column(String(60))
    """A short name of the browser and system it was opened from ("Firefox, Windows")."""
    address: Mapped[str | None] = mapped_column(String(50))
    """The network it was opened from, never the whole address: the /24 (IPv4) or /48 (IPv6)."""


class PasswordReset(Base):
    """A link to set a new password, mailed to a confirmed address (accounts.recovery): only
    the token's SHA-256 is kept; used once, void after an hour or any later password change."""

    __tablename__ = "password_resets"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime())
    used_at: Mapped[datetime | None] = mapped_column(UTCDateTime())


class ApiToken(Base):
    """A personal access token of the bot API: the database keeps only its SHA-256; the token
    itself is shown once, when it is made. Revoking deletes the row."""

    __tablename__ = "api_tokens"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    description: Mapped[str] = mapped_column(String(60))
    scopes: Mapped[list[str]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    last_used_at: Mapped[datetime | None] = mapped_column(UTCDateTime())


class ServerSecret(Base):
    """Keys the installation makes once and every process shares (the CSRF key)."""

    __tablename__ = "server_secrets"

    name: Mapped[str] = mapped_column(String(40), primary_key=True)
    value: Mapped[str] = mapped_column(String(200))


class Invitation(Base):
    __tablename__ = "invitations"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    creator_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    opponent_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    status: Mapped[str] = mapped_column(String(12), default="open", index=True)
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    game_id: Mapped[int | None] = mapped_column(ForeignKey("games.id"))
    creator_deck: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    """The creator's custom deck, copied when the invitation was made: {"name", "cards"}."""


class Follow(Base):
    """A player following another (lordsofwar.web.social): the friends page lists whom a player
    follows, with who of them is online. One row per pair; following is one-way."""

    __tablename__ = "follows"

    follower_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    followed_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True, index=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class Block(Base):
    """A player blocking another (lordsofwar.web.social): neither can challenge or chat with the
    other, and the blocked player does not see the blocker's presence. Private to the blocker."""

    __tablename__ = "blocks"

    blocker_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    blocked_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True, index=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class Game(Base):
    __tablename__ = "games"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    player1_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), index=True)
    player2_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), index=True)
    bot1: Mapped[str | None] = mapped_column(String(20))
    bot2: Mapped[str | None] = mapped_column(String(20))
    public: Mapped[bool] = mapped_column(Boolean, default=True)
    options: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    """The invitation's options (GameOptions), for a rematch; None for games made before they were kept."""
    variant: Mapped[dict[str, Any]] = mapped_column(JSON)
    decks: Mapped[list[list[str]]] = mapped_column(JSON)
    armies: Mapped[list[str]] = mapped_column(JSON)
    seed: Mapped[int] = mapped_column(BigInteger)
    actions: Mapped[list[str]] = mapped_column(JSON, default=list)
    version: Mapped[int] = mapped_column(Integer, default=0)
    status: Mapped[str] = mapped_column(String(10), default="running", index=True)
    waiting_for: Mapped[int | None] = mapped_column(Integer)
    winner: Mapped[int | None] = mapped_column(Integer)
    reason: Mapped[str | None] = mapped_column(String(200))
    """The result's English sentence (:attr:`lordsofwar.rules.result.Result.reason`), as records keep it."""
    termination: Mapped[str | None] = mapped_column(String(32))
    """The result's code (:class:`lordsofwar.rules.result.Termination`); None while the game runs."""
    result_details: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    """What the code needs beside the winner (:meth:`~lordsofwar.rules.result.Result.details`:
    ``count``, ``player``, ``threshold``, ``ending``)."""
    mode: Mapped[str] = mapped_column(String(8))
    initial_ms: Mapped[int] = mapped_column(BigInteger, default=0)
    increment_ms: Mapped[int] = mapped_column(BigInteger, default=0)
    turn_ms: Mapped[int] = mapped_column(BigInteger, default=0)
    clock1_ms: Mapped[int] = mapped_column(BigInteger, default=0)
    clock2_ms: Mapped[int] = mapped_column(BigInteger, default=0)
    since: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    deadline_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), index=True)
    draw_offer: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    ended_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    rated: Mapped[bool] = mapped_column(Boolean, default=False)
    """A rated game changes its players' ratings in its pool (``mode``: live or turn) when it ends."""
    tournament_id: Mapped[int | None] = mapped_column(ForeignKey("tournaments.id", ondelete="SET NULL"), index=True)
    """A tournament game: its result is the pairing's, recorded in the transaction that ends it."""

    @property
    def result(self) -> Result | None:
        """The game's result (None while it runs), from its code and details; a row finished
        before the codes and not migrated is read from its sentence (result.legacy_result)."""
        if self.status != "over" or self.reason is None and self.termination is None:
            return None
        return result_of(self.winner, self.termination, self.result_details, self.reason)


def result_columns(result: Result) -> dict[str, Any]:
    """The game columns that store ``result``: ``winner``, ``reason``, ``termination``, ``result_details``."""
    return {
        "winner": result.winner,
        "reason": result.reason,
        "termination": result.termination.value,
        "result_details": result.details() or None,
    }


def result_of(
    winner: int | None, termination: str | None, details: dict[str, Any] | None, reason: str | None
) -> Result:
    """The result stored in a game's columns (:func:`result_columns`)."""
    if termination is None:
        return result_codes.legacy_result(winner, reason or "")
    return result_codes.from_json({"winner": winner, "termination": termination, **(details or {})})


class Deck(Base):
    """A player's custom deck (or a draft of one): at most 36 card ids, no rank over its count."""

    __tablename__ = "decks"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    owner_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(40))
    name_key: Mapped[str] = mapped_column(String(40))
    cards: Mapped[list[str]] = mapped_column(JSON)
    version: Mapped[int] = mapped_column(Integer, default=1)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)

    __table_args__ = (UniqueConstraint("owner_id", "name_key", name="uq_decks_owner_name"),)


class Rating(Base):
    """A player's rating in one pool (live or turn-based): OpenSkill's mu and sigma, and counts."""

    __tablename__ = "ratings"

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    pool: Mapped[str] = mapped_column(String(8), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer, default=0)
    wins: Mapped[int] = mapped_column(Integer, default=0)
    draws: Mapped[int] = mapped_column(Integer, default=0)
    losses: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class RatingChange(Base):
    """What one rated game did to one player's rating: written in the transaction that ends the
    game, once (one row per game and player)."""

    __tablename__ = "rating_changes"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    pool: Mapped[str] = mapped_column(String(8))
    mu_before: Mapped[float] = mapped_column(Float)
    sigma_before: Mapped[float] = mapped_column(Float)
    mu_after: Mapped[float] = mapped_column(Float)
    sigma_after: Mapped[float] = mapped_column(Float)
    score: Mapped[float] = mapped_column(Float)
    """1 a win, 0.5 a draw, 0 a loss."""
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)

    __table_args__ = (
        UniqueConstraint("game_id", "user_id", name="uq_rating_changes_game_user"),
        Index("ix_rating_changes_user_pool", "user_id", "pool", "id"),
    )


class LessonProgress(Base):
    """One exercise of a lesson (lordsofwar.learn.lessons) that a player solved: one row per player
    and exercise, written when the engine found the exercise's goal met (docs/learn.md)."""

    __tablename__ = "lesson_progress"

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    lesson: Mapped[str] = mapped_column(String(40), primary_key=True)
    exercise: Mapped[str] = mapped_column(String(40), primary_key=True)
    solved_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class PuzzleRating(Base):
    """A shipped puzzle's rating (lordsofwar.learn.puzzles): OpenSkill's mu and sigma, starting
    from the puzzle's own difficulty; made at the puzzle's first rated try (docs/learn.md)."""

    __tablename__ = "puzzle_ratings"

    puzzle_id: Mapped[str] = mapped_column(String(16), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    tries: Mapped[int] = mapped_column(Integer, default=0)
    """Rated tries (first tries of signed-in players)."""
    solved: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class PlayerPuzzles(Base):
    """A player's puzzle rating (OpenSkill, the game ratings' model) and streak mode."""

    __tablename__ = "player_puzzles"

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    tries: Mapped[int] = mapped_column(Integer, default=0)
    """Rated tries (first tries at a puzzle)."""
    solved: Mapped[int] = mapped_column(Integer, default=0)
    streak: Mapped[int] = mapped_column(Integer, default=0)
    """Puzzles solved in a row in the streak run under way."""
    best_streak: Mapped[int] = mapped_column(Integer, default=0)
    streak_seed: Mapped[int] = mapped_column(Integer, default=0)
    """Which puzzles the run under way picks from each difficulty band (not a secret)."""
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class PuzzleAttempt(Base):
    """A player's tries at one puzzle: one row per player and puzzle, written by the first try
    (whose answer rated both), so a rating changes once however many processes judge at once."""

    __tablename__ = "puzzle_attempts"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    puzzle_id: Mapped[str] = mapped_column(String(16))
    action: Mapped[str] = mapped_column(String(80))
    """The first try's action."""
    correct: Mapped[bool] = mapped_column(Boolean)
    """Whether the first try was right."""
    tries: Mapped[int] = mapped_column(Integer, default=1)
    solved: Mapped[bool] = mapped_column(Boolean, default=False)
    """Right at any try."""
    mu_before: Mapped[float] = mapped_column(Float)
    mu_after: Mapped[float] = mapped_column(Float)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)

    __table_args__ = (
        UniqueConstraint("user_id", "puzzle_id", name="uq_puzzle_attempts_user_puzzle"),
        Index("ix_puzzle_attempts_user_created", "user_id", "created_at"),
    )


class Tournament(Base):
    """A Swiss, round-robin or arena event: its games' options, its rounds, where it stands."""

    __tablename__ = "tournaments"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(60))
    kind: Mapped[str] = mapped_column(String(12))
    """``swiss``, ``round_robin`` or ``arena``."""
    status: Mapped[str] = mapped_column(String(10), default="upcoming", index=True)
    """``upcoming`` (registration open), ``running``, ``finished``."""
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    """The games' options (web.games.schemas.GameOptions, sides and armies excepted)."""
    rounds: Mapped[int] = mapped_column(Integer)
    current_round: Mapped[int] = mapped_column(Integer, default=0)
    """The round being played (0 before the start), or an arena's pairing waves so far: raised
    by one conditional update, so a round (a wave) is paired exactly once whatever the number of
    server processes."""
    minutes: Mapped[int] = mapped_column(Integer, default=0)
    """An arena's window: it pairs players as they finish games for this long after the start."""
    ends_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime())


class TournamentEntry(Base):
    """A player registered in a tournament, with the army (or custom deck) they play."""

    __tablename__ = "tournament_entries"

    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    rating: Mapped[int] = mapped_column(Integer)
    """The player's rating in the event's pool at registration (the seeding)."""
    army: Mapped[str] = mapped_column(String(12), default="random")
    deck: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    withdrawn: Mapped[bool] = mapped_column(Boolean, default=False)
    joined_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class TournamentPairing(Base):
    """One board of a round: ``white_id`` plays player 1; no ``black_id``: a bye."""

    __tablename__ = "tournament_pairings"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id", ondelete="CASCADE"))
    round: Mapped[int] = mapped_column(Integer)
    board: Mapped[int] = mapped_column(Integer)
    white_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    black_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    game_id: Mapped[int | None] = mapped_column(ForeignKey("games.id", ondelete="SET NULL"), index=True)
    result: Mapped[str | None] = mapped_column(String(4))
    """``1-0``, ``1/2``, ``0-1``, ``+-`` / ``-+`` (a forfeit), ``bye``; None while playing."""

    __table_args__ = (UniqueConstraint("tournament_id", "round", "board", name="uq_tournament_pairings_board"),)


class GameAnalysis(Base):
    """The top search level's analysis of a finished game (lordsofwar.bots.analysis), made once:
    ``status`` running, done or failed; ``done`` of ``total`` actions judged so far."""

    __tablename__ = "game_analyses"

    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    status: Mapped[str] = mapped_column(String(8))
    done: Mapped[int] = mapped_column(Integer, default=0)
    total: Mapped[int] = mapped_column(Integer, default=0)
    level: Mapped[str] = mapped_column(String(20))
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    error: Mapped[str | None] = mapped_column(String(200))
    requested_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class Heartbeat(Base):
    """When a server process was last seen alive (to credit downtime to running games)."""

    __tablename__ = "heartbeats"

    name: Mapped[str] = mapped_column(String(40), primary_key=True)
    at: Mapped[datetime] = mapped_column(UTCDateTime())


class MailSettings(Base):
    """A player's email address (optional) and which mails they want (lordsofwar.web.notify)."""

    __tablename__ = "mail_settings"

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    email: Mapped[str | None] = mapped_column(String(254))
    confirmed: Mapped[bool] = mapped_column(Boolean, default=False)
    """The address was confirmed by the link mailed to it; no other mail goes to it before."""
    notify: Mapped[str] = mapped_column(String(8), default="off")
    """``off``, ``turn`` ("your turn", at most once per game a day) or ``digest`` (one a day)."""
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class MailOutbox(Base):
    """A mail to send (the outbox): written first, sent by the mailer's background task, which
    claims a row with a conditional update so that no two processes send it."""

    __tablename__ = "mail_outbox"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    kind: Mapped[str] = mapped_column(String(8))
    """``confirm``, ``turn`` or ``digest``; for the account, ``reset`` (a link to choose a new
    password) and ``password`` (the notice that it changed): lordsofwar.web.accounts.recovery."""
    game_id: Mapped[int | None] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    key: Mapped[str | None] = mapped_column(String(80), unique=True)
    """What makes it once only: a "your turn" mail's game, player and game version (one per wait);
    a digest's player and day."""
    to_addr: Mapped[str] = mapped_column(String(254))
    subject: Mapped[str] = mapped_column(String(200))
    body: Mapped[str] = mapped_column(Text)
    headers: Mapped[dict[str, str]] = mapped_column(JSON, default=dict)
    status: Mapped[str] = mapped_column(String(8), default="queued")
    """``queued``, ``sending`` (claimed until ``claimed_until``), ``sent``, ``failed`` (gave up) or
    ``dropped`` (no longer wanted when its turn came: unsubscribed, address changed, game moved on)."""
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    claimed_until: Mapped[datetime | None] = mapped_column(UTCDateTime())
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    sent_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    error: Mapped[str | None] = mapped_column(String(200))


class ChatMessage(Base):
    """A message of a game's chat (lordsofwar.web.chat): in the players' room or the spectators',
    either a player's own text or a quick phrase's key (shown in each reader's language)."""

    __tablename__ = "chat_messages"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    room: Mapped[str] = mapped_column(String(10))
    """``players`` or ``spectators``."""
    text: Mapped[str] = mapped_column(String(300))
    """The text as kept (bidirectional controls removed); a quick phrase's English words."""
    phrase: Mapped[str | None] = mapped_column(String(20))
    """A quick phrase's key (lordsofwar.web.chat.service.PHRASES), or None for a player's own text."""
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class ChatSettings(Base):
    """A player's chat setting: a player who turned chat off sees no chat and is sent none."""

    __tablename__ = "chat_settings"

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class Moderator(Base):
    """A player who may handle reports and act on players (lordsofwar.web.moderation): granted and
    revoked with ``lordsofwar admin grant-moderator NAME`` / ``revoke-moderator NAME``."""

    __tablename__ = "moderators"

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    granted_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class Report(Base):
    """A player's report of another player, or of one of their chat messages (lordsofwar.web.moderation).
    At most one open report per reporter and reported player (a partial unique index)."""

    __tablename__ = "reports"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    reporter_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    target_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    message_id: Mapped[int | None] = mapped_column(ForeignKey("chat_messages.id", ondelete="SET NULL"))
    """The chat message reported (None: the player as a whole)."""
    game_id: Mapped[int | None] = mapped_column(ForeignKey("games.id", ondelete="SET NULL"))
    """The game of the message reported."""
    reason: Mapped[str] = mapped_column(String(12))
    """One of lordsofwar.web.moderation.service.REASONS."""
    text: Mapped[str] = mapped_column(String(500), default="")
    status: Mapped[str] = mapped_column(String(10), default="open")
    """``open``, ``actioned`` (a moderator acted on the player) or ``dismissed``."""
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    handled_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    handled_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))


class ModerationAction(Base):
    """The moderation log: one row per moderator action (who, what, why, when). Warnings, mutes and
    bans are read from it: a mute holds until ``until``, a ban until ``until`` (None: for good)."""

    __tablename__ = "moderation_actions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    moderator_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    target_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    action: Mapped[str] = mapped_column(String(10))
    """``warn``, ``mute``, ``ban``, ``close`` or ``dismiss`` (lordsofwar.web.moderation.service.ACTIONS)."""
    reason: Mapped[str] = mapped_column(String(500))
    until: Mapped[datetime | None] = mapped_column(UTCDateTime())
    report_id: Mapped[int | None] = mapped_column(ForeignKey("reports.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    seen_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    """A warning: when the player acknowledged the notice (None: shown on their next page)."""


Index("ix_games_status_deadline", Game.status, Game.deadline_at)
Index("ix_mail_outbox_status_next", MailOutbox.status, MailOutbox.next_at)
Index("ix_mail_outbox_kind_created", MailOutbox.kind, MailOutbox.created_at)
Index("ix_chat_messages_game_room_id", ChatMessage.game_id, ChatMessage.room, ChatMessage.id)
Index(
    "uq_reports_open", Report.reporter_id, Report.target_id, unique=True,
    sqlite_where=Report.status == "open", postgresql_where=Report.status == "open",
)
Index("ix_moderation_actions_target_action", ModerationAction.target_id, ModerationAction.action)

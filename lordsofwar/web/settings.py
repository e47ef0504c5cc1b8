"""Server settings, read from the environment (``LOW_*``)."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path


def _flag(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def default_database_url() -> str:
    data = Path(os.environ.get("LOW_DATA_DIR", "data"))
    return f"sqlite:///{data / 'lordsofwar.sqlite3'}"


@dataclass
class Settings:
    """What a server process needs to know; every field has an environment variable."""

    database_url: str = field(default_factory=lambda: os.environ.get("LOW_DATABASE_URL") or default_database_url())
    redis_url: str | None = field(default_factory=lambda: os.environ.get("LOW_REDIS_URL") or None)
    secure_cookies: bool = field(default_factory=lambda: _flag("LOW_SECURE_COOKIES", False))
    bot_delay: float = field(default_factory=lambda: float(os.environ.get("LOW_BOT_DELAY", "0.5")))
    bot_workers: int = field(default_factory=lambda: int(os.environ.get("LOW_BOT_WORKERS", "2")))
    """Processes that run the bots' searches, hints and analyses (never the event loop); 0: none
    here, every search goes to the search workers over Redis (``lordsofwar worker``; needs
    LOW_REDIS_URL)."""
    worker_claim_s: float = field(default_factory=lambda: float(os.environ.get("LOW_WORKER_CLAIM", "10")))
    """Seconds a search job may go without its worker's heartbeat before another worker takes it over."""
    bot_times_file: str | None = field(default_factory=lambda: os.environ.get("LOW_BOT_TIMES_FILE") or None)
    """Append each bot decision's figures to this file (benchmarks): level, search seconds, wall
    seconds (queue included), budget."""
    analysis_iterations: int | None = field(
        default_factory=lambda: (
            int(os.environ["LOW_ANALYSIS_ITERATIONS"]) if os.environ.get("LOW_ANALYSIS_ITERATIONS") else None
        )
    )
    """Iterations per decision of a game's analysis (default: the top level's own cap)."""
    login_attempts: int = field(default_factory=lambda: int(os.environ.get("LOW_LOGIN_ATTEMPTS", "5")))
    """Failed sign-ins allowed per name *from one address* in the window; 4x that per address
    (any names) and 20x per name (from every address): nobody can lock an owner out from one
    address, and a guesser spread over many addresses is still slowed."""
    login_window_s: int = field(default_factory=lambda: int(os.environ.get("LOW_LOGIN_WINDOW", "900")))
    signups_per_hour: int = field(default_factory=lambda: int(os.environ.get("LOW_SIGNUPS_PER_HOUR", "5")))
    """New accounts one address may create in an hour."""
    hash_concurrency: int = field(default_factory=lambda: int(os.environ.get("LOW_HASH_CONCURRENCY", "1")))
    """Password hashes (64 MiB each at the default cost) computed at once; the rest wait."""
    hash_queue: int = field(default_factory=lambda: int(os.environ.get("LOW_HASH_QUEUE", "8")))
    """Sign-ins and sign-ups that may wait for a hash; past that they get 429 at once."""
    trust_proxy_headers: bool = field(default_factory=lambda: _flag("LOW_TRUST_PROXY_HEADERS", False))
    """Take the client's address from X-Forwarded-For (only behind a reverse proxy that sets it)."""
    forwarded_allow_ips: str = field(default_factory=lambda: os.environ.get("LOW_FORWARDED_ALLOW_IPS", "127.0.0.1"))
    """The proxies whose X-Forwarded-For is believed, when trust_proxy_headers is on."""
    secret_key: str | None = field(default_factory=lambda: os.environ.get("LOW_SECRET_KEY") or None)
    """The key CSRF tokens are derived with; without it, one is made once and kept in the database."""
    session_days: int = 30
    smtp_url: str | None = field(default_factory=lambda: os.environ.get("LOW_SMTP_URL") or None)
    """Where mail goes (smtp://user:pass@host:port, smtps:// for TLS, ?starttls=1 to require
    STARTTLS); without it no mail is sent and the settings page says email is not available."""
    mail_from: str = field(
        default_factory=lambda: os.environ.get("LOW_MAIL_FROM") or "Lords of War <noreply@localhost>"
    )
    public_url: str = field(
        default_factory=lambda: (os.environ.get("LOW_PUBLIC_URL") or "http://127.0.0.1:8000").rstrip("/")
    )
    """The site's address as players reach it, for the links in mails."""
    mail_interval: float = field(default_factory=lambda: float(os.environ.get("LOW_MAIL_INTERVAL", "30")))
    """Seconds between the mailer's looks for games waiting (mails queued by a request go at once)."""
    mail_retry: float = field(default_factory=lambda: float(os.environ.get("LOW_MAIL_RETRY", "30")))
    """The first wait before sending a mail again after an SMTP failure; it doubles each time (at most an hour)."""
    mail_attempts: int = field(default_factory=lambda: int(os.environ.get("LOW_MAIL_ATTEMPTS", "10")))
    """SMTP attempts before a mail is given up (marked failed)."""
    bot_api_rate: int = field(default_factory=lambda: int(os.environ.get("LOW_BOT_API_RATE", "300")))
    """Requests one bot API token may make a minute (streams opened included); past it 429."""
    bot_stream_keepalive: float = field(default_factory=lambda: float(os.environ.get("LOW_BOT_KEEPALIVE", "7")))
    """Seconds of silence after which a bot API stream sends a keep-alive (an empty line)."""
    bot_stream_poll: float = field(default_factory=lambda: float(os.environ.get("LOW_BOT_STREAM_POLL", "60")))
    """Seconds between an account's event streams' safety looks at the database (changes are
    pushed to them at once; this look only catches what was written outside the server)."""
    bot_streams_per_token: int = field(default_factory=lambda: int(os.environ.get("LOW_BOT_STREAMS_PER_TOKEN", "4")))
    """Event streams one bot API token may hold open at once (game streams: as many on each game); the next: 429."""
    bot_streams_per_account: int = field(
        default_factory=lambda: int(os.environ.get("LOW_BOT_STREAMS_PER_ACCOUNT", "8"))
    )
    """Event streams one account may hold open at once over all its tokens (game streams: on each game)."""
    bot_stream_lease: float = field(default_factory=lambda: float(os.environ.get("LOW_BOT_STREAM_LEASE", "30")))
    """With Redis: seconds a stream's place in the count lasts unless its process renews it (a
    killed process's streams free their places after this)."""
    bad_tokens_per_address: int = field(default_factory=lambda: int(os.environ.get("LOW_BAD_TOKENS", "20")))
    """Unknown bearer tokens one address may send in the sign-in window; past it 429 before any lookup."""
    redis_prefix: str = field(default_factory=lambda: os.environ.get("LOW_REDIS_PREFIX", ""))
    """The start of every Redis key and channel of this installation (default: a digest of the
    database URL, see :meth:`redis_namespace`)."""
    sweep_interval: float = field(default_factory=lambda: float(os.environ.get("LOW_SWEEP_INTERVAL", "1.0")))
    presence_fade: float = field(default_factory=lambda: float(os.environ.get("LOW_PRESENCE_FADE", "60")))
    """Seconds a player still counts as online after their last socket closed (docs/community.md)."""
    # Argon2id cost: the library's defaults unless a test or benchmark lowers them.
    argon2_time_cost: int = field(default_factory=lambda: int(os.environ.get("LOW_ARGON2_TIME_COST", "3")))
    argon2_memory_kib: int = field(default_factory=lambda: int(os.environ.get("LOW_ARGON2_MEMORY_KIB", "65536")))

    def redis_namespace(self) -> str:
        """The installation's Redis prefix: ``redis_prefix``, else ``lordsofwar-`` and 12 hex
        digits of the SHA-256 of the database URL (the sites that share a database are one
        installation; two sites on one Redis with different databases never hear each other)."""
        if self.redis_prefix.strip():
            return self.redis_prefix.strip()
        return "lordsofwar-" + hashlib.sha256(self.database_url.encode()).hexdigest()[:12]

    def sync_url(self) -> str:
        """The URL for SQLAlchemy's synchronous drivers (Alembic)."""
        return _with_driver(self.database_url, sync=True)

    def async_url(self) -> str:
        return _with_driver(self.database_url, sync=False)


def _with_driver(url: str, sync: bool) -> str:
    scheme, sep, rest = url.partition("://")
    if not sep:
        raise ValueError(f"LOW_DATABASE_URL: expected a URL such as sqlite:///data/low.sqlite3, got {url!r}")
    base = scheme.split("+")[0]
    if base in {"postgresql", "postgres"}:
        return f"postgresql+psycopg://{rest}"
    if base == "sqlite":
        return f"sqlite://{rest}" if sync else f"sqlite+aiosqlite://{rest}"
    raise ValueError(f"LOW_DATABASE_URL: unsupported database {base!r}; use sqlite:/// or postgresql://")

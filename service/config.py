"""Configuration from the environment (every variable is listed in the README)."""

from __future__ import annotations

import base64
import binascii
import os
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from service.domain.quotas import Quotas

#: the quotas' defaults, stated once (``service.domain.quotas.Quotas``)
QUOTAS = Quotas()

STORES = ("sqlite", "postgres")


class ConfigError(ValueError):
    pass


@dataclass(frozen=True)
class Config:
    store: str = "sqlite"
    var_dir: Path = Path("var")
    sqlite_path: Path | None = None
    #: the server key and the anchored heads, apart from the data (default: ``keys`` beside var)
    keys_dir: Path | None = None
    heads_path: Path | None = None
    #: the anchored heads in a PostgreSQL database every host shares, apart from the events
    #: (``ARBITER_HEADS=postgresql://…``; docs/audit-and-disputes.md): None keeps the file
    heads_url: str | None = None
    postgres_dbname: str = "arbiter"
    postgres_host: str = "127.0.0.1"
    postgres_port: int = 5432
    postgres_user: str = "postgres"
    postgres_password: str = ""
    postgres_schema: str = ""
    redis_url: str | None = None
    plugins: tuple[str, ...] = ()
    secret_key: str = field(default_factory=lambda: secrets.token_hex(32))
    snapshot_interval: int = 100
    cache_size: int = 1000
    token_days: float = 30
    auth_cache_seconds: float = 1.0
    store_timeout: int = 2
    streams_per_client: int = 20
    streams_max: int = 500
    testing: bool = False
    #: notifications (README "Notifications"): e-mail, webhooks and the worker
    smtp_url: str | None = None
    smtp_from: str = "Arbiter <arbiter@localhost>"
    public_url: str = "http://127.0.0.1:5000"
    webhook_allow_private: bool = False
    delivery_lease: float = 60
    delivery_backoff: float = 5
    delivery_attempts: int = 6
    #: deliveries sent at once by a worker, and at most this many to one target (a host)
    delivery_threads: int = 8
    delivery_per_target: int = 2
    delivery_per_owner: int = 2
    #: limits a member cannot exceed (README "Configuration")
    draft_max_units: int = 2000
    draft_max_hexes: int = 10000
    draft_max_bytes: int = 1024 * 1024
    #: map images a worker decodes at once (an upload checked, a size made, a scan read)
    image_decodes: int = 2
    webhooks_per_user: int = 10
    webhooks_per_club: int = 20
    #: web push (docs/notifications.md "Web push"): browsers one user may subscribe, and the
    #: VAPID private key (base64url; None: generated once into the keys folder, ``push_key``)
    push_per_user: int = 10
    vapid_private_key: str | None = None
    tokens_per_user: int = 20
    #: quotas (README "Configuration", docs/ladders.md "Quotas"): bytes a user's and a club's uploads may
    #: keep in the store, and how many of each costly thing one user may hold
    bytes_per_user: int = QUOTAS.bytes_per_user
    bytes_per_club: int = QUOTAS.bytes_per_club
    hotseat_per_user: int = QUOTAS.hotseat_per_user
    seeks_per_user: int = QUOTAS.seeks_per_user
    invitations_per_user: int = QUOTAS.invitations_per_user
    invitations_per_pair: int = QUOTAS.invitations_per_pair
    clubs_per_user: int = QUOTAS.clubs_per_user
    scenarios_per_user: int = QUOTAS.scenarios_per_user
    scenarios_per_club: int = QUOTAS.scenarios_per_club
    #: seconds a client has to send a request's headers, and between parts of its body
    header_timeout: float = 10
    body_timeout: float = 30
    #: how long a password reset link works (README "HTTP API": passwords)
    reset_minutes: float = 60
    #: accounts one client address may sign up within an hour (``POST /api/users``; per worker)
    signups_per_hour: int = 10
    #: a persisted view this many notifications behind the log makes /healthz ``degraded``
    view_lag_limit: int = 1000
    #: run the notification worker inside the web process (``arbiter serve`` sets it)
    embedded_worker: bool = False
    #: derive each notice from the game loaded and replayed at that event's version, the way
    #: before issue 27 (``bench/bench_notify_lag.py``'s "before"; nothing else sets it)
    notify_replay: bool = False
    #: the session cookie only over HTTPS (behind a TLS reverse proxy: docs/deployment.md)
    secure_cookies: bool = False
    #: reverse proxies in front whose X-Forwarded-For/-Proto/-Host are trusted (0: none)
    proxy_hops: int = 0

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: Any) -> Config:
        env = os.environ if env is None else env
        store = env.get("ARBITER_STORE", "sqlite").strip().lower()
        var_dir = Path(env.get("ARBITER_VAR", "var"))
        keys_dir = Path(env["ARBITER_KEYS"]) if env.get("ARBITER_KEYS") else _keys_beside(var_dir)
        try:
            config = cls(
                store=store,
                var_dir=var_dir,
                sqlite_path=Path(env["ARBITER_SQLITE"]) if env.get("ARBITER_SQLITE") else None,
                keys_dir=keys_dir,
                heads_path=_heads_path(env.get("ARBITER_HEADS", "")),
                heads_url=_heads_url(env.get("ARBITER_HEADS", "")),
                postgres_dbname=env.get("POSTGRES_DBNAME", "arbiter"),
                postgres_host=env.get("POSTGRES_HOST", "127.0.0.1"),
                postgres_port=int(env.get("POSTGRES_PORT", "5432")),
                postgres_user=env.get("POSTGRES_USER", "postgres"),
                postgres_password=env.get("POSTGRES_PASSWORD", ""),
                postgres_schema=env.get("POSTGRES_SCHEMA", ""),
                redis_url=env.get("REDIS_URL") or None,
                plugins=tuple(p for p in env.get("ARBITER_PLUGINS", "").split(",") if p.strip()),
                secret_key=env.get("ARBITER_SECRET_KEY") or _stable_secret(keys_dir, var_dir),
                snapshot_interval=int(env.get("ARBITER_SNAPSHOT_INTERVAL", "100")),
                cache_size=int(env.get("ARBITER_CACHE_SIZE", "1000")),
                token_days=float(env.get("ARBITER_TOKEN_DAYS", "30")),
                auth_cache_seconds=float(env.get("ARBITER_AUTH_CACHE_SECONDS", "1")),
                streams_per_client=int(env.get("ARBITER_STREAMS_PER_CLIENT", "20")),
                streams_max=int(env.get("ARBITER_STREAMS_MAX", "500")),
                store_timeout=int(env.get("ARBITER_STORE_TIMEOUT", "2")),
                smtp_url=env.get("ARBITER_SMTP_URL") or None,
                smtp_from=env.get("ARBITER_SMTP_FROM") or "Arbiter <arbiter@localhost>",
                public_url=env.get("ARBITER_PUBLIC_URL") or "http://127.0.0.1:5000",
                webhook_allow_private=_flag(env.get("ARBITER_WEBHOOK_ALLOW_PRIVATE", "")),
                delivery_lease=float(env.get("ARBITER_DELIVERY_LEASE", "60")),
                delivery_backoff=float(env.get("ARBITER_DELIVERY_BACKOFF", "5")),
                delivery_attempts=int(env.get("ARBITER_DELIVERY_ATTEMPTS", "6")),
                delivery_threads=int(env.get("ARBITER_DELIVERY_THREADS", "8")),
                delivery_per_target=int(env.get("ARBITER_DELIVERY_PER_TARGET", "2")),
                delivery_per_owner=int(env.get("ARBITER_DELIVERY_PER_OWNER", "2")),
                draft_max_units=int(env.get("ARBITER_DRAFT_MAX_UNITS", "2000")),
                draft_max_hexes=int(env.get("ARBITER_DRAFT_MAX_HEXES", "10000")),
                draft_max_bytes=int(env.get("ARBITER_DRAFT_MAX_BYTES", str(1024 * 1024))),
                image_decodes=int(env.get("ARBITER_IMAGE_DECODES", "2")),
                webhooks_per_user=int(env.get("ARBITER_WEBHOOKS_PER_USER", "10")),
                webhooks_per_club=int(env.get("ARBITER_WEBHOOKS_PER_CLUB", "20")),
                push_per_user=int(env.get("ARBITER_PUSH_PER_USER", "10")),
                vapid_private_key=env.get("ARBITER_VAPID_PRIVATE_KEY") or None,
                tokens_per_user=int(env.get("ARBITER_TOKENS_PER_USER", "20")),
                bytes_per_user=int(env.get("ARBITER_BYTES_PER_USER", str(QUOTAS.bytes_per_user))),
                bytes_per_club=int(env.get("ARBITER_BYTES_PER_CLUB", str(QUOTAS.bytes_per_club))),
                hotseat_per_user=int(
                    env.get("ARBITER_HOTSEAT_PER_USER", str(QUOTAS.hotseat_per_user))
                ),
                seeks_per_user=int(env.get("ARBITER_SEEKS_PER_USER", str(QUOTAS.seeks_per_user))),
                invitations_per_user=int(
                    env.get("ARBITER_INVITATIONS_PER_USER", str(QUOTAS.invitations_per_user))
                ),
                invitations_per_pair=int(
                    env.get("ARBITER_INVITATIONS_PER_PAIR", str(QUOTAS.invitations_per_pair))
                ),
                clubs_per_user=int(env.get("ARBITER_CLUBS_PER_USER", str(QUOTAS.clubs_per_user))),
                scenarios_per_user=int(
                    env.get("ARBITER_SCENARIOS_PER_USER", str(QUOTAS.scenarios_per_user))
                ),
                scenarios_per_club=int(
                    env.get("ARBITER_SCENARIOS_PER_CLUB", str(QUOTAS.scenarios_per_club))
                ),
                header_timeout=float(env.get("ARBITER_HEADER_TIMEOUT", "10")),
                body_timeout=float(env.get("ARBITER_BODY_TIMEOUT", "30")),
                reset_minutes=float(env.get("ARBITER_RESET_MINUTES", "60")),
                signups_per_hour=int(env.get("ARBITER_SIGNUPS_PER_HOUR", "10")),
                view_lag_limit=int(env.get("ARBITER_VIEW_LAG_LIMIT", "1000")),
                embedded_worker=_flag(env.get("ARBITER_EMBEDDED_WORKER", "")),
                notify_replay=_flag(env.get("ARBITER_NOTIFY_REPLAY", "")),
                secure_cookies=_flag(env.get("ARBITER_SECURE_COOKIES", "")),
                proxy_hops=int(env.get("ARBITER_PROXY_HOPS", "0")),
            )
        except ValueError as exc:
            raise ConfigError(f"bad configuration: {exc}") from exc
        config = replace(config, **overrides)
        config.validate()
        return config

    def validate(self) -> None:
        """Raise ConfigError for the first of :data:`_CHECKS` this configuration fails, in their
        order; the heads' URL is checked where it stands among them."""
        for check in _CHECKS:
            if check is _HEADS_URL:
                if self.heads_url is not None:
                    self._check_heads_url(self.heads_url)
                continue
            failed, message = check
            if failed(self):
                raise ConfigError(message if isinstance(message, str) else message(self))

    def _check_heads_url(self, url: str) -> None:
        """The heads apart from the events: another database (or server) than the event store's,
        else a rollback of the one would roll back the other with it."""
        from psycopg.conninfo import conninfo_to_dict

        try:
            parts = conninfo_to_dict(url)
        except Exception as exc:  # noqa: BLE001 - psycopg's own message names what is wrong
            raise ConfigError(f"ARBITER_HEADS: not a PostgreSQL URL ({exc})") from None
        if not parts.get("dbname"):
            raise ConfigError("ARBITER_HEADS must name its database: postgresql://host/dbname")
        same_server = (str(parts.get("host") or "localhost"), int(parts.get("port") or 5432)) in {
            (self.postgres_host, self.postgres_port),
            ("localhost" if self.postgres_host == "127.0.0.1" else self.postgres_host,
             self.postgres_port),
        }  # fmt: skip
        if self.store == "postgres" and same_server and parts["dbname"] == self.postgres_dbname:
            raise ConfigError(
                "ARBITER_HEADS must be another database than the events' (POSTGRES_DBNAME): "
                "the heads are kept apart so that a rollback of the events shows"
            )

    def push_key(self) -> str:
        """The VAPID private key web pushes are signed with (base64url of its 32 bytes):
        ``ARBITER_VAPID_PRIVATE_KEY``, else the keys folder's ``vapid_private_key``, generated the
        first time it is asked for (every host of one site must use the same key: set the
        variable, or share the keys folder's contents, as for ``ARBITER_SECRET_KEY``)."""
        if self.vapid_private_key:
            return self.vapid_private_key.strip()
        return _kept_key(self.keys, VAPID_FILE, new_vapid_key)

    @property
    def sqlite_file(self) -> Path:
        return self.sqlite_path or self.var_dir / "arbiter.sqlite"

    @property
    def keys(self) -> Path:
        return self.keys_dir or _keys_beside(self.var_dir)

    @property
    def heads_file(self) -> Path:
        return self.heads_path or self.keys / "heads.sqlite"

    @property
    def heads_place(self) -> Path | str:
        """Where the heads are kept, as an operator is told (a database without its password)."""
        if not self.heads_url:
            return self.heads_file
        from psycopg.conninfo import conninfo_to_dict

        parts = conninfo_to_dict(self.heads_url)
        where = f"{parts.get('host') or 'localhost'}:{parts.get('port') or 5432}"
        return f"the heads database {parts.get('dbname')!r} on {where}"

    @property
    def index_dir(self) -> Path:
        return self.var_dir / "index"

    def quotas(self) -> Quotas:
        """The quotas a user and a club cannot exceed (``service.domain.quotas``)."""
        return Quotas(**{f.name: getattr(self, f.name) for f in fields(Quotas)})

    def eventsourcing_env(self, *, create_tables: bool | None = None) -> dict[str, str]:
        """The environment of the eventsourcing Application.

        ``create_tables``: whether opening the store creates its tables.  By default only the
        embedded SQLite file does (one process; SQLite serialises schema changes under its file
        lock); PostgreSQL tables are made by ``arbiter db migrate`` (``migrate``), never by
        workers racing at boot."""
        env = {"AGGREGATE_CACHE_MAXSIZE": str(self.cache_size)} if self.cache_size else {}
        if create_tables is None:
            create_tables = self.store == "sqlite"
        env["CREATE_TABLE"] = "y" if create_tables else "n"
        if self.store == "sqlite":
            private_dir(self.sqlite_file.parent, ours=self.sqlite_file.parent == self.var_dir)
            private_file(self.sqlite_file)
            env.update(
                PERSISTENCE_MODULE="eventsourcing.sqlite",
                SQLITE_DBNAME=str(self.sqlite_file),
                SQLITE_LOCK_TIMEOUT="10",
            )
        else:
            env.update(
                PERSISTENCE_MODULE="eventsourcing.postgres",
                POSTGRES_DBNAME=self.postgres_dbname,
                POSTGRES_HOST=self.postgres_host,
                POSTGRES_PORT=str(self.postgres_port),
                POSTGRES_USER=self.postgres_user,
                POSTGRES_PASSWORD=self.postgres_password,
                POSTGRES_POOL_SIZE="5",
                POSTGRES_MAX_OVERFLOW="10",
                # fail fast when the database is unreachable: wait at most this long for a
                # connection (eventsourcing uses it as the pool's wait), and queue at most
                # POSTGRES_MAX_WAITING requests for one before refusing the next at once
                POSTGRES_CONNECT_TIMEOUT=str(self.store_timeout),
                POSTGRES_MAX_WAITING="32",
            )
            if self.postgres_schema:
                env["POSTGRES_SCHEMA"] = self.postgres_schema
        return env


def _most_delivery_threads(config: Config) -> int:
    return 12 if config.store == "sqlite" else 64  # eventsourcing's SQLite pool holds 15


#: the settings that must be 1 or more, each by its variable
_AT_LEAST_ONE: tuple[tuple[str, str], ...] = (
    ("ARBITER_DRAFT_MAX_UNITS", "draft_max_units"),
    ("ARBITER_DRAFT_MAX_HEXES", "draft_max_hexes"),
    ("ARBITER_DRAFT_MAX_BYTES", "draft_max_bytes"),
    ("ARBITER_IMAGE_DECODES", "image_decodes"),
    ("ARBITER_WEBHOOKS_PER_USER", "webhooks_per_user"),
    ("ARBITER_WEBHOOKS_PER_CLUB", "webhooks_per_club"),
    ("ARBITER_PUSH_PER_USER", "push_per_user"),
    ("ARBITER_TOKENS_PER_USER", "tokens_per_user"),
    ("ARBITER_BYTES_PER_USER", "bytes_per_user"),
    ("ARBITER_BYTES_PER_CLUB", "bytes_per_club"),
    ("ARBITER_HOTSEAT_PER_USER", "hotseat_per_user"),
    ("ARBITER_SEEKS_PER_USER", "seeks_per_user"),
    ("ARBITER_INVITATIONS_PER_USER", "invitations_per_user"),
    ("ARBITER_INVITATIONS_PER_PAIR", "invitations_per_pair"),
    ("ARBITER_CLUBS_PER_USER", "clubs_per_user"),
    ("ARBITER_SCENARIOS_PER_USER", "scenarios_per_user"),
    ("ARBITER_SCENARIOS_PER_CLUB", "scenarios_per_club"),
)


def _below_one(attribute: str) -> Callable[[Config], bool]:
    return lambda config: getattr(config, attribute) < 1


#: a check of :meth:`Config.validate`: when it fails, and its message (or what words it)
_Check = tuple[Callable[[Config], bool], str | Callable[[Config], str]]
#: where the heads' URL (ARBITER_HEADS) is checked among :data:`_CHECKS`
_HEADS_URL: _Check = (lambda config: False, "")
#: the configuration's checks in the order they are made: the first that fails is the error
_CHECKS: tuple[_Check, ...] = (
    (
        lambda c: c.store not in STORES,
        lambda c: f"ARBITER_STORE must be one of {', '.join(STORES)}, not {c.store!r}",
    ),
    (
        lambda c: c.snapshot_interval < 0,
        "ARBITER_SNAPSHOT_INTERVAL must be 0 (off) or more",
    ),
    (
        lambda c: not 0 < c.token_days <= 3650,
        "ARBITER_TOKEN_DAYS must be more than 0 and at most 3650 (days)",
    ),
    (
        lambda c: not 0 <= c.auth_cache_seconds <= 60,
        "ARBITER_AUTH_CACHE_SECONDS must be from 0 (off) to 60 (seconds)",
    ),
    (
        lambda c: not 0 <= c.proxy_hops <= 5,
        "ARBITER_PROXY_HOPS must be from 0 (no proxy) to 5",
    ),
    (
        lambda c: c.streams_per_client < 1 or c.streams_max < 1,
        "ARBITER_STREAMS_PER_CLIENT and ARBITER_STREAMS_MAX must be 1 or more",
    ),
    (
        lambda c: bool(c.smtp_url and not c.smtp_url.startswith(("smtp://", "smtps://"))),
        "ARBITER_SMTP_URL must look like smtp://host:port",
    ),
    (
        lambda c: c.delivery_lease <= 0 or c.delivery_backoff < 0 or c.delivery_attempts < 1,
        "ARBITER_DELIVERY_LEASE must be more than 0, ARBITER_DELIVERY_BACKOFF 0 or more "
        "and ARBITER_DELIVERY_ATTEMPTS 1 or more",
    ),
    (
        lambda c: not 2 <= c.delivery_threads <= _most_delivery_threads(c),
        lambda c: (
            f"ARBITER_DELIVERY_THREADS must be from 2 to {_most_delivery_threads(c)} on {c.store}"
        ),
    ),
    (
        lambda c: not 1 <= c.delivery_per_target < c.delivery_threads,
        "ARBITER_DELIVERY_PER_TARGET must be 1 or more and less than ARBITER_DELIVERY_THREADS",
    ),
    (
        lambda c: not 1 <= c.delivery_per_owner < c.delivery_threads,
        "ARBITER_DELIVERY_PER_OWNER must be 1 or more and less than ARBITER_DELIVERY_THREADS",
    ),
    *((_below_one(attribute), f"{name} must be 1 or more") for name, attribute in _AT_LEAST_ONE),
    (
        lambda c: not 0 < c.header_timeout <= 600 or not 0 < c.body_timeout <= 600,
        "ARBITER_HEADER_TIMEOUT and ARBITER_BODY_TIMEOUT must be more than 0 and at "
        "most 600 (seconds)",
    ),
    _HEADS_URL,
    (
        lambda c: not 1 <= c.signups_per_hour <= 1_000_000,
        "ARBITER_SIGNUPS_PER_HOUR must be from 1 to 1000000",
    ),
    (
        lambda c: not 1 <= c.reset_minutes <= 1440,
        "ARBITER_RESET_MINUTES must be from 1 to 1440 (minutes)",
    ),
    (
        lambda c: c.invitations_per_pair > c.invitations_per_user,
        "ARBITER_INVITATIONS_PER_PAIR must be at most ARBITER_INVITATIONS_PER_USER",
    ),
    (
        lambda c: c.view_lag_limit < 1,
        "ARBITER_VIEW_LAG_LIMIT must be at least 1 (notifications)",
    ),
    (
        lambda c: c.store_timeout < 1,
        "ARBITER_STORE_TIMEOUT must be 1 (second) or more",
    ),
    (
        lambda c: c.vapid_private_key is not None and raw_vapid_key(c.vapid_private_key) is None,
        "ARBITER_VAPID_PRIVATE_KEY must be a P-256 private key: its 32 bytes in base64url "
        "(as `arbiter` writes into $ARBITER_KEYS/vapid_private_key)",
    ),
)


def _flag(value: str) -> bool:
    if value.strip().lower() in ("", "0", "false", "no", "off"):
        return False
    if value.strip().lower() in ("1", "true", "yes", "on"):
        return True
    raise ValueError(f"{value!r} is not true or false")


def _keys_beside(var_dir: Path) -> Path:
    """The default keys folder: ``keys`` beside the data folder, never inside it."""
    return var_dir.parent / "keys"


def private_dir(path: Path, *, ours: bool = True) -> None:
    """Create ``path`` owner-only (0700); tighten it if it exists and is ``ours``."""
    if not path.exists():
        path.mkdir(parents=True, mode=0o700)
        path.chmod(0o700)
    elif ours:
        path.chmod(0o700)


def private_file(path: Path) -> None:
    """Create ``path`` owner-only (0600), or tighten it and its SQLite companions (-wal, -shm: SQLite
    creates them with the main file's mode)."""
    if not path.exists():
        path.touch(mode=0o600)
    for each in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        if each.exists():
            each.chmod(0o600)


#: the VAPID private key's file in the keys folder
VAPID_FILE = "vapid_private_key"


def new_vapid_key() -> str:
    """A new P-256 private key, its 32 bytes in base64url (what push libraries call "raw")."""
    from cryptography.hazmat.primitives.asymmetric import ec

    number = ec.generate_private_key(ec.SECP256R1()).private_numbers().private_value
    return base64.urlsafe_b64encode(number.to_bytes(32, "big")).rstrip(b"=").decode("ascii")


def raw_vapid_key(text: str) -> bytes | None:
    """The 32 bytes of a base64url P-256 private key (None when it is not one)."""
    from cryptography.hazmat.primitives.asymmetric import ec

    text = text.strip()
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        if len(raw) != 32:
            return None
        ec.derive_private_key(int.from_bytes(raw, "big"), ec.SECP256R1())
    except (ValueError, binascii.Error):
        return None
    return raw


def _kept_key(keys_dir: Path, name: str, make: Callable[[], str]) -> str:
    """The key kept in the keys folder's file ``name``, made by ``make`` the first time (owner-only,
    written atomically: of workers starting together, the first key wins)."""
    path = keys_dir / name
    private_dir(keys_dir)
    if path.exists():
        path.chmod(0o600)
        return path.read_text().strip()
    key = make()
    temporary = keys_dir / f".{name}.{os.getpid()}.{secrets.token_hex(4)}"
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as handle:
        handle.write(key)
    try:
        os.link(temporary, path)
    except FileExistsError:
        key = path.read_text().strip()
    finally:
        temporary.unlink()
    return key


def _stable_secret(keys_dir: Path, var_dir: Path) -> str:
    """A secret key kept in the keys folder (apart from the data, owner-only), so sessions and seals
    survive a restart of a single-process install.  A key left in the data folder by an earlier
    version is moved there."""
    path = keys_dir / "secret_key"
    private_dir(keys_dir)
    old = var_dir / "secret_key"
    if not path.exists() and old.exists():
        old.replace(path)
    if path.exists():
        path.chmod(0o600)
        return path.read_text().strip()
    key = secrets.token_hex(32)
    temporary = keys_dir / f".secret_key.{os.getpid()}"
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as handle:
        handle.write(key)
    try:
        os.link(temporary, path)  # atomic: of workers starting together, the first key wins
    except FileExistsError:
        key = path.read_text().strip()
    finally:
        temporary.unlink()
    return key


def _heads_path(value: str) -> Path | None:
    return Path(value) if value and not _heads_url(value) else None


def _heads_url(value: str) -> str | None:
    return value if value.startswith(("postgresql://", "postgres://")) else None

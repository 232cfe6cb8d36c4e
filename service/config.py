"""Configuration from the environment (every variable is listed in the README)."""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

STORES = ("sqlite", "postgres")


class ConfigError(ValueError):
    pass


@dataclass(frozen=True)
class Config:
    store: str = "sqlite"
    var_dir: Path = Path("var")
    sqlite_path: Path | None = None
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
    testing: bool = False

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: Any) -> Config:
        env = os.environ if env is None else env
        store = env.get("ARBITER_STORE", "sqlite").strip().lower()
        var_dir = Path(env.get("ARBITER_VAR", "var"))
        try:
            config = cls(
                store=store,
                var_dir=var_dir,
                sqlite_path=Path(env["ARBITER_SQLITE"]) if env.get("ARBITER_SQLITE") else None,
                postgres_dbname=env.get("POSTGRES_DBNAME", "arbiter"),
                postgres_host=env.get("POSTGRES_HOST", "127.0.0.1"),
                postgres_port=int(env.get("POSTGRES_PORT", "5432")),
                postgres_user=env.get("POSTGRES_USER", "postgres"),
                postgres_password=env.get("POSTGRES_PASSWORD", ""),
                postgres_schema=env.get("POSTGRES_SCHEMA", ""),
                redis_url=env.get("REDIS_URL") or None,
                plugins=tuple(p for p in env.get("ARBITER_PLUGINS", "").split(",") if p.strip()),
                secret_key=env.get("ARBITER_SECRET_KEY") or _stable_secret(var_dir),
                snapshot_interval=int(env.get("ARBITER_SNAPSHOT_INTERVAL", "100")),
                cache_size=int(env.get("ARBITER_CACHE_SIZE", "1000")),
            )
        except ValueError as exc:
            raise ConfigError(f"bad configuration: {exc}") from exc
        config = replace(config, **overrides)
        config.validate()
        return config

    def validate(self) -> None:
        if self.store not in STORES:
            raise ConfigError(
                f"ARBITER_STORE must be one of {', '.join(STORES)}, not {self.store!r}"
            )
        if self.snapshot_interval < 0:
            raise ConfigError("ARBITER_SNAPSHOT_INTERVAL must be 0 (off) or more")

    @property
    def sqlite_file(self) -> Path:
        return self.sqlite_path or self.var_dir / "arbiter.sqlite"

    @property
    def index_dir(self) -> Path:
        return self.var_dir / "index"

    def eventsourcing_env(self) -> dict[str, str]:
        """The environment of the eventsourcing Application."""
        env = {"AGGREGATE_CACHE_MAXSIZE": str(self.cache_size)} if self.cache_size else {}
        if self.store == "sqlite":
            self.sqlite_file.parent.mkdir(parents=True, exist_ok=True)
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
            )
            if self.postgres_schema:
                env["POSTGRES_SCHEMA"] = self.postgres_schema
        return env


def _stable_secret(var_dir: Path) -> str:
    """A secret key kept in the var dir, so sessions survive a restart of a single-process install."""
    path = var_dir / "secret_key"
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        var_dir.mkdir(parents=True, exist_ok=True)
        key = secrets.token_hex(32)
        path.write_text(key)
        path.chmod(0o600)
        return key

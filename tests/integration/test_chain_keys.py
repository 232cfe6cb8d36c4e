"""The seal key is kept apart from the data, and the files that hold secrets are owner-only: by
default the key and the anchored heads live in ``keys/`` beside ``var/`` (``ARBITER_KEYS``), the
SQLite file and its WAL are 0600 and both folders 0700, even under a permissive umask."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from service.bootstrap import build_services
from service.config import Config
from tests.integration.test_audit_tamper import played


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def permissive_umask() -> Iterator[None]:
    previous = os.umask(0o022)
    yield
    os.umask(previous)


def test_key_and_heads_apart_from_the_data_and_every_file_owner_only(
    tmp_path: Path, permissive_umask: None
) -> None:
    env = {"ARBITER_VAR": str(tmp_path / "var"), "ARBITER_PLUGINS": "tests.fixtures.skirmish"}
    config = Config.from_env(env)
    svc = build_services(config)
    played(svc)
    var, keys = tmp_path / "var", tmp_path / "keys"
    assert (keys / "secret_key").read_text() == config.secret_key
    assert not (var / "secret_key").exists()
    assert (keys / "heads.sqlite").exists() and not any(var.glob("heads*"))
    assert mode(var) == 0o700 and mode(keys) == 0o700
    written = [var / "arbiter.sqlite", var / "arbiter.sqlite-wal", keys / "secret_key"]
    written += list(keys.glob("heads.sqlite*"))
    for path in written:
        assert path.exists() and mode(path) == 0o600, (path, oct(mode(path)))
    svc.close()
    assert Config.from_env(env).secret_key == config.secret_key  # stable across restarts


def test_arbiter_keys_names_the_keys_folder_and_an_old_key_moves_there(
    tmp_path: Path, permissive_umask: None
) -> None:
    var = tmp_path / "var"
    var.mkdir(mode=0o755)
    (var / "secret_key").write_text("an-earlier-key")
    (var / "arbiter.sqlite").touch(mode=0o644)
    env = {"ARBITER_VAR": str(var), "ARBITER_KEYS": str(tmp_path / "etc" / "arbiter")}
    config = Config.from_env(env)
    assert config.secret_key == "an-earlier-key"
    moved = tmp_path / "etc" / "arbiter" / "secret_key"
    assert moved.exists() and not (var / "secret_key").exists() and mode(moved) == 0o600
    assert config.heads_file == tmp_path / "etc" / "arbiter" / "heads.sqlite"
    config.eventsourcing_env()
    assert mode(var / "arbiter.sqlite") == 0o600 and mode(var) == 0o700

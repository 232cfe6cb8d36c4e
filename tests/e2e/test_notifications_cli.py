"""`arbiter users add --email` and a bad address, run with click's runner on a real SQLite file."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from service.bootstrap import build_services
from service.cli import main
from tests.conftest import make_config


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARBITER_VAR", str(tmp_path / "var"))
    monkeypatch.setenv("ARBITER_PLUGINS", "tests.fixtures.skirmish")
    monkeypatch.setenv("ARBITER_SECRET_KEY", "k")
    monkeypatch.delenv("ARBITER_STORE", raising=False)


def test_users_add_takes_an_email_and_refuses_a_bad_one(env: None, tmp_path: Path) -> None:
    runner = CliRunner()
    done = runner.invoke(
        main,
        ["users", "add", "carol", "--password", "correct horse", "--email", "carol@example.org"],
    )
    assert done.exit_code == 0, done.output
    bad = runner.invoke(
        main, ["users", "add", "dave", "--password", "correct horse", "--email", "dave@nowhere"]
    )
    assert bad.exit_code != 0 and "email" in bad.output
    svc = build_services(make_config(tmp_path, secret_key="k"))
    try:
        assert svc.users.by_name("carol").email == "carol@example.org"
        with pytest.raises(Exception, match="no user 'dave'"):
            svc.users.by_name("dave")  # nothing written
    finally:
        svc.close()


def test_worker_refuses_a_bad_smtp_url(env: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARBITER_SMTP_URL", "mail.example.org:25")
    done = CliRunner().invoke(main, ["worker"])
    assert done.exit_code != 0 and "ARBITER_SMTP_URL must look like smtp://host:port" in done.output

"""A write that failed for a fault of the store's keeps ``/healthz`` down for a while (issue 34:
health that tells the truth).  A rolled-back probe write cannot see a full PostgreSQL disk; the
failed write of a command can, and the probe now says what it met."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.application.store_faults import DISK_FULL, FAULTS, UNREACHABLE, StoreFaults
from service.application.store_probe import StoreProbe
from service.bootstrap import build_services, migrate
from service.config import Config
from tests.conftest import make_config
from tests.support.services import PG, postgres_database


@pytest.mark.postgres
def test_a_failed_write_s_fault_is_reported_by_the_probe_then_forgotten(tmp_path: Path) -> None:
    with postgres_database() as dbname:
        config = make_config(
            tmp_path, store="postgres", postgres_dbname=dbname, postgres_user=PG["user"]
        )
        migrate(config)
        probe_after_failed_writes(config)


def probe_after_failed_writes(config: Config) -> None:
    svc = build_services(config)
    try:
        faults = StoreFaults.of_config(config)
        now = [0.0]
        probe = StoreProbe(svc.store.recorder, faults, ttl=0, clock=lambda: now[0])
        assert probe.report()["ok"] is True

        faults.noted(FAULTS[UNREACHABLE])  # the read probe sees that one for itself
        assert probe.report()["ok"] is True

        faults.noted(FAULTS[DISK_FULL])  # as the API's error handler does on a failed write
        report = probe.report()
        assert report["ok"] is False and report["reason"] == "disk full", report

        faults.written()  # a write succeeded since: the probe's own answer again
        assert probe.report()["ok"] is True

        faults.noted(FAULTS[DISK_FULL])
        assert probe.report()["ok"] is False
        faults.REMEMBER = 0.0  # its time has passed
        assert probe.report()["ok"] is True

        sqlite = StoreFaults(config.var_dir / "arbiter.sqlite")  # its file system is asked
        sqlite.noted(FAULTS[DISK_FULL])
        assert sqlite.recent() is None
    finally:
        svc.close()

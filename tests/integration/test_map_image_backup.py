"""A club scenario's map image is kept in the store's own log (service/domain/map_images.py), so
`arbiter backup` carries it and `arbiter restore` brings it back -- into SQLite, and into
PostgreSQL, where it is then served from the database like any other request's data."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from service.app import create_app
from tests.conftest import make_config
from tests.integration.test_backup_restore import SECRET, arbiter, backup, pg_env, sqlite_env
from tests.support.api import PASSWORD, ApiHelper
from tests.support.services import postgres_database

pytestmark = pytest.mark.slow(
    "a big scan backed up and restored into SQLite and PostgreSQL and served by each"
)


def scan() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (320, 240), (120, 160, 90)).save(out, format="PNG")
    return out.getvalue()


def served(config: Any, sid: str) -> bytes:
    app = create_app(config)
    try:
        client = app.test_client()
        token = client.post("/api/tokens", json={"username": "ann", "password": PASSWORD})
        headers = {"Authorization": f"Bearer {token.get_json()['token']}"}
        got = client.get(f"/api/club-scenarios/{sid}/map-image", headers=headers)
        assert got.status_code == 200, got.get_json()
        return got.data
    finally:
        app.extensions["arbiter"].close()


@pytest.fixture
def source(tmp_path: Path, index_template: Path) -> tuple[Any, str, bytes]:
    import shutil

    config = make_config(tmp_path / "src", secret_key=SECRET)
    shutil.copytree(index_template, config.index_dir)
    app = create_app(config)
    api = ApiHelper(app.test_client())
    club = api.client.post("/api/clubs", json={"name": "Scan Club"}, headers=api.user("ann"))
    blank = {
        "bounds": {"min_col": 1, "max_col": 6, "min_row": 1, "max_row": 5},
        "coordinates": "four-digit",
        "sides": ["nationalist", "republican"],
        "terrain_types": ["clear", "forest"],
    }
    made = api.client.post(
        f"/api/clubs/{club.get_json()['id']}/scenarios",
        json={"system": "bizkaya", "title": "Scan", "blank": blank},
        headers=api.user("ann"),
    )
    sid = made.get_json()["id"]
    up = api.client.post(
        f"/api/club-scenarios/{sid}/map-image",
        data=scan(),
        content_type="image/png",
        headers=api.user("ann"),
    )
    assert up.status_code == 201, up.get_json()
    data = api.client.get(f"/api/club-scenarios/{sid}/map-image", headers=api.user("ann")).data
    app.extensions["arbiter"].close()
    return config, sid, data


def test_a_backup_restores_the_map_image_into_sqlite(
    source: tuple[Any, str, bytes], tmp_path: Path
) -> None:
    config, sid, data = source
    path = tmp_path / "scan.backup"
    backup(config, path)
    done = arbiter(sqlite_env(tmp_path / "dst"), "restore", str(path))
    assert done.returncode == 0, done.stderr
    assert served(make_config(tmp_path / "dst", secret_key=SECRET), sid) == data


@pytest.mark.postgres
def test_a_backup_restores_the_map_image_into_postgresql(
    source: tuple[Any, str, bytes], tmp_path: Path
) -> None:
    config, sid, data = source
    path = tmp_path / "scan.backup"
    backup(config, path)
    with postgres_database() as dbname:
        done = arbiter(pg_env(tmp_path / "pg", dbname), "restore", str(path))
        assert done.returncode == 0, done.stderr
        target = make_config(
            tmp_path / "pg", secret_key=SECRET, store="postgres", postgres_dbname=dbname
        )
        assert served(target, sid) == data


def test_a_big_scan_is_kept_and_served_by_either_store(store_config: Any) -> None:
    """A 6,000 px scan of several MB: stored in one event of the store's log (SQLite or
    PostgreSQL), served whole and at a phone's width, its bytes the same as uploaded."""
    from tests.support.printed_map import render

    big = render(radius=110.0, quality=88)
    assert len(big.data) > 4 * 1024 * 1024
    app = create_app(store_config)
    try:
        api = ApiHelper(app.test_client())
        club = api.client.post("/api/clubs", json={"name": "Big Scan"}, headers=api.user("ann"))
        blank = {
            "bounds": {"min_col": 1, "max_col": 30, "min_row": 1, "max_row": 24},
            "coordinates": "four-digit",
            "sides": ["nationalist", "republican"],
        }
        sid = api.client.post(
            f"/api/clubs/{club.get_json()['id']}/scenarios",
            json={"system": "bizkaya", "title": "Big", "blank": blank},
            headers=api.user("ann"),
        ).get_json()["id"]
        up = api.client.post(
            f"/api/club-scenarios/{sid}/map-image",
            data=big.data,
            content_type="image/jpeg",
            headers=api.user("ann"),
        )
        assert up.status_code == 201, up.get_json()
        whole = api.client.get(f"/api/club-scenarios/{sid}/map-image", headers=api.user("ann"))
        assert whole.status_code == 200 and len(whole.data) == up.get_json()["bytes"]
        phone = api.client.get(
            f"/api/club-scenarios/{sid}/map-image?width=390", headers=api.user("ann")
        )
        with Image.open(io.BytesIO(phone.data)) as seen:
            assert seen.width == 512
        assert len(phone.data) < len(whole.data) // 20
    finally:
        app.extensions["arbiter"].close()

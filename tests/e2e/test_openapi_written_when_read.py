"""The API document is written when it is first read (``ArbiterApi``, service/api/errors.py): an
app that nobody asks for it never resolves its schemas, and the document it serves is the very one
flask-smorest writes while the blueprints are registered."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from flask_smorest import Api

from service.api.errors import ArbiterApi
from service.app import create_app
from service.config import Config
from tests.conftest import make_config


def served(config: Config) -> tuple[dict, dict]:
    """The spec's paths before the document is read, and the document."""
    app = create_app(config)
    try:
        api = app.extensions["flask-smorest"]["blp_name_to_api"]["games"]
        before = dict(api.spec.to_dict().get("paths") or {})
        response = app.test_client().get("/api/openapi.json")
        assert response.status_code == 200
        return before, response.get_json()
    finally:
        app.extensions["arbiter"].close()


def test_the_document_is_written_when_read_and_is_the_one_written_at_once(
    config: Config, tmp_path: Path, index_template: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before, lazy = served(config)
    assert before == {}  # no operation documented until the document is read
    assert len(lazy["paths"]) > 100 and lazy["paths"]["/api/games/{game_id}"]
    eager_config = make_config(tmp_path / "eager")
    shutil.copytree(index_template, eager_config.index_dir)
    monkeypatch.setattr(ArbiterApi, "register_blueprint", Api.register_blueprint)
    written, eager = served(eager_config)
    assert written  # flask-smorest's own way: documented while registered
    assert lazy == eager and list(lazy["paths"]) == list(eager["paths"])

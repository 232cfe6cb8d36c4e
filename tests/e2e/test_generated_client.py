"""A client generated from the served ``/api/openapi.json`` works (README, "A client from the
OpenAPI document"): ``openapi-python-client`` makes one into a temporary directory, and it signs
in (``POST /api/tokens``) and reads the signed-in user (``GET /api/me``) of a live server."""

from __future__ import annotations

import importlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.browser.conftest import PASSWORD, Server

GENERATOR = str(Path(sys.executable).parent / "openapi-python-client")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("client") / "var")
    yield srv
    srv.stop()


def test_a_generated_client_signs_in_and_reads_me(server: Server, tmp_path: Path) -> None:
    server.user("clara")
    made = subprocess.run(
        [GENERATOR, "generate", "--url", server.url + "/api/openapi.json"]
        + ["--meta", "none", "--output-path", str(tmp_path / "arbiter_client")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert made.returncode == 0, made.stdout + made.stderr
    sys.path.insert(0, str(tmp_path))
    try:
        client = importlib.import_module("arbiter_client.client")
        tokens = importlib.import_module("arbiter_client.api.users.post_api_tokens")
        me = importlib.import_module("arbiter_client.api.users.get_api_me")
        credentials = importlib.import_module("arbiter_client.models.credentials")

        anonymous = client.Client(base_url=server.url)
        issued = tokens.sync(
            client=anonymous,
            body=credentials.Credentials(username="clara", password=PASSWORD, label="bot"),
        )
        assert issued.user.username == "clara", issued
        signed_in = client.AuthenticatedClient(base_url=server.url, token=issued.token)
        assert me.sync(client=signed_in).username == "clara"
        refused = me.sync_detailed(client=anonymous)
        assert refused.status_code == 401 and refused.parsed.error == "unauthenticated"
    finally:
        sys.path.remove(str(tmp_path))
        for name in [n for n in sys.modules if n.split(".")[0] == "arbiter_client"]:
            del sys.modules[name]

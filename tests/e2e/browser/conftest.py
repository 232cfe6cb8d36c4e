"""Browser tests: Debian's Chromium driven by Playwright against a real ``arbiter serve`` process
(one server per module, one browser per session).  Without /usr/bin/chromium the tests skip locally
and fail under CI=true; the browser is never downloaded."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.support.kb import seed_index

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
ARBITER = str(Path(sys.executable).parent / "arbiter")
REPO = Path(__file__).resolve().parents[3]
PASSWORD = "correct horse battery"
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    """A real ``arbiter serve`` on a free port, with users made through the API."""

    def __init__(
        self,
        var: Path,
        plugins: str = "tests.fixtures.skirmish",
        extra_env: dict[str, str] | None = None,
    ) -> None:
        """``extra_env``: more of the server's environment; ``{url}`` in a value is its own
        address (``ARBITER_PUBLIC_URL``)."""
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = dict(os.environ)
        env.update(
            ARBITER_VAR=str(var),
            ARBITER_PLUGINS=plugins,
            ARBITER_STORE="sqlite",
        )
        env.pop("REDIS_URL", None)
        env.update({k: v.format(url=self.url) for k, v in (extra_env or {}).items()})
        self.env = env
        seed_index(var)
        self.proc = subprocess.Popen(
            [ARBITER, "serve", "--port", str(self.port)],
            env=env,
            cwd=REPO,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        self.tokens: dict[str, str] = {}
        deadline = time.monotonic() + 90  # a busy two-core machine runs four test workers
        while time.monotonic() < deadline:
            try:
                if requests.get(self.url + "/healthz", timeout=1).ok:
                    return
            except requests.RequestException:  # refused, or too slow to answer yet under load
                time.sleep(0.1)
            if self.proc.poll() is not None:
                raise AssertionError(self.proc.stderr.read().decode() if self.proc.stderr else "")
        raise AssertionError("the server did not start")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)

    def user(self, name: str) -> dict[str, str]:
        if name not in self.tokens:
            r = requests.post(
                self.url + "/api/users", json={"username": name, "password": PASSWORD}
            )
            assert r.status_code == 201, r.text
            r = requests.post(
                self.url + "/api/tokens", json={"username": name, "password": PASSWORD}
            )
            self.tokens[name] = r.json()["token"]
        return {"Authorization": f"Bearer {self.tokens[name]}"}

    def grant(self, name: str, role: str) -> None:
        """A site-wide role through the CLI (``arbiter users grant``) on the server's own store."""
        self.user(name)
        done = subprocess.run(
            [ARBITER, "users", "grant", name, "--role", role],
            env=self.env,
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr

    def api(self, method: str, path: str, user: str, **kwargs: Any) -> Any:
        """An API call as ``user`` that must succeed; returns the JSON body."""
        r = requests.request(method, self.url + path, headers=self.user(user), **kwargs)
        assert r.ok, r.text
        return r.json() if r.content else None

    def admit(self, club: str, admin: str, name: str, roles: list[str] | None = None) -> None:
        """``name`` made a member of ``club`` (its id) as an admin does it: ``admin`` adds them
        (an invitation) and they accept."""
        body: dict[str, Any] = {"username": name, **({"roles": roles} if roles else {})}
        self.api("POST", f"/api/clubs/{club}/members", admin, json=body)
        self.api("POST", f"/api/clubs/{club}/invitation", name, json={"accept": True})

    def read(self, path: str, user: str | None = None, **params: Any) -> Any:
        """``GET path`` as ``user``, or (None) as ``referee``, a site arbiter who plays no side
        and so reads any game of no club in the spectator view (a game is private: a visitor
        reads nothing of it); the JSON body."""
        if user is None and "referee" not in self.tokens:
            self.grant("referee", "arbiter")
        r = requests.get(self.url + path, headers=self.user(user or "referee"), params=params)
        assert r.ok, r.text
        return r.json()

    def create_game(self, sides: dict[str, str], **options: Any) -> dict[str, Any]:
        """A skirmish game created by the first side's player; every other named player accepts
        the invitation (a real HTTP call each), so it comes back active, at its current version."""
        for name in sides.values():
            self.user(name)
        creator = next(iter(sides.values()))
        r = requests.post(
            self.url + "/api/games",
            json={"system": "skirmish", "scenario": "meeting", "sides": sides, "options": options},
            headers=self.user(creator),
        )
        assert r.status_code == 201, r.text
        game = r.json()
        pending = [n for n in dict.fromkeys(sides.values()) if n != creator]
        for name in pending:
            self.api("POST", f"/api/games/{game['id']}/accept", name)
        if not pending:
            return dict(game)
        return dict(self.api("GET", f"/api/games/{game['id']}", creator))

    def accept(self, game_id: str, *users: str) -> None:
        """``users`` accept their invitation to the game (one real HTTP call each)."""
        for name in users:
            self.api("POST", f"/api/games/{game_id}/accept", name)

    def command(self, game_id: str, user: str, command: dict[str, Any]) -> dict[str, Any]:
        version = self.read(f"/api/games/{game_id}", user)["version"]
        r = requests.post(
            f"{self.url}/api/games/{game_id}/commands",
            json={"expected_version": version, "command": command},
            headers=self.user(user),
        )
        assert r.status_code == 201, r.text
        return r.json()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("arbiter") / "var")
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def drill(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server with Merida's rules on the decisions drill (``tests.fixtures.merida_drill``, as
    ``merida-drill``): a 6-1 attack with armour on a five-unit stack at E5, whatever the die."""
    srv = Server(
        tmp_path_factory.mktemp("arbiter") / "var",
        plugins="tests.fixtures.skirmish,tests.fixtures.merida_drill",
    )
    yield srv
    srv.stop()


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if not Path(CHROMIUM).exists():
        reason = f"{CHROMIUM} is missing (install Debian's chromium package)"
        if os.environ.get("CI") == "true":
            pytest.fail(f"{reason}: the browser suite must run in CI")
        pytest.skip(reason)
    from playwright.sync_api import expect, sync_playwright

    # live updates cross a server process and an event stream: on a loaded 2-core machine they
    # may take longer than Playwright's 5 s default, so assertions wait up to 60 s (a home page's
    # first render once took over 15 s, and a game page's over 30 s, in make test's busiest
    # minutes: four test workers, their servers and Chromium on two cores; alone they take 1-2 s)
    expect.set_options(timeout=60_000)
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        watched(chromium)
        yield chromium
        chromium.close()


#: what the pages of the test now running met that a failure may be explained by: requests that
#: failed, errors in their scripts and the console's errors (printed with a failed test's report)
JOURNAL: list[str] = []


def _watch(context: Any) -> Any:
    def failed(request: Any) -> None:
        JOURNAL.append(f"request failed: {request.method} {request.url}: {request.failure}")

    def console(message: Any) -> None:
        if message.type == "error":
            JOURNAL.append(f"console error: {message.text}")

    context.on("requestfailed", failed)
    context.on("console", console)
    context.on("weberror", lambda error: JOURNAL.append(f"script error: {error.error}"))
    return context


def watched(chromium: Any) -> None:
    """Every context and page the tests open on ``chromium`` writes to :data:`JOURNAL`."""
    new_context, new_page = chromium.new_context, chromium.new_page

    def context_watched(*args: Any, **kwargs: Any) -> Any:
        return _watch(new_context(*args, **kwargs))

    def page_watched(*args: Any, **kwargs: Any) -> Any:
        page = new_page(*args, **kwargs)
        _watch(page.context)
        return page

    chromium.new_context, chromium.new_page = context_watched, page_watched


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()
    if report.failed and JOURNAL:
        report.sections.append(("what the browser met", "\n".join(JOURNAL[-100:])))


@pytest.fixture(autouse=True)
def contexts_closed(request: pytest.FixtureRequest) -> Iterator[None]:
    """Every browser context a test opened is closed when it ends: a page left open keeps its
    renderer, its event streams and their reconnections for the rest of the session."""
    browser = request.getfixturevalue("browser") if "browser" in request.fixturenames else None
    JOURNAL.clear()
    yield
    for context in list(browser.contexts if browser else []):
        context.close()


@pytest.fixture(scope="session")
def shots() -> Path:
    """A temporary folder kept after the run (pytest's own are pruned) for looking at the pages."""
    folder = Path(
        os.environ.get("ARBITER_SCREENSHOTS") or tempfile.mkdtemp(prefix="arbiter-shots-")
    )
    folder.mkdir(parents=True, exist_ok=True)
    print(f"\nscreenshots: {folder}")
    return folder


def signed_in(
    browser: Any, server: Server, user: str, viewport: dict[str, int] = DESKTOP, touch: bool = False
) -> Any:
    """A new browser context signed in as ``user`` through POST /api/session; returns a page.
    With ``touch`` the context has a touch screen (``page.tap``), as a phone has."""
    server.user(user)
    context = browser.new_context(viewport=viewport, base_url=server.url, has_touch=touch)
    context.set_default_timeout(20_000)
    r = context.request.post(
        server.url + "/api/session", data={"username": user, "password": PASSWORD}
    )
    assert r.status == 201, r.text()
    return context.new_page()


def on_a_phone(page: Any, ready: str, shot: Path) -> None:
    """``page`` reloaded at 390x844: once ``ready`` is there, a whole-page screenshot, and the
    page never scrolls sideways."""
    from playwright.sync_api import expect

    page.set_viewport_size(PHONE)
    page.reload()
    expect(page.locator(ready)).to_have_count(1)
    page.screenshot(path=shot, full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]

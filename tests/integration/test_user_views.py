"""The persisted tokens and e-mail addresses views (issue 27), on a real SQLite file and PostgreSQL:
a user's live tokens, read by key, equal what the tokens' records say after random sign-ins (under
the cap), uses by writes, revocations, expiries and password changes; the users of an address
equal what the users' records say after random changes of address; both after every step without
the worker (each write brings its views up to date: nothing is left for the worker's step), and
equal to a rebuild from the log.  Over HTTP, a GET writes nothing, a write's recorded use is listed
at once, and a changed address finds its reset at once."""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import suppress
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from flask import Flask

from service.config import Config
from service.domain.errors import Unauthenticated
from service.domain.users import ApiToken, User
from tests.conftest import app_of
from tests.support.api import PASSWORD, ApiHelper

USERS = ("ann", "bob", "cat", "dan")
ADDRESSES = ("one@example.org", "Two@Example.org", "three@example.org")
CAP = 4


@pytest.fixture
def app(store_config: Config, index_template: Path) -> Iterator[Flask]:
    with app_of(store_config, index_template) as application:
        yield application


def expected_tokens(svc: Any, user: User, issued: list[str], now: datetime) -> list[dict[str, Any]]:
    """``user``'s live tokens as their records say: not revoked, not expired at ``now``, issued
    under the user's current password; newest first."""
    rows = []
    for tid in issued:
        record: ApiToken = svc.store.repository.get(UUID(hex=tid))
        if record.user_id != str(user.id):
            continue
        if record.revoked or record.expires <= now or record.generation < user.password_generation:
            continue
        rows.append(
            {
                "id": record.id.hex,
                "label": record.label,
                "created": record.created_on,
                "last_used": record.last_used,
                "expires": record.expires,
            }
        )
    return sorted(rows, key=lambda row: (row["created"], row["id"]), reverse=True)


def expected_users(svc: Any, address: str) -> list[str]:
    return sorted(
        str(svc.users.by_name(name).id)
        for name in USERS
        if (svc.users.by_name(name).email or "").lower() == address.strip().lower()
    )


def table(view: Any, name: str, key: str) -> list[dict[str, Any]]:
    return view.query(f"SELECT * FROM {{{name}}} ORDER BY {key}")


@pytest.mark.slow(
    "random changes to users, clubs and ladders on each store, every view compared with its rebuild"
    " (a few seconds alone, 40 s once in make test under the tracer)"
)
def test_the_views_equal_the_records_after_random_changes_and_their_rebuild(app: Flask) -> None:
    rnd = random.Random(27)
    svc: Any = app.extensions["arbiter"]
    users = svc.users
    users.tokens_per_user = CAP
    for name in USERS:
        users.register(name, PASSWORD)
    issued: list[str] = []
    bearers: list[str] = []
    lifetimes = [timedelta(days=30), timedelta(days=30), timedelta(hours=1), -timedelta(hours=1)]
    for step in range(90):
        name = rnd.choice(USERS)
        user = users.by_name(name)
        what = rnd.random()
        if what < 0.4:
            users.token_lifetime = rnd.choice(lifetimes)
            signed = users.sign_in(name, PASSWORD, label=f"t{step}")
            issued.append(signed.record.id.hex)
            bearers.append(signed.token)
            # the cap counted the live tokens when this one was issued
            assert len(users.tokens(users.by_name(name))) <= CAP
        elif what < 0.55 and bearers:
            token = rnd.choice(bearers[-4:])
            with suppress(Unauthenticated):  # revoked, expired, signed out: no use
                users.from_token(token, writing=True)  # recorded (once an hour) by a write
        elif what < 0.7 and issued:
            tid = rnd.choice(issued)
            owner = users.get(svc.store.repository.get(UUID(hex=tid)).user_id)
            users.revoke_token(owner, tid)  # revoked already or not
        elif what < 0.75:
            users.set_password(name, PASSWORD)  # signs every token of the user out
        else:
            email = rnd.choice([*ADDRESSES, ADDRESSES[0].upper(), None])
            users.change_email(user, email, PASSWORD)
        # read-your-writes, no worker: every write brought its views up to date
        now = users.clock()
        for who in USERS:
            fresh = users.by_name(who)
            assert users.tokens(fresh) == expected_tokens(svc, fresh, issued, now), (step, who)
        for address in (*ADDRESSES, ADDRESSES[1].lower(), " one@EXAMPLE.org "):
            assert svc.password_resets.emails.users_of(address) == expected_users(svc, address)
    for token in bearers[-8:]:
        with suppress(Unauthenticated):
            users.from_token(token, writing=True)
    assert [svc.projections[name].run() for name in ("tokens", "emails")] == [0, 0]
    later = datetime.now(UTC) + timedelta(hours=2)  # the one-hour tokens have expired by now
    users.clock = lambda: later
    want = {n: expected_tokens(svc, users.by_name(n), issued, later) for n in USERS}
    got = {n: users.tokens(users.by_name(n)) for n in USERS}
    assert got == want
    assert any(row["last_used"] for rows in got.values() for row in rows)
    assert sum(map(len, got.values())) >= len(USERS)  # something is live
    views = {name: svc.projections[name].view for name in ("tokens", "emails")}
    rows = {"tokens": table(views["tokens"], "tokens", "id")}
    rows["emails"] = table(views["emails"], "emails", "user_id")
    assert rows["emails"] and len(rows["tokens"]) < len(issued)  # rows do go
    for name in views:
        svc.projections.rebuild(name)
    assert table(svc.projections["tokens"].view, "tokens", "id") == rows["tokens"]
    assert table(svc.projections["emails"].view, "emails", "user_id") == rows["emails"]
    assert {n: users.tokens(users.by_name(n)) for n in USERS} == want
    for address in ADDRESSES:
        assert svc.password_resets.emails.users_of(address) == expected_users(svc, address)


def test_over_http_a_write_is_read_at_once_and_a_read_writes_nothing(app: Flask) -> None:
    svc: Any = app.extensions["arbiter"]
    api = ApiHelper(app.test_client())
    client = api.client
    ann = api.user("ann")
    r = client.post("/api/tokens", json={"username": "ann", "password": PASSWORD, "label": "new"})
    assert r.status_code == 201, r.get_json()
    fresh = {"Authorization": f"Bearer {r.get_json()['token']}"}
    head = svc.store.recorder.max_notification_id()
    positions = {name: runner.position() for name, runner in svc.projections.runners.items()}
    listed = client.get("/api/me/tokens", headers=fresh).get_json()["tokens"]
    assert [(row["label"], row["last_used"]) for row in listed] == [("new", None), ("api", None)]
    assert svc.store.recorder.max_notification_id() == head  # the GET wrote nothing
    assert {n: r.position() for n, r in svc.projections.runners.items()} == positions

    r = client.put(
        "/api/me/email",
        json={"email": "Ann@Example.org", "current_password": PASSWORD},
        headers=fresh,
    )
    assert r.status_code == 200, r.get_json()  # a write: the token's use is recorded with it
    record = svc.store.repository.get(UUID(hex=listed[0]["id"]))
    rows = client.get("/api/me/tokens", headers=ann).get_json()["tokens"]
    assert record.last_used is not None
    assert [row["last_used"] for row in rows] == [record.last_used.isoformat(), None]
    resets = svc.password_resets
    assert [m.to for m in resets.mails("ann@example.ORG")] == ["Ann@Example.org"]
    r = client.put(
        "/api/me/email",
        json={"email": "ann@elsewhere.example", "current_password": PASSWORD},
        headers=ann,
    )
    assert r.status_code == 200, r.get_json()
    assert list(resets.mails("ann@example.org")) == []
    assert [m.to for m in resets.mails("ANN@elsewhere.example")] == ["ann@elsewhere.example"]
    r = client.delete(f"/api/tokens/{listed[0]['id']}", headers=ann)
    assert r.status_code == 204
    ids = [row["id"] for row in client.get("/api/me/tokens", headers=ann).get_json()["tokens"]]
    assert ids == [listed[1]["id"]]

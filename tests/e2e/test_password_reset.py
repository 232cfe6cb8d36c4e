"""Password reset by e-mail through a real SMTP server (aiosmtpd): the link in the mail sets a new
password once, signs every session out, expires (the clock is the service's, moved forward, not
slept), and asking for it tells nothing about which accounts exist (issue 34, finding 6), not even
by its time; two uses of one link at once: one succeeds.  Changing the account's address needs the
password, tells the old address, and kills the links sent before."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from datetime import timedelta
from email.message import Message
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.conftest import app_of, make_config
from tests.support.api import PASSWORD
from tests.support.receivers import SmtpReceiver

NEW = "a brand new passphrase"
PUBLIC = "https://arbiter.example.org"
LINK = re.compile(re.escape(PUBLIC) + r"/reset-password#token=([A-Za-z0-9_.\-]+)")


@pytest.fixture
def smtp() -> Iterator[SmtpReceiver]:
    with SmtpReceiver() as receiver:
        yield receiver


@pytest.fixture
def rapp(tmp_path: Path, index_template: Path, smtp: SmtpReceiver) -> Iterator[Flask]:
    with app_of(make_config(tmp_path, smtp_url=smtp.url, public_url=PUBLIC), index_template) as app:
        yield app


@pytest.fixture
def rclient(rapp: Flask) -> FlaskClient:
    return rapp.test_client()


def register(client: FlaskClient, name: str, email: str | None) -> str:
    r = client.post("/api/users", json={"username": name, "password": PASSWORD, "email": email})
    assert r.status_code == 201, r.get_json()
    r = client.post("/api/tokens", json={"username": name, "password": PASSWORD})
    return str(r.get_json()["token"])


def ask(client: FlaskClient, account: str, address: str = "192.0.2.10") -> Any:
    return client.post(
        "/api/password-resets", json={"account": account}, environ_base={"REMOTE_ADDR": address}
    )


def use(client: FlaskClient, token: str, password: str = NEW) -> Any:
    return client.post("/api/password-resets/use", json={"token": token, "new_password": password})


def mails(smtp: SmtpReceiver, address: str, count: int = 1, wait: float = 10) -> list[Message]:
    """The mails to ``address`` once there are ``count`` of them (the outbox sends in a thread)."""
    deadline = time.monotonic() + wait
    while len(smtp.to(address)) < count and time.monotonic() < deadline:
        time.sleep(0.02)
    found = smtp.to(address)
    assert len(found) >= count, f"{len(found)} mails to {address}, not {count}"
    return found


def link_token(message: Message) -> str:
    body = message.get_body(preferencelist=("plain",))
    assert body is not None
    found = LINK.search(body.get_content())
    assert found, body.get_content()
    return found.group(1)


def test_the_link_sets_a_new_password_once_and_signs_everything_out(
    rclient: FlaskClient, smtp: SmtpReceiver
) -> None:
    old = register(rclient, "alice", "alice@example.org")
    r = ask(rclient, "alice")
    assert r.status_code == 202, r.get_json()
    (mail,) = mails(smtp, "alice@example.org")
    assert mail["Subject"] == "Arbiter: set a new password"
    assert "“alice”" in mail.get_body().get_content()  # type: ignore[union-attr]
    token = link_token(mail)

    r = use(rclient, token)
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["user"]["username"] == "alice" and r.get_json()["signed_out"] == 1
    assert rclient.get("/api/me", headers={"Authorization": f"Bearer {old}"}).status_code == 401
    assert (
        rclient.post("/api/tokens", json={"username": "alice", "password": PASSWORD}).status_code
        == 401
    )
    assert (
        rclient.post("/api/tokens", json={"username": "alice", "password": NEW}).status_code == 201
    )

    again = use(rclient, token, "yet another passphrase")
    assert again.status_code == 422  # a link this site no longer honours (issue 46)
    assert "already used" in again.get_json()["details"]["token"][0]
    assert (
        rclient.post("/api/tokens", json={"username": "alice", "password": NEW}).status_code == 201
    )


def test_asking_by_address_ignores_case(rclient: FlaskClient, smtp: SmtpReceiver) -> None:
    register(rclient, "bob", "Bob@Example.org")
    assert ask(rclient, "bob@example.ORG").status_code == 202
    token = link_token(mails(smtp, "Bob@Example.org")[0])
    assert use(rclient, token).status_code == 200


def test_unknown_names_get_the_same_answer_and_no_mail(
    rclient: FlaskClient, smtp: SmtpReceiver
) -> None:
    register(rclient, "carol", "carol@example.org")
    register(rclient, "dave", None)  # no address: nothing to send
    answers = [ask(rclient, account) for account in ("nobody", "nobody@example.org", "dave")]
    known = ask(rclient, "carol")
    for answer in answers:
        assert (answer.status_code, answer.get_json()) == (known.status_code, known.get_json())
    mails(smtp, "carol@example.org")
    time.sleep(0.3)  # the outbox sends in order: anything queued before carol's is in by now
    assert [m["To"] for m in smtp.messages] == ["carol@example.org"]


def test_an_expired_link_is_refused_and_writes_nothing(
    rapp: Flask, rclient: FlaskClient, smtp: SmtpReceiver
) -> None:
    register(rclient, "erin", "erin@example.org")
    resets = rapp.extensions["arbiter"].password_resets
    assert resets.lifetime == timedelta(minutes=60)  # ARBITER_RESET_MINUTES' default
    ask(rclient, "erin")
    token = link_token(mails(smtp, "erin@example.org")[0])
    clock = resets.clock
    resets.clock = lambda: clock() + timedelta(minutes=60, seconds=1)
    r = use(rclient, token)
    assert r.status_code == 422 and "expired" in r.get_json()["details"]["token"][0], r.get_json()
    resets.clock = lambda: clock() + timedelta(minutes=59)
    assert use(rclient, token).status_code == 200  # within its time it works


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda t: t[:-3] + ("AAA" if not t.endswith("AAA") else "BBB"), "token"),
        (lambda t: "not a token", "token"),
        (lambda t: t, "new_password"),
    ],
)
def test_a_forged_link_or_a_refused_password_writes_nothing(
    rclient: FlaskClient, smtp: SmtpReceiver, change: Any, field: str
) -> None:
    register(rclient, "frank", "frank@example.org")
    ask(rclient, "frank")
    token = link_token(mails(smtp, "frank@example.org")[0])
    password = "12345678" if field == "new_password" else NEW
    r = use(rclient, change(token), password)
    # a forged link or a common password: 422, a well-formed request refused (issue 46)
    assert r.status_code == 422 and field in r.get_json()["details"], r.get_json()
    assert (
        rclient.post("/api/tokens", json={"username": "frank", "password": PASSWORD}).status_code
        == 201
    )
    assert use(rclient, token).status_code == 200  # the real link still works once


def test_a_password_changed_otherwise_kills_earlier_links(
    rclient: FlaskClient, smtp: SmtpReceiver
) -> None:
    old = register(rclient, "gina", "gina@example.org")
    ask(rclient, "gina")
    token = link_token(mails(smtp, "gina@example.org")[0])
    r = rclient.post(
        "/api/me/password",
        json={"current_password": PASSWORD, "new_password": NEW},
        headers={"Authorization": f"Bearer {old}"},
    )
    assert r.status_code == 200
    assert use(rclient, token, "yet another passphrase").status_code == 422


def test_requests_are_throttled_per_address_and_per_account(
    rclient: FlaskClient, smtp: SmtpReceiver
) -> None:
    register(rclient, "hank", "hank@example.org")
    answers = [ask(rclient, "hank", address=f"192.0.2.{20 + i}").status_code for i in range(5)]
    assert answers == [202] * 5  # the same answer: the account's 4th and 5th send nothing
    mails(smtp, "hank@example.org", 3)
    time.sleep(0.3)
    assert len(smtp.to("hank@example.org")) == 3
    for i in range(10):
        assert ask(rclient, f"someone{i}", address="198.51.100.77").status_code == 202
    r = ask(rclient, "hank", address="198.51.100.77")
    assert r.status_code == 429 and int(r.headers["Retry-After"]) > 0
    assert "account" in r.get_json()["details"]
    assert ask(rclient, "nobody", address="198.51.100.78").status_code == 202


@pytest.mark.parametrize(
    "body",
    [{}, {"account": ""}, {"account": "x" * 255}, {"account": "alice", "extra": 1}, {"account": 7}],
)
def test_a_malformed_request_names_the_field(rclient: FlaskClient, body: dict[str, Any]) -> None:
    r = rclient.post("/api/password-resets", json=body)
    assert r.status_code == 400 and r.get_json()["details"], r.get_json()


def test_the_link_lifetime_comes_from_the_environment(tmp_path: Path) -> None:
    from service.config import Config, ConfigError

    env = {"ARBITER_VAR": str(tmp_path), "ARBITER_SECRET_KEY": "k"}
    assert Config.from_env(env).reset_minutes == 60
    assert Config.from_env({**env, "ARBITER_RESET_MINUTES": "15"}).reset_minutes == 15
    for bad in ("0", "-5", "1441", "soon"):
        with pytest.raises(ConfigError, match="ARBITER_RESET_MINUTES|bad configuration"):
            Config.from_env({**env, "ARBITER_RESET_MINUTES": bad})


def test_two_uses_of_one_link_at_once_only_one_succeeds(
    rapp: Flask, smtp: SmtpReceiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = rapp.test_client()
    register(client, "ivan", "ivan@example.org")
    ask(client, "ivan")
    token = link_token(mails(smtp, "ivan@example.org")[0])
    resets = rapp.extensions["arbiter"].password_resets
    both_checked = threading.Barrier(2, timeout=10)
    first_done = threading.Event()
    set_password = resets.users.set_password

    def wait_then_set(*args: Any, **kwargs: Any) -> Any:
        """Both uses have checked the link; one writes, then the other (a lost race at the
        store's commit is the other way two uses overlap: refused by the store's versions)."""
        if both_checked.wait() == 0:
            try:
                return set_password(*args, **kwargs)
            finally:
                first_done.set()
        first_done.wait(10)
        return set_password(*args, **kwargs)

    monkeypatch.setattr(resets.users, "set_password", wait_then_set)
    answers: list[Any] = []

    def use_it(password: str) -> None:
        r = use(rapp.test_client(), token, password)
        answers.append((r.status_code, r.get_json()))

    threads = [threading.Thread(target=use_it, args=(p,)) for p in (NEW, "the other passphrase")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    codes = sorted(code for code, _ in answers)
    assert codes == [200, 422], answers
    refused = next(body for code, body in answers if code != 200)
    assert "already used" in refused["details"]["token"][0], refused
    winner = next(body for code, body in answers if code == 200)
    assert winner["user"]["username"] == "ivan"
    works = [
        client.post("/api/tokens", json={"username": "ivan", "password": p}).status_code
        for p in (NEW, "the other passphrase")
    ]
    assert sorted(works) == [201, 401]  # one new password took, the other was never written


def test_asking_does_the_same_work_whether_or_not_the_account_exists(
    rapp: Flask, rclient: FlaskClient, smtp: SmtpReceiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    register(rclient, "judy", "judy@example.org")
    services = rapp.extensions["arbiter"]
    resets = services.password_resets
    repository = services.store.repository
    reads: list[str] = []
    get, users_of = repository.get, resets.emails.users_of

    def counted_get(*args: Any, **kwargs: Any) -> Any:
        reads.append(threading.current_thread().name)
        return get(*args, **kwargs)

    def counted_users_of(address: str) -> Any:
        reads.append(threading.current_thread().name)
        return users_of(address)

    monkeypatch.setattr(repository, "get", counted_get)
    monkeypatch.setattr(resets.emails, "users_of", counted_users_of)
    for account in ("judy", "judy@example.org", "nobody", "nobody@example.org"):
        reads.clear()
        assert ask(rclient, account).status_code == 202
        mine = threading.current_thread().name
        assert mine not in reads, f"{account}: the request itself looked the account up"
    mails(smtp, "judy@example.org", 2)  # the outbox's thread found judy both ways


def test_a_link_dies_when_the_address_changes(rclient: FlaskClient, smtp: SmtpReceiver) -> None:
    secret = register(rclient, "kate", "kate@example.org")
    ask(rclient, "kate")
    token = link_token(mails(smtp, "kate@example.org")[0])
    r = rclient.put(
        "/api/me/email",
        json={"email": "kate@elsewhere.example", "current_password": PASSWORD},
        headers={"Authorization": f"Bearer {secret}"},
    )
    assert r.status_code == 200, r.get_json()
    r = use(rclient, token)
    assert r.status_code == 422 and "address changed" in r.get_json()["details"]["token"][0]
    ask(rclient, "kate")  # a link to the new address works
    assert use(rclient, link_token(mails(smtp, "kate@elsewhere.example")[0])).status_code == 200


def put_email(client: FlaskClient, secret: str, body: dict[str, Any], address: str = "") -> Any:
    return client.put(
        "/api/me/email",
        json=body,
        headers={"Authorization": f"Bearer {secret}"},
        environ_base={"REMOTE_ADDR": address or "192.0.2.50"},
    )


def test_changing_the_address_needs_the_password_and_tells_the_old_one(
    rclient: FlaskClient, smtp: SmtpReceiver
) -> None:
    secret = register(rclient, "liam", "liam@example.org")
    me = {"Authorization": f"Bearer {secret}"}
    missing = put_email(rclient, secret, {"email": "thief@example.net"})
    assert missing.status_code == 400 and "current_password" in missing.get_json()["details"]
    wrong = put_email(rclient, secret, {"email": "thief@example.net", "current_password": "guess"})
    assert wrong.status_code == 403 and "current_password" in wrong.get_json()["details"]
    prefs = rclient.get("/api/me/notification-preferences", headers=me).get_json()
    assert prefs["email"] == "liam@example.org"  # nothing written
    r = put_email(rclient, secret, {"email": "liam@new.example", "current_password": PASSWORD})
    assert r.status_code == 200 and r.get_json()["email"] == "liam@new.example", r.get_json()
    (notice,) = mails(smtp, "liam@example.org")
    assert notice["Subject"] == "Arbiter: your e-mail address was changed"
    content = notice.get_body().get_content()  # type: ignore[union-attr]
    assert "“liam”" in content and "liam@new.example" not in content
    r = put_email(rclient, secret, {"email": None, "current_password": PASSWORD})
    assert r.status_code == 200 and r.get_json()["email"] is None
    (removed,) = mails(smtp, "liam@new.example")
    assert "was removed" in removed.get_body().get_content()  # type: ignore[union-attr]
    time.sleep(0.3)
    assert [m["To"] for m in smtp.messages] == ["liam@example.org", "liam@new.example"]


def test_wrong_passwords_for_the_address_count_towards_the_throttle(
    rclient: FlaskClient,
) -> None:
    secret = register(rclient, "mona", "mona@example.org")
    body = {"email": "thief@example.net", "current_password": "not it"}
    codes = [put_email(rclient, secret, body).status_code for _ in range(5)]
    assert codes == [403] * 5
    held = put_email(rclient, secret, {**body, "current_password": PASSWORD})
    assert held.status_code == 429 and "current_password" in held.get_json()["details"]
    assert (
        rclient.post("/api/tokens", json={"username": "mona", "password": PASSWORD}).status_code
        == 429
    )  # the same count as signing in

"""Chat beside the game and notes per side (issue 30; docs/chat-and-notes.md): who reads and writes
a game's chat (its players; a club game's arbiters; nobody else), the arbiters' hiding with a
reason, muting, the limits, the notes no one else ever reads, and bad input that writes nothing."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from service.domain import conversations as conv
from service.domain.conversations import conversation_id
from tests.support.api import ApiHelper


def ok(response: Any, status: int = 200) -> Any:
    assert response.status_code == status, response.get_json()
    return response.get_json()


def events_of(api: ApiHelper, aggregate: Any) -> int:
    svc = api.client.application.extensions["arbiter"]  # type: ignore[attr-defined]
    return len(svc.store.recorder.select_events(aggregate, limit=100000))


@pytest.fixture
def club_game(api: ApiHelper) -> dict[str, str]:
    """A club game of Hex Club: ann (red) v cat (blue); ref is the club's arbiter, dan a member
    who plays nothing (a spectator), eve no member at all."""
    club = ok(
        api.client.post("/api/clubs", json={"name": "Hex Club"}, headers=api.user("ann")), 201
    )
    for name, roles in (("cat", ["player"]), ("dan", ["player"]), ("ref", ["arbiter"])):
        api.user(name)
        api.admit(
            f"/api/clubs/{club['id']}/members", {"username": name, "roles": roles}, api.user("ann")
        )
    api.user("eve")
    r = api.client.post(
        "/api/games",
        json={
            "system": "skirmish",
            "scenario": "meeting",
            "sides": {"red": "ann", "blue": "cat"},
            "club": club["id"],
        },
        headers=api.user("ann"),
    )
    game = api.accept_all(ok(r, 201), "ann")
    return {"game": game["id"], "club": club["id"]}


class ChatTime:
    """The chat's clock (its events' timestamps), moved on by hand: notices depend on the quiet
    between messages (``conversations.QUIET_SECONDS``)."""

    def __init__(self) -> None:
        self.now = datetime.now(UTC)

    def __call__(self) -> datetime:
        return self.now

    def later(self, minutes: float) -> None:
        self.now += timedelta(minutes=minutes)


@pytest.fixture
def chat_time(monkeypatch: pytest.MonkeyPatch) -> ChatTime:
    clock = ChatTime()
    monkeypatch.setattr(conv.Conversation.Event, "create_timestamp", staticmethod(clock))
    return clock


def chat(api: ApiHelper, game: str, user: str | None, **query: Any) -> Any:
    headers = api.user(user) if user else {}
    return api.client.get(f"/api/games/{game}/chat", query_string=query, headers=headers)


def say(api: ApiHelper, game: str, user: str, text: Any) -> Any:
    return api.client.post(f"/api/games/{game}/chat", json={"text": text}, headers=api.user(user))


def test_players_talk_and_the_club_arbiter_reads_and_writes(
    api: ApiHelper, club_game: dict[str, str]
) -> None:
    game = club_game["game"]
    first = ok(say(api, game, "ann", "  Good luck!  "), 201)
    assert first["number"] == 1 and first["author"] == "ann" and first["text"] == "Good luck!"
    assert first["role"] == "player" and first["mine"] and not first["hidden"]
    ok(say(api, game, "cat", "And to you."), 201)
    ok(say(api, game, "ref", "I am the arbiter of this game."), 201)
    page = ok(chat(api, game, "cat"))
    assert [(m["number"], m["author"], m["role"], m["mine"]) for m in page["messages"]] == [
        (1, "ann", "player", False),
        (2, "cat", "player", True),
        (3, "ref", "arbiter", False),
    ]
    assert page["muted"] is False and page["may_hide"] is False and page["next"] is None
    assert page["limits"] == {
        "text_max": 1000,
        "per_minute": 20,
        "per_game": 1000,
        "reason_max": 300,
    }
    assert ok(chat(api, game, "ref"))["may_hide"] is True
    # nothing shown is an id: authors are names
    assert "author" not in str(page["messages"]).replace("'author'", "")  # no raw author ids
    svc = api.client.application.extensions["arbiter"]  # type: ignore[attr-defined]
    ids = {str(svc.users.by_name(n).id) for n in ("ann", "cat", "ref")}
    assert not any(i in str(page) for i in ids)


def test_a_spectator_and_a_stranger_never_read_the_chat(
    api: ApiHelper, club_game: dict[str, str]
) -> None:
    game = club_game["game"]
    ok(say(api, game, "ann", "secret plan"), 201)
    # dan reads the club's game (a member) but not its chat: 403, naming why
    r = chat(api, game, "dan")
    assert r.status_code == 403 and "player" in r.get_json()["details"]["chat"][0]
    assert (
        api.client.get(
            f"/api/games/{game}/chat/stream?window=1", headers=api.user("dan")
        ).status_code
        == 403
    )
    # eve and a visitor may not read the game: the game's own 404, nothing confirmed
    for user in ("eve", None):
        r = chat(api, game, user)
        assert r.status_code == 404 and r.get_json()["details"] == {"game": ["unknown game"]}
        assert "secret" not in r.get_data(as_text=True)


def test_a_public_games_spectators_read_no_chat(api: ApiHelper) -> None:
    game = api.create_game("skirmish", "meeting", {"red": "alice", "blue": "bob"}, public=True)
    ok(say(api, game["id"], "alice", "hello bob"), 201)
    assert ok(chat(api, game["id"], "bob"))["messages"][0]["text"] == "hello bob"
    assert chat(api, game["id"], "eve").status_code == 403
    assert chat(api, game["id"], None).status_code == 403


def test_a_non_player_cannot_post_and_nothing_is_written(
    api: ApiHelper, club_game: dict[str, str]
) -> None:
    game = club_game["game"]
    cid = conversation_id(game)
    r = say(api, game, "dan", "let me in")
    assert r.status_code == 403
    body = r.get_json()
    assert body["error"] == "forbidden" and "not a player" in body["details"]["chat"][0]
    assert say(api, game, "eve", "hi").status_code == 404
    assert events_of(api, cid) == 0  # not even the conversation was opened


@pytest.mark.parametrize(
    ("body", "field", "reason"),
    [
        ({"text": ""}, "text", "must not be empty"),
        ({"text": "   \n "}, "text", "must not be empty"),
        ({"text": "x" * 1001}, "text", "at most 1000 characters"),
        ({"text": 5}, "text", "Not a valid string."),
        ({}, "text", "Missing data for required field."),
        ({"text": "hi", "to": "cat"}, "to", "Unknown field."),
    ],
)
def test_bad_messages_name_the_field_and_write_nothing(
    api: ApiHelper, club_game: dict[str, str], body: dict[str, Any], field: str, reason: str
) -> None:
    game = club_game["game"]
    r = api.client.post(f"/api/games/{game}/chat", json=body, headers=api.user("ann"))
    assert r.status_code == 400, r.get_json()
    assert r.get_json()["details"][field] == [reason]
    assert events_of(api, conversation_id(game)) == 0


def test_a_message_of_exactly_the_limit_is_taken(api: ApiHelper, club_game: dict[str, str]) -> None:
    assert ok(say(api, club_game["game"], "ann", "y" * conv.TEXT_MAX), 201)["text"] == "y" * 1000


def test_the_rate_limit_refuses_the_21st_message_in_a_minute(
    api: ApiHelper, club_game: dict[str, str]
) -> None:
    game = club_game["game"]
    for n in range(conv.RATE_MESSAGES):
        ok(say(api, game, "ann", f"message {n}"), 201)
    r = say(api, game, "ann", "one too many")
    assert r.status_code == 409
    assert r.get_json()["error"] == "limit_reached"
    assert "20 messages" in r.get_json()["details"]["text"][0]
    before = events_of(api, conversation_id(game))
    ok(say(api, game, "cat", "cat has her own allowance"), 201)
    assert events_of(api, conversation_id(game)) == before + 1


def test_the_cap_per_game(api: ApiHelper, club_game: dict[str, str], monkeypatch: Any) -> None:
    monkeypatch.setattr(conv, "MESSAGES_PER_GAME", 3)
    game = club_game["game"]
    for user in ("ann", "cat", "ann"):
        ok(say(api, game, user, "hi"), 201)
    r = say(api, game, "cat", "no room")
    assert r.status_code == 409 and r.get_json()["error"] == "limit_reached"
    assert "3 messages" in r.get_json()["details"]["text"][0]


def test_the_list_is_a_keyset_page(api: ApiHelper, club_game: dict[str, str]) -> None:
    game = club_game["game"]
    for n in range(1, 6):
        ok(say(api, game, "ann" if n % 2 else "cat", f"m{n}"), 201)
    r = chat(api, game, "ann", limit=2)
    page = ok(r)
    assert [m["text"] for m in page["messages"]] == ["m1", "m2"]
    assert r.headers["X-Next-Cursor"] == page["next"] and 'rel="next"' in r.headers["Link"]
    page2 = ok(chat(api, game, "ann", limit=2, after=page["next"]))
    assert [m["text"] for m in page2["messages"]] == ["m3", "m4"]
    page3 = ok(chat(api, game, "ann", limit=2, after=page2["next"]))
    assert [m["text"] for m in page3["messages"]] == ["m5"] and page3["next"] is None
    bad = chat(api, game, "ann", after="nonsense")  # of the pattern, not given: 422 (issue 46)
    assert bad.status_code == 422 and "after" in bad.get_json()["details"]
    bad = chat(api, game, "ann", after="non sense")  # not of the document's pattern
    assert bad.status_code == 400 and "after" in bad.get_json()["details"]
    assert chat(api, game, "ann", limit=0).status_code == 400


def test_an_arbiter_hides_a_message_with_a_reason(
    api: ApiHelper, club_game: dict[str, str]
) -> None:
    game = club_game["game"]
    ok(say(api, game, "cat", "you cheat, ann"), 201)
    ok(say(api, game, "ann", "I do not"), 201)
    # players (even the author) and the spectator may not hide
    for user in ("ann", "cat", "dan"):
        r = api.client.post(
            f"/api/games/{game}/chat/1/hide", json={"reason": "x"}, headers=api.user(user)
        )
        assert r.status_code == 403, user
    before = events_of(api, conversation_id(game))
    for body, field in (
        ({"reason": ""}, "reason"),
        ({}, "reason"),
        ({"reason": "r" * 301}, "reason"),
    ):
        r = api.client.post(f"/api/games/{game}/chat/1/hide", json=body, headers=api.user("ref"))
        assert r.status_code == 400 and field in r.get_json()["details"], body
    r = api.client.post(
        f"/api/games/{game}/chat/9/hide", json={"reason": "rude"}, headers=api.user("ref")
    )
    assert r.status_code == 400 and r.get_json()["details"] == {
        "message": ["no such message in this chat"]
    }
    assert events_of(api, conversation_id(game)) == before
    hidden = ok(
        api.client.post(
            f"/api/games/{game}/chat/1/hide",
            json={"reason": "accusations go to a dispute"},
            headers=api.user("ref"),
        )
    )
    assert hidden["hidden"] and hidden["text"] == "you cheat, ann"  # the arbiter still reads it
    for user in ("ann", "cat"):
        shown = ok(chat(api, game, user))["messages"]
        assert shown[0]["text"] == "hidden by the arbiter: accusations go to a dispute"
        assert shown[0]["hidden"] and shown[0]["hidden_by"] == "ref"
        assert "cheat" not in str(shown)
        assert shown[1]["text"] == "I do not"
    again = api.client.post(
        f"/api/games/{game}/chat/1/hide", json={"reason": "again"}, headers=api.user("ref")
    )
    assert again.status_code == 409
    # the hiding is itself an event of the conversation
    svc = api.client.application.extensions["arbiter"]  # type: ignore[attr-defined]
    kinds = [type(e).__name__ for e in svc.store.events.get(conversation_id(game))]
    assert kinds == ["Opened", "Posted", "Posted", "Hidden"]


def test_a_message_is_notified_and_a_muted_chat_is_not(
    api: ApiHelper, club_game: dict[str, str], chat_time: ChatTime
) -> None:
    game = club_game["game"]

    def chat_notices(user: str) -> list[dict[str, Any]]:
        api.work()
        found = ok(api.client.get("/api/me/notifications", headers=api.user(user)))
        return [n for n in found["notifications"] if n["kind"] == "chat"]

    ok(say(api, game, "ann", "first"), 201)
    told = chat_notices("cat")
    assert (
        len(told) == 1
        and told[0]["text"] == "ann wrote to you in the chat of “Meeting at the Mill”."
    )
    assert told[0]["url"] == f"/games/{game}#chat"
    assert (
        chat_notices("ann") == [] and chat_notices("dan") == []
    )  # not the author, not a spectator
    assert ok(
        api.client.put(
            f"/api/games/{game}/chat/mute", json={"muted": True}, headers=api.user("cat")
        )
    ) == {"muted": True}
    assert ok(chat(api, game, "cat"))["muted"] is True
    ok(say(api, game, "ann", "second"), 201)
    assert len(chat_notices("cat")) == 1  # muted: nothing new
    ok(
        api.client.put(
            f"/api/games/{game}/chat/mute", json={"muted": False}, headers=api.user("cat")
        )
    )
    chat_time.later(16)  # a quiet quarter of an hour since cat was told of "first"
    ok(say(api, game, "ann", "third"), 201)
    assert len(chat_notices("cat")) == 2
    # the arbiter's message tells both players
    chat_time.later(16)
    ok(say(api, game, "ref", "play on"), 201)
    assert (
        chat_notices("ann")[0]["text"]
        == "ref (arbiter) wrote to you in the chat of “Meeting at the Mill”."
    )
    r = api.client.put(
        f"/api/games/{game}/chat/mute", json={"muted": "yes"}, headers=api.user("cat")
    )
    assert r.status_code == 400 and "muted" in r.get_json()["details"]
    r = api.client.put(
        f"/api/games/{game}/chat/mute", json={"muted": True}, headers=api.user("dan")
    )
    assert r.status_code == 403


def test_a_chat_notice_respects_the_web_setting(api: ApiHelper, club_game: dict[str, str]) -> None:
    game = club_game["game"]
    ok(
        api.client.put(
            "/api/me/notification-preferences",
            json={"preferences": {"chat": {"web": False, "email": False}}},
            headers=api.user("cat"),
        )
    )
    ok(say(api, game, "ann", "hello"), 201)
    api.work()
    found = ok(api.client.get("/api/me/notifications", headers=api.user("cat")))
    assert [n for n in found["notifications"] if n["kind"] == "chat"] == []


# -- notes ---------------------------------------------------------------------------------------
def notes(api: ApiHelper, game: str, user: str | None) -> Any:
    headers = api.user(user) if user else {}
    return api.client.get(f"/api/games/{game}/notes", headers=headers)


def test_notes_are_their_authors_alone(api: ApiHelper, club_game: dict[str, str]) -> None:
    game = club_game["game"]
    empty = ok(notes(api, game, "ann"))
    assert empty["text"] == "" and empty["hexes"] == [] and empty["shared"] is False
    assert empty["limits"] == {
        "notepad_max": 5000,
        "hex_note_max": 280,
        "hex_notes": 100,
        "changes": 2000,
    }
    mine = ok(
        api.client.put(
            f"/api/games/{game}/notes",
            json={"text": "feint north, strike D5"},
            headers=api.user("ann"),
        )
    )
    assert mine["text"] == "feint north, strike D5" and mine["updated"]
    ok(
        api.client.put(
            f"/api/games/{game}/notes/hexes/D5",
            json={"text": "weak point"},
            headers=api.user("ann"),
        )
    )
    assert ok(notes(api, game, "ann"))["hexes"] == [{"hex": "D5", "text": "weak point"}]
    # the opponent reads their own (empty) notebook, never ann's
    theirs = ok(notes(api, game, "cat"))
    assert theirs["text"] == "" and theirs["hexes"] == []
    for user in ("dan", "ref"):  # a spectator, the club's arbiter: no notebook, no reading
        r = notes(api, game, user)
        assert r.status_code == 403 and "not a player" in r.get_json()["details"]["notes"][0]
    assert notes(api, game, "eve").status_code == 404
    # nothing of ann's notes anywhere else the opponent reads
    for path in ("", "/events", "/chat", "/notes/shared", "/audit"):
        body = api.client.get(f"/api/games/{game}{path}", headers=api.user("cat")).get_data(
            as_text=True
        )
        assert "feint" not in body and "weak point" not in body, path


def test_a_shared_notepad_is_read_after_the_game_only(
    api: ApiHelper, club_game: dict[str, str]
) -> None:
    game = club_game["game"]
    ok(
        api.client.put(
            f"/api/games/{game}/notes", json={"text": "my plan"}, headers=api.user("ann")
        )
    )
    ok(
        api.client.put(
            f"/api/games/{game}/notes/hexes/D5", json={"text": "x"}, headers=api.user("ann")
        )
    )
    assert ok(api.client.post(f"/api/games/{game}/notes/share", json={}, headers=api.user("ann")))[
        "shared"
    ]
    during = ok(api.client.get(f"/api/games/{game}/notes/shared", headers=api.user("cat")))
    assert during == {"shown": False, "notes": []}
    ok(api.client.post(f"/api/games/{game}/resign", json={"side": "blue"}, headers=api.user("cat")))
    for user in ("cat", "dan"):  # the game's readers, once it is over
        after = ok(api.client.get(f"/api/games/{game}/notes/shared", headers=api.user(user)))
        assert after["shown"] and after["notes"] == [
            {
                "author": "ann",
                "sides": ["red"],
                "text": "my plan",
                "updated": after["notes"][0]["updated"],
            }
        ]
        assert "hexes" not in str(after)
    assert (
        api.client.get(f"/api/games/{game}/notes/shared", headers=api.user("eve")).status_code
        == 404
    )
    # cat never shared: her notebook stays hers, even after the game
    assert ok(notes(api, game, "cat"))["text"] == ""


def test_bad_notes_name_the_field_and_write_nothing(
    api: ApiHelper, club_game: dict[str, str]
) -> None:
    game = club_game["game"]
    svc = api.client.application.extensions["arbiter"]  # type: ignore[attr-defined]
    ann = str(svc.users.by_name("ann").id)
    from service.domain.conversations import notebook_id

    book = notebook_id(game, ann)
    cases = [
        ("put", f"/api/games/{game}/notes", {"text": "n" * 5001}, 400, "text"),
        ("put", f"/api/games/{game}/notes", {}, 400, "text"),
        ("put", f"/api/games/{game}/notes/hexes/D5", {"text": ""}, 400, "text"),
        ("put", f"/api/games/{game}/notes/hexes/D5", {"text": "h" * 281}, 400, "text"),
        ("put", f"/api/games/{game}/notes/hexes/{'Z' * 13}", {"text": "x"}, 400, "hex"),
        ("put", f"/api/games/{game}/notes/hexes/%3Cb%3E", {"text": "x"}, 400, "hex"),
        ("delete", f"/api/games/{game}/notes/hexes/D5", None, 404, "hex"),
        ("post", f"/api/games/{game}/notes/share", {"shared": "maybe"}, 400, "shared"),
    ]
    for method, path, body, status, field in cases:
        kwargs = {"json": body} if body is not None else {}
        r = getattr(api.client, method)(path, headers=api.user("ann"), **kwargs)
        assert r.status_code == status, (path, body, r.get_json())
        assert field in r.get_json()["details"], (path, r.get_json())
    assert events_of(api, book) == 0
    r = api.client.put(f"/api/games/{game}/notes", json={"text": "x"}, headers=api.user("dan"))
    assert r.status_code == 403
    ok(
        api.client.put(
            f"/api/games/{game}/notes/hexes/D5", json={"text": "ok"}, headers=api.user("ann")
        )
    )
    cleared = ok(api.client.delete(f"/api/games/{game}/notes/hexes/D5", headers=api.user("ann")))
    assert cleared["hexes"] == []


def test_the_hex_notes_cap(api: ApiHelper, club_game: dict[str, str], monkeypatch: Any) -> None:
    monkeypatch.setattr(conv, "HEX_NOTES_MAX", 2)
    game = club_game["game"]
    for hex_name in ("A1", "A2"):
        ok(
            api.client.put(
                f"/api/games/{game}/notes/hexes/{hex_name}",
                json={"text": "x"},
                headers=api.user("ann"),
            )
        )
    r = api.client.put(
        f"/api/games/{game}/notes/hexes/A3", json={"text": "x"}, headers=api.user("ann")
    )
    assert r.status_code == 409 and r.get_json()["error"] == "limit_reached"
    assert "hex" in r.get_json()["details"]
    # rewriting a hex already noted is not a new note
    ok(
        api.client.put(
            f"/api/games/{game}/notes/hexes/A2", json={"text": "y"}, headers=api.user("ann")
        )
    )


def test_in_a_game_of_no_club_the_site_arbiters_moderate(api: ApiHelper) -> None:
    game = api.create_game("skirmish", "meeting", {"red": "alice", "blue": "bob"})["id"]
    ok(say(api, game, "alice", "rude words"), 201)
    api.reader(None)  # "referee", a site arbiter who plays no side
    page = ok(chat(api, game, "referee"))
    assert (
        page["role"] == "arbiter"
        and page["may_hide"]
        and page["messages"][0]["text"] == "rude words"
    )
    ok(
        api.client.post(
            f"/api/games/{game}/chat/1/hide",
            json={"reason": "be kind"},
            headers=api.user("referee"),
        )
    )
    assert ok(chat(api, game, "bob"))["messages"][0]["text"] == "hidden by the arbiter: be kind"
    # a club's arbiter rules only the club's games: not this one (not even readable)
    assert chat(api, game, "eve").status_code == 404


def test_a_replay_of_the_log_derives_the_same_chat_notices(
    api: ApiHelper, club_game: dict[str, str], tmp_path: Any, chat_time: ChatTime
) -> None:
    """Who had muted the chat is read from the conversation at each message's version: a new
    notification store replayed from the log tells the same players of the same messages, though
    the mutes have changed since."""
    import shutil
    from dataclasses import replace

    from service.bootstrap import notification_worker
    from service.domain.notifications import KINDS

    game = club_game["game"]
    mute = f"/api/games/{game}/chat/mute"
    ok(say(api, game, "ann", "one"), 201)
    ok(api.client.put(mute, json={"muted": True}, headers=api.user("cat")))
    ok(say(api, game, "ann", "two"), 201)
    ok(api.client.put(mute, json={"muted": False}, headers=api.user("cat")))
    chat_time.later(16)
    ok(say(api, game, "ann", "three"), 201)
    ok(api.client.put(mute, json={"muted": True}, headers=api.user("cat")))  # muted at the end
    api.work()
    svc = api.client.application.extensions["arbiter"]  # type: ignore[attr-defined]
    cat = str(svc.users.by_name("cat").id)
    first = ok(api.client.get("/api/me/notifications", headers=api.user("cat")))["notifications"]
    told = [(n["id"], n["text"]) for n in first if n["kind"] == "chat"]
    assert len(told) == 2  # "one" and "three"
    folder = tmp_path / "replay"
    folder.mkdir()
    shutil.copy(svc.config.sqlite_file, folder / "arbiter.sqlite")
    config = replace(svc.config, sqlite_path=folder / "arbiter.sqlite")
    replayed = notification_worker(config, svc.store, names=svc.users.username)
    replayed.process.catch_up()
    book = replayed.process.views["notices"].view
    again = [(n["id"], n["text"]) for n in book.page(cat, KINDS, limit=1000) if n["kind"] == "chat"]
    replayed.process.close()
    assert sorted(again) == sorted(told)


def test_a_live_conversation_tells_a_player_once_not_at_every_line(
    api: ApiHelper, club_game: dict[str, str], chat_time: ChatTime
) -> None:
    """One notice per quiet quarter of an hour: a player told of a message is not told again of
    the next ones within 15 minutes (that notice leads to the chat), nor while they write in it
    themselves; after a quiet quarter of an hour they are told again."""
    game = club_game["game"]

    def told(user: str) -> int:
        api.work()
        found = ok(api.client.get("/api/me/notifications", headers=api.user(user)))
        return len([n for n in found["notifications"] if n["kind"] == "chat"])

    ok(say(api, game, "ann", "shall we start?"), 201)
    assert (told("cat"), told("ann")) == (1, 0)
    for minute in range(1, 6):  # a live exchange: five minutes of back and forth
        chat_time.later(1)
        ok(say(api, game, "cat", f"reply {minute}"), 201)
        ok(say(api, game, "ann", f"answer {minute}"), 201)
    assert (told("cat"), told("ann")) == (1, 0)  # both were in the chat all along
    chat_time.later(10)  # cat wrote 10 minutes ago: still there
    ok(say(api, game, "ann", "your move"), 201)
    assert told("cat") == 1
    chat_time.later(16)  # a quiet quarter of an hour: cat is away
    ok(say(api, game, "ann", "still there?"), 201)
    ok(say(api, game, "ann", "hello?"), 201)
    assert told("cat") == 2  # told once, of the first

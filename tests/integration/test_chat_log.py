"""A game's conversation is covered by the audit like the game (docs/chat-and-notes.md): a chat
message changed, deleted or cut off in the database is caught by ``arbiter audit verify`` (the
game's, and ``--all``), on SQLite and PostgreSQL; the game's own log is untouched by chat.  And the
chat and notes views rebuilt from the log equal the views kept event by event."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import pytest
from click.testing import CliRunner

from service.application.services import Services
from service.bootstrap import build_services
from service.cli import main
from service.config import Config
from service.domain.conversations import conversation_id, notebook_id
from tests.integration.test_audit_tamper import Rows


def talked(svc: Services) -> tuple[UUID, Any, Any]:
    alice = svc.users.register("alice", "correct horse")
    bob = svc.users.register("bob", "battery staple")
    game = svc.games.create(
        system="skirmish", scenario="meeting", sides={"red": "alice", "blue": "bob"}, creator=alice
    )
    svc.chat.post(game.id, alice, "attack at dawn")
    svc.chat.post(game.id, bob, "we shall see")
    svc.chat.post(game.id, alice, "good game")
    return game.id, alice, bob


def audit(config: Config, game: UUID) -> dict[str, Any]:
    fresh = build_services(config)  # a new process's view: no cache
    try:
        return fresh.audit.verify(game)
    finally:
        fresh.close()


def test_a_clean_chat_verifies_and_leaves_the_game_log_alone(store_config: Config) -> None:
    svc = build_services(store_config)
    game, _, _ = talked(svc)
    version = svc.games.get(game).version
    report = svc.audit.verify(game)
    assert report["ok"], report
    chat = report["conversation"]
    assert chat["ok"] and chat["events"] == 4 and chat["seals"] == "checked"
    assert chat["anchor"] == {"checked": True, "head": 4, "log_ends_at": 4}
    assert svc.games.get(game).version == version  # chat is not in the game's rules log
    svc.close()


def test_a_tampered_chat_message_is_caught(
    store_config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    svc = build_services(store_config)
    game, _, _ = talked(svc)
    cid = conversation_id(game)
    svc.close()
    rows = Rows(store_config)
    state = rows.state(cid, 2)
    assert b"attack at dawn" in state
    rows.set_state(cid, 2, state.replace(b"attack at dawn", b"attack at dusk"))
    report = audit(store_config, game)
    assert not report["ok"]
    assert report["conversation"]["first_bad"]["seq"] == 2
    assert "content changed" in report["conversation"]["first_bad"]["reason"]
    assert report["first_bad"]["reason"].startswith("the game's chat, event 2")
    fresh = build_services(store_config)
    summary = fresh.audit.verify_all()  # `arbiter audit verify --all`
    fresh.close()
    assert not summary["ok"] and summary["failed"][0]["game"] == str(game)
    assert summary["heads_without_a_game"] == []  # the conversation's head is its game's
    if store_config.store == "sqlite":  # the command itself, on the file
        monkeypatch.setenv("ARBITER_VAR", str(store_config.var_dir))
        monkeypatch.setenv("ARBITER_SECRET_KEY", store_config.secret_key)
        monkeypatch.setenv("ARBITER_PLUGINS", "tests.fixtures.skirmish")
        result = CliRunner().invoke(main, ["audit", "verify", str(game)])
        assert result.exit_code == 1 and "FAILED at event 2: the game's chat" in result.output
        assert CliRunner().invoke(main, ["audit", "verify", "--all"]).exit_code == 1


def test_a_deleted_last_message_is_caught_by_the_anchored_head(store_config: Config) -> None:
    svc = build_services(store_config)
    game, _, _ = talked(svc)
    svc.close()
    Rows(store_config).delete(conversation_id(game), 4)
    chat = audit(store_config, game)["conversation"]
    assert not chat["ok"] and "anchored head is 4" in chat["first_bad"]["reason"]


def test_the_views_rebuilt_from_the_log_equal_the_views_kept_as_it_went(
    store_config: Config,
) -> None:
    svc = build_services(store_config)
    game, alice, bob = talked(svc)
    svc.users.register("zed", "correct horse")
    svc.chat.mute(game, bob, True)
    svc.chat.mute(game, alice, True)
    svc.chat.mute(game, alice, False)
    ref = svc.users.by_name("zed")
    ref.grant("arbiter")
    svc.store.commit(ref)
    svc.chat.hide(game, svc.users.by_name("zed"), 2, "not nice")
    svc.chat.write_notes(game, alice, "plan A")
    svc.chat.note_hex(game, alice, "D5", "here")
    svc.chat.note_hex(game, alice, "D6", "there")
    svc.chat.clear_hex(game, alice, "D5")
    svc.chat.share(game, alice, True)
    svc.chat.write_notes(game, bob, "plan B")
    svc.projections.run()
    chat_view: Any = svc.projections["chat"].view
    notes_view: Any = svc.projections["notes"].view
    cid = str(conversation_id(game))
    books = [str(notebook_id(game, str(u.id))) for u in (alice, bob)]

    def snapshot() -> Any:
        return (
            chat_view.select_messages(cid, 1000, None),
            [chat_view.is_muted(cid, str(u.id)) for u in (alice, bob)],
            [notes_view.notebook(b) for b in books],
            notes_view.shared_of(str(game)),
        )

    kept = snapshot()
    assert kept[0][1]["hidden_reason"] == "not nice" and kept[1] == [False, True]
    assert kept[2][0]["hexes"] == [{"hex": "D6", "text": "there"}] and kept[2][0]["shared"]
    assert [r["text"] for r in kept[3]] == ["plan A"]
    assert svc.projections.rebuild("chat") > 0 and svc.projections.rebuild("notes") > 0
    chat_view = svc.projections["chat"].view
    notes_view = svc.projections["notes"].view
    assert snapshot() == kept
    svc.close()

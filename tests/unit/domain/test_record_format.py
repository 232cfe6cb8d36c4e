"""The game record's line format (service/domain/record.py, docs/game-record.md): what a reader
refuses before any check of what the lines say, each time naming the line."""

from __future__ import annotations

import pytest

from service.domain.record import RecordError, data_line, parse, render

ITEM = {
    "at": "2026-11-28T09:11:06.672693+00:00",
    "game": "563acbf4-4ecf-435c-8786-c31969635a21",
    "hash": "ab" * 32,
    "kind": "Game.Created",
    "payload": {"system": "merida", "name": "Gernika \u00e9"},
    "prev_hash": "0" * 64,
    "retracted": False,
    "seq": 1,
    "type": "GameCreated",
}
HEAD = {"game": ITEM["game"], "version": 1, "hash": ITEM["hash"], "mac": "secret", "at": "x"}


def record() -> list[str]:
    headers = {"Format": "arbiter-game-record 1", "System": "merida", "Events": 1}
    text = "".join(render(headers, [dict(ITEM, text="words", seal="s")], HEAD, lambda i: i["text"]))
    return text.split("\n")


def refused(lines: list[str]) -> RecordError:
    with pytest.raises(RecordError) as caught:
        parse("\n".join(lines))
    return caught.value


def test_a_record_reads_back_what_it_wrote_less_words_seal_and_signature() -> None:
    lines = record()
    assert lines[0] == '[Format "arbiter-game-record 1"]'
    assert "# 1 GameCreated: words" in lines
    assert data_line(ITEM) in lines and "\\u00e9" in data_line(ITEM)
    parsed = parse("\n".join(lines))
    assert parsed.headers["System"] == (2, "merida")
    assert [item for _, item in parsed.events] == [ITEM]
    assert parsed.head == {"game": ITEM["game"], "version": 1, "hash": ITEM["hash"]}
    assert parsed.line_of(1) == parsed.events[0][0] and parsed.line_of(2) == parsed.head_line


@pytest.mark.parametrize(
    ("change", "line", "says"),
    [
        (lambda ls: ['[Format "arbiter-game-record 9"]', *ls[1:]], 1, "format version 9"),
        (lambda ls: ['[Format "pgn 1"]', *ls[1:]], 1, "not an Arbiter game record"),
        (lambda ls: [ls[0], '[Colour "red"]', *ls[1:]], 2, "unknown header [Colour]"),
        (lambda ls: [ls[0], ls[1], *ls[1:]], 3, "given twice"),
        (lambda ls: [ls[0], '[System  "merida"]', *ls[2:]], 2, "not written as a record"),
        (lambda ls: [ls[0], "[System merida]", *ls[2:]], 2, "not JSON"),
        (lambda ls: [*ls[:-2], "[Events 1]", ls[-2], ""], None, "comes after the events"),
        (lambda ls: [x.replace('"seq": 1', '"seq": 2') for x in ls], None, "event 1 was expected"),
        (
            lambda ls: [x.replace(", ", ",  ", 1) if x.startswith('{"at') else x for x in ls],
            None,
            "not written as a record",
        ),
        (lambda ls: [x.replace("T09", " 09") for x in ls], None, "'at' is not a time"),
        (lambda ls: [x.replace('"retracted"', '"retracte"') for x in ls], None, "unknown"),
        (lambda ls: [*ls[:-1], ls[-2], ""], None, "a line after the head"),
        (lambda ls: [x + "\r" if x.startswith("[System") else x for x in ls], 2, "carriage"),
        (lambda ls: [*ls[:3], "move r2 to D6", *ls[3:]], 4, "neither a header"),
    ],
)
def test_a_malformed_line_is_refused_naming_it(change, line, says) -> None:  # type: ignore[no-untyped-def]
    lines = change(record())
    error = refused(lines)
    assert says in error.message, error
    if line is None:  # the line that changed
        line = next(
            (i for i, (a, b) in enumerate(zip(lines, record(), strict=False), 1) if a != b),
            len(lines) - 1,
        )
    assert error.line == line, (error, lines)


def test_a_record_cut_before_its_head_or_empty_is_refused() -> None:
    assert "without its head line" in refused(record()[:-2]).message
    assert "empty" in refused([""]).message

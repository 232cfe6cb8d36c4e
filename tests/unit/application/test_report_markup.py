"""The after-action report is one HTML page a club posts elsewhere: every text that comes from a
user (a club scenario's title, a username, a roll's purpose, the log's words) is written as text,
never as markup -- an attack through each field leaves no element behind."""

from __future__ import annotations

from service.application.report import report_html

ATTACK = '<script>alert(1)</script><img src=x onerror="alert(2)">'


def test_every_user_text_in_the_report_is_escaped() -> None:
    review = {
        "game": "g",
        "title": ATTACK,
        "system": "merida",
        "status": "ended",
        "sides": {"nationalist": ATTACK, "republican": "bob"},
        "result": {"winner": "nationalist", "outcome": "win", "level": ATTACK},
        "luck": {
            "nationalist": {
                "words": ATTACK,
                "rolls": [
                    {
                        "turn": 1,
                        "purpose": ATTACK,
                        "die": 6,
                        "outcome": 2.0,
                        "expected": 1.5,
                        "what": ATTACK,
                    }
                ],
            }
        },
        "moments": [{"turn": 1, "text": ATTACK}],
        "chart": {"turns": [], "sides": ["nationalist"]},
        "timeline": [{"seq": 2, "turn": 1, "side": "nationalist", "text": ATTACK}],
    }
    page = report_html(review, None, [(ATTACK, "<svg></svg>")], {"nationalist": "#123456"})
    assert "<script" not in page and "<img" not in page
    assert page.count("&lt;script&gt;alert(1)&lt;/script&gt;") >= 7

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


def test_the_reports_policy_allows_its_own_stylesheet_and_nothing_else() -> None:
    """Issue 51, finding 3: served under the site's ``style-src 'self'`` the report's inline
    stylesheet was refused.  Its own policy names the stylesheet by its hash: no script at all,
    no other style, nothing loaded but data: images."""
    import base64
    import hashlib

    from service.application.report import CSP, CSS

    digest = base64.b64encode(hashlib.sha256(CSS.encode()).digest()).decode()
    rules = dict(part.split(" ", 1) for part in CSP.split("; "))
    assert rules["default-src"] == "'none'" and "script-src" not in rules
    assert rules["style-src"] == f"'sha256-{digest}'" and rules["img-src"] == "data:"
    assert "unsafe" not in CSP

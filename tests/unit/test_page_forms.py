"""Every page form that takes a password says ``method="post"``: a form the browser submits itself
(clicked before its script listens, or with scripts off) then sends a POST the page answers 405,
never a GET with the password in its address, the history and the server's log."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

TEMPLATES = Path(__file__).resolve().parents[2] / "web" / "templates"


class Forms(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.open: dict[str, str | None] | None = None
        self.with_password: list[dict[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "form":
            self.open = dict(attrs)
        elif tag == "input" and dict(attrs).get("type") == "password":
            self.found_in(self.open)

    def found_in(self, form: dict[str, str | None] | None) -> None:
        if form is not None and form not in self.with_password:
            self.with_password.append(form)

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self.open = None


def password_forms() -> list[tuple[str, dict[str, str | None]]]:
    found = []
    for path in sorted(TEMPLATES.rglob("*.html")):
        parser = Forms()
        parser.feed(path.read_text())
        found += [(path.name, form) for form in parser.with_password]
    return found


def test_the_forms_that_take_a_password_are_found() -> None:
    names = {(page, form.get("id")) for page, form in password_forms()}
    assert ("settings.html", "password-form") in names and ("home.html", "signin-form") in names


def test_every_form_that_takes_a_password_posts() -> None:
    for page, form in password_forms():
        assert (form.get("method") or "").lower() == "post", f"{page} #{form.get('id')} would GET"

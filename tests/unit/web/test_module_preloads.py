"""A page asks for its script's every module at once (issue 51, finding 13): the modulepreload
links name the whole static import graph of the page's script, read from the files, and a module
the browser would fetch is never left out."""

from __future__ import annotations

import re
from pathlib import Path

from flask import Flask

from web.modules import imports_of, module_script

JS = Path(__file__).resolve().parents[3] / "web" / "static" / "js"


def test_the_closure_follows_imports_across_lines_and_levels(tmp_path: Path) -> None:
    (tmp_path / "page.js").write_text(
        'import { a } from "./a.js";\nimport {\n  b,\n  c,\n} from "./b.js";\n'
        'const later = () => import("./lazy.js");\n'
    )
    (tmp_path / "a.js").write_text('export { x } from "./c.js";\nimport "./side.js";\n')
    (tmp_path / "b.js").write_text('import { a } from "./a.js";\nimport { p } from "./page.js";\n')
    (tmp_path / "c.js").write_text("export const x = 1;\n")
    (tmp_path / "side.js").write_text("")
    assert imports_of(tmp_path, "page.js") == ("a.js", "b.js", "c.js", "side.js")


def test_the_game_page_preloads_every_module_its_script_imports() -> None:
    # every sibling module named by a static import anywhere in the graph is preloaded
    closure = set(imports_of(JS, "game.js"))
    for name in [*closure, "game.js"]:
        text = (JS / name).read_text(encoding="utf-8")
        for found in re.findall(r'from\s+"\./([\w.-]+\.js)"', text):
            assert found == "game.js" or found in closure, (name, found)
    assert {"board.js", "zoom.js", "api.js", "dom.js"} <= closure
    app = Flask(__name__)
    with app.test_request_context():
        tag = str(module_script(JS, "/static/js", "game.js"))
    links = re.findall(r'<link rel="modulepreload" href="/static/js/([\w.-]+\.js)">', tag)
    assert set(links) == closure and len(links) == len(closure)
    assert tag.endswith('<script type="module" src="/static/js/game.js"></script>')

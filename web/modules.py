"""A page's script and every module it imports, asked for at once.

A module script's imports are found only once it has arrived, and theirs once they have: the game
page's scripts came in five rounds one after another before its code could start.  A page names
its script with ``module_script("game.js")``, which writes the script tag and a
``<link rel="modulepreload">`` for each module it imports, directly or not, so the browser asks for
them all together.  The imports are read from the files themselves (static ``import … from
"./x.js"`` lines; a dynamic ``import()`` is left to load when it is needed)."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from markupsafe import Markup, escape

#: a static import or re-export of a sibling module
IMPORT = re.compile(r'^\s*(?:import|export)\b[^;]*?\bfrom\s+"\./([\w.-]+\.js)"', re.M)
BARE = re.compile(r'^\s*import\s+"\./([\w.-]+\.js)"', re.M)


@cache
def imports_of(folder: Path, entry: str) -> tuple[str, ...]:
    """The modules ``entry`` (a file name in ``folder``) imports, directly or not, in the order
    they are first met; not ``entry`` itself."""
    seen: dict[str, None] = {}
    todo = [entry]
    while todo:
        name = todo.pop(0)
        path = folder / name
        if not path.is_file():
            continue
        text = path.read_text(encoding="utf-8")
        for found in IMPORT.findall(text) + BARE.findall(text):
            if found != entry and found not in seen:
                seen[found] = None
                todo.append(found)
    return tuple(seen)


def module_script(folder: Path, url: str, entry: str) -> Markup:
    """The script tag of ``entry`` with a modulepreload link for each module it imports; ``url``
    is the folder's address (``/static/js``)."""
    links = [
        f'<link rel="modulepreload" href="{escape(url)}/{escape(name)}">'
        for name in imports_of(folder, entry)
    ]
    script = f'<script type="module" src="{escape(url)}/{escape(entry)}"></script>'
    return Markup("\n  ".join([*links, script]))

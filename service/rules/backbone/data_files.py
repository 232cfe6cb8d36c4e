"""The Backbone data files (tables, costs, scenario facts), read once and shared read-only."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).parent / "data"


@cache
def load(name: str) -> Any:
    """The parsed JSON of ``data/<name>.json``.  Callers must not mutate it."""
    with open(DATA_DIR / f"{name}.json", encoding="utf-8") as handle:
        return json.load(handle)

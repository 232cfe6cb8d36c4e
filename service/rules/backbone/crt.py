"""The Combat Results Table (16.6, with the errata) and its results."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from service.rules.backbone.data_files import load
from service.rules.kernel.tables import ResultTable

COLUMNS: tuple[str, ...] = tuple(load("crt")["columns"])
#: the kernel table; the row printed "< 0" is row 0 (a modified roll of 0 or less)
TABLE = ResultTable(
    "crt",
    COLUMNS,
    {0 if row["roll"] == "<0" else int(row["roll"]): row["results"] for row in load("crt")["rows"]},
)


def crt_table() -> dict[str, Any]:
    """The table as the API sends it: columns and rows, results spelled as printed after the errata."""
    data = load("crt")
    return {"columns": list(data["columns"]), "rows": copy.deepcopy(data["rows"])}


def row_for(modified_roll: int) -> int:
    """The row a modified roll reads: 0 or less is the '< 0' row, above 8 is row 8 (16.6)."""
    return TABLE.clamp(modified_roll)


def lookup(column: str, modified_roll: int) -> str:
    return TABLE.lookup(column, modified_roll).result


@dataclass(frozen=True)
class CombatResult:
    """A CRT cell: steps lost by the attacker and the defender, and whether the defender retreats."""

    text: str
    attacker_steps: int
    defender_steps: int
    retreat: bool

    @classmethod
    def parse(cls, text: str) -> CombatResult:
        attacker, defender = text.split("/")
        retreat = defender.endswith("R")
        defender = defender.removesuffix("R")
        return cls(
            text=text,
            attacker_steps=0 if attacker == "-" else int(attacker),
            defender_steps=0 if defender == "-" else int(defender),
            retreat=retreat,
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "attacker_steps": self.attacker_steps,
            "defender_steps": self.defender_steps,
            "retreat": self.retreat,
        }

"""Result tables: columns x die rolls, looked up with a modified roll clamped to the table."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Lookup:
    column: str
    roll: int  # the die as rolled
    modifier: int
    modified: int  # roll + modifier
    used: int  # the modified roll clamped to the table's rows
    result: str

    @property
    def clamped(self) -> bool:
        return self.used != self.modified

    def as_dict(self) -> dict[str, Any]:
        return {
            "column": self.column,
            "roll": self.roll,
            "modifier": self.modifier,
            "modified": self.modified,
            "used": self.used,
            "result": self.result,
        }


class ResultTable:
    """``rows`` maps each roll (a contiguous range, e.g. 1..6 or 0..7) to one result per column."""

    def __init__(
        self, name: str, columns: Sequence[str], rows: Mapping[int, Sequence[str]]
    ) -> None:
        if not rows:
            raise ValueError(f"table {name} has no rows")
        self.name = name
        self.columns = tuple(columns)
        self.min_roll = min(rows)
        self.max_roll = max(rows)
        missing = [r for r in range(self.min_roll, self.max_roll + 1) if r not in rows]
        if missing:
            raise ValueError(f"table {name} lacks rows {missing}")
        for roll, results in rows.items():
            if len(results) != len(self.columns):
                raise ValueError(
                    f"table {name} row {roll} has {len(results)} results for "
                    f"{len(self.columns)} columns"
                )
        self.rows = {roll: tuple(results) for roll, results in sorted(rows.items())}
        self._index = {column: i for i, column in enumerate(self.columns)}

    def clamp(self, roll: int) -> int:
        return min(max(roll, self.min_roll), self.max_roll)

    def lookup(self, column: str, roll: int, modifier: int = 0) -> Lookup:
        if column not in self._index:
            raise KeyError(f"table {self.name} has no column {column!r}")
        modified = roll + modifier
        used = self.clamp(modified)
        return Lookup(column, roll, modifier, modified, used, self.rows[used][self._index[column]])

    def to_dict(self) -> dict[str, Any]:
        """``{"columns": [...], "rows": [{"roll": r, "results": [...]}, ...]}``."""
        return {
            "columns": list(self.columns),
            "rows": [{"roll": roll, "results": list(res)} for roll, res in self.rows.items()],
        }

    @classmethod
    def from_dict(cls, name: str, data: Mapping[str, Any]) -> ResultTable:
        return cls(name, data["columns"], {row["roll"]: row["results"] for row in data["rows"]})

"""Hex label systems: parse a printed hex label to internal offset coordinates and back.

Internal coordinates are ``(col, row)`` integers equal to the numbers printed on the map, so that a
grid's offset parity ("odd columns are shifted") refers to the printed numbering.

* ``letter-number``: the row is letters, the column a number: ``J7`` is column 7, row 10;
  rows run A..Z then AA..AZ, BA.. (spreadsheet style, ``AD25`` is column 25, row 30).
* ``four-digit``: column then row, two digits each: ``1404`` is column 14, row 4
  (``digits`` may widen each part, e.g. 3 for ``014004``).
* ``column,row``: ``6,17`` is column 6, row 17.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod

Coord = tuple[int, int]


class CoordinateError(ValueError):
    """A label that does not parse in a coordinate system."""


class CoordinateSystem(ABC):
    name: str = ""

    @abstractmethod
    def parse(self, label: str) -> Coord:
        """``(col, row)`` of a label; raises :class:`CoordinateError`."""

    @abstractmethod
    def format(self, col: int, row: int) -> str:
        """The label of ``(col, row)``; raises :class:`CoordinateError` if it has none."""

    def is_label(self, label: object) -> bool:
        if not isinstance(label, str):
            return False
        try:
            self.parse(label)
        except CoordinateError:
            return False
        return True

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


def letters_to_number(letters: str) -> int:
    """``A`` -> 1, ``Z`` -> 26, ``AA`` -> 27, ``AD`` -> 30 (bijective base 26)."""
    number = 0
    for char in letters:
        number = number * 26 + (ord(char) - ord("A") + 1)
    return number


def number_to_letters(number: int) -> str:
    if number < 1:
        raise CoordinateError(f"no letters for row {number}")
    letters = ""
    while number:
        number, rest = divmod(number - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return letters


class LetterNumber(CoordinateSystem):
    name = "letter-number"
    _pattern = re.compile(r"([A-Z]{1,3})([0-9]{1,3})")

    def parse(self, label: str) -> Coord:
        match = self._pattern.fullmatch(label.strip().upper()) if isinstance(label, str) else None
        if match is None:
            raise CoordinateError(f"{label!r} is not a letter-number hex label (like J7 or AD25)")
        col = int(match.group(2))
        return col, letters_to_number(match.group(1))

    def format(self, col: int, row: int) -> str:
        if col < 0:
            raise CoordinateError(f"no letter-number label for column {col}")
        return f"{number_to_letters(row)}{col}"


class FourDigit(CoordinateSystem):
    name = "four-digit"

    def __init__(self, digits: int = 2) -> None:
        self.digits = digits
        self._pattern = re.compile(rf"([0-9]{{{digits}}})([0-9]{{{digits}}})")

    def parse(self, label: str) -> Coord:
        match = self._pattern.fullmatch(label.strip()) if isinstance(label, str) else None
        if match is None:
            raise CoordinateError(
                f"{label!r} is not a {2 * self.digits}-digit hex label (column then row, like 1404)"
            )
        return int(match.group(1)), int(match.group(2))

    def format(self, col: int, row: int) -> str:
        limit = 10**self.digits
        if not (0 <= col < limit and 0 <= row < limit):
            raise CoordinateError(f"no {2 * self.digits}-digit label for ({col}, {row})")
        return f"{col:0{self.digits}d}{row:0{self.digits}d}"


class ColumnRow(CoordinateSystem):
    name = "column,row"
    _pattern = re.compile(r"(-?[0-9]+)\s*,\s*(-?[0-9]+)")

    def parse(self, label: str) -> Coord:
        match = self._pattern.fullmatch(label.strip()) if isinstance(label, str) else None
        if match is None:
            raise CoordinateError(f"{label!r} is not a column,row hex label (like 6,17)")
        return int(match.group(1)), int(match.group(2))

    def format(self, col: int, row: int) -> str:
        return f"{col},{row}"


_SYSTEMS: dict[str, CoordinateSystem] = {
    system.name: system for system in (LetterNumber(), FourDigit(), ColumnRow())
}

COORDINATE_SYSTEMS: tuple[str, ...] = tuple(_SYSTEMS)


def get_coordinate_system(name: str) -> CoordinateSystem:
    try:
        return _SYSTEMS[name]
    except KeyError:
        known = ", ".join(COORDINATE_SYSTEMS)
        raise CoordinateError(f"unknown coordinate system {name!r} (known: {known})") from None

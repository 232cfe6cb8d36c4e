"""One action vocabulary for every game: what a side may send now, and what it may not yet.

``GET /api/games/<id>/actions`` answers, for every game alike::

    {"actions": [Template...], "blocked": [Blocked...]}

A :class:`Template` is ``{"type", "label", "fixed": {field: value}, "choose": {field: choice},
"kinds": {field: kind}}``.  A command is the template's ``type`` and ``fixed`` fields plus one pick
per ``choose`` field:

* ``{"one_of": [v...], "labels": [str...]}``: pick one value; every option is legal on its own;
* ``{"some_of": [v...], "labels": [...], "min": n, "max": m}``: pick a list of ``n`` to ``m`` of
  the values (a subset may still be refused with a 422 citing the rule).

``kinds`` says what each field designates (``unit``, ``units``, ``hex``, ``path``, ``point``,
``text``, ``number``, ``flag``, ``choice``), from the command's declaration
(:mod:`service.rules.declare`), so a client draws a template on its board without knowing the game:
a ``hex`` field is a hex to click, a ``path`` option's last hex is its destination, ``unit(s)`` are
counters to select.

A :class:`Blocked` entry is what a player would look for but the rules refuse now (End phase while a
unit must still move): it is shown disabled with the reason and the rule, never sent.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Choice:
    """One field left to the player: ``one_of`` (pick one) or ``some_of`` (pick min..max)."""

    options: tuple[Any, ...]
    labels: tuple[str, ...]
    many: bool = False
    min: int = 1
    max: int = 1

    def as_dict(self, kind: str | None = None, compact: bool = False) -> dict[str, Any]:
        """The choice on the wire.  ``compact`` and a ``path`` ``one_of`` whose options form a
        tree (every option's path less its last hex is an option too, all from one hex): the
        tree form ``{"paths": {"tree", "named"}}`` (:func:`path_tree`) instead of every path."""
        if compact and kind == "path" and not self.many:
            tree = path_tree(self.options, self.labels)
            if tree is not None:
                return {"paths": tree}
        out: dict[str, Any] = {
            ("some_of" if self.many else "one_of"): list(self.options),
            "labels": list(self.labels),
        }
        if self.many:
            out["min"], out["max"] = self.min, self.max
        return out


#: characters a hex in a path tree may not hold: they write the tree
_TREE_MARKS = frozenset(" ()~")


def path_tree(options: Sequence[Any], labels: Sequence[str]) -> dict[str, Any] | None:
    """Paths from one hex that form a tree, written once each: ``{"tree": "A1(B1(C1 C2) ~B2(C3))",
    "named": {hex: label}}`` -- every path from the first hex to each other hex of the tree is an
    option, in the tree's order (depth first), except to a hex written ``~hex`` (one a path goes
    through but none ends in), each labelled ``named[its last hex]``, else by that hex.  A few
    bytes a destination where the list repeats every path from its start (Merida's strategic
    moves: 600 destinations of up to 20 hexes).  None when the options are not such a tree (a
    client then reads the list)."""
    if not options or not isinstance(options[0], list) or not options[0]:
        return None
    root = options[0][0]
    ends = _by_end(options, labels, root)
    if ends is None:
        return None
    path_of, named = ends
    tree = _crossed(path_of)
    if tree is None:
        return None
    children, through = tree
    if any(not _writable(h) for h in (root, *path_of)):
        return None
    return {"tree": _written(root, children, through), "named": named}


def _writable(hex_: Any) -> bool:
    return isinstance(hex_, str) and bool(hex_) and _TREE_MARKS.isdisjoint(hex_)


def _by_end(
    options: Sequence[Any], labels: Sequence[str], root: Any
) -> tuple[dict[Any, list[Any]], dict[str, str]] | None:
    """Each option by the hex it ends in, and the labels that are not that hex; None when an
    option does not start at ``root`` or two end at one hex."""
    path_of: dict[Any, list[Any]] = {}
    named: dict[str, str] = {}
    for path, label in zip(options, labels, strict=True):
        if not isinstance(path, list) or len(path) < 2 or path[0] != root:
            return None
        end = path[-1]
        if end in path_of or end == root:
            return None  # two options end at one hex: a label by hex could not tell them apart
        path_of[end] = path
        if label != end:
            named[end] = label
    return path_of, named


def _crossed(path_of: dict[Any, list[Any]]) -> tuple[dict[Any, list[Any]], set[Any]] | None:
    """Each hex's children, and the hexes a path crosses where no path ends (added to
    ``path_of``), found walking up from each path to a hex already known; None when a hex is
    reached two ways."""
    through: set[Any] = set()
    children: dict[Any, list[Any]] = {}
    for path in list(path_of.values()):
        node = path
        while len(node) > 1:
            parent = node[:-1]
            children.setdefault(parent[-1], []).append(node[-1])
            known = path_of.get(parent[-1])
            if len(parent) == 1 or known is not None:
                if known is not None and known != parent:
                    return None  # a hex reached two ways: no tree
                break
            path_of[parent[-1]] = parent
            through.add(parent[-1])
            node = parent
    return children, through


def _written(root: str, children: dict[Any, list[Any]], through: set[Any]) -> str:
    """The tree depth first, children in hex order (the same tree from every server), crossed
    hexes marked ``~``; without recursion (a path may be long)."""
    parts: list[str] = []
    stack: list[tuple[str, bool]] = [(root, True)]  # (a hex to write, or a mark to write)
    while stack:
        item, is_hex = stack.pop()
        if not is_hex:
            parts.append(item)
            continue
        parts.append(("~" if item in through else "") + item)
        kids = sorted(children.get(item, ()))
        if kids:
            stack.append((")", False))
            for i, kid in enumerate(reversed(kids)):
                stack.append((kid, True))
                if i < len(kids) - 1:
                    stack.append((" ", False))
            stack.append(("(", False))
    return "".join(parts)


def one_of(options: Sequence[Any], labels: Sequence[str] | None = None) -> Choice:
    """Pick one of ``options``; each is legal on its own.  ``labels`` in printed names."""
    opts = tuple(options)
    return Choice(opts, _labels(opts, labels))


def some_of(
    options: Sequence[Any],
    labels: Sequence[str] | None = None,
    *,
    min: int = 1,
    max: int | None = None,
) -> Choice:
    """Pick ``min`` to ``max`` (default: all) of ``options``."""
    opts = tuple(options)
    top = len(opts) if max is None else max
    return Choice(opts, _labels(opts, labels), many=True, min=min, max=top)


def _labels(options: tuple[Any, ...], labels: Sequence[str] | None) -> tuple[str, ...]:
    if labels is None:
        return tuple(
            str(o) if not isinstance(o, list) else " - ".join(map(str, o)) for o in options
        )
    if len(labels) != len(options):
        raise ValueError(f"{len(labels)} labels for {len(options)} options")
    return tuple(labels)


@dataclass(frozen=True)
class Template:
    type: str
    label: str
    fixed: dict[str, Any] = field(default_factory=dict)
    choose: dict[str, Choice] = field(default_factory=dict)
    kinds: dict[str, str] = field(default_factory=dict)

    def as_dict(self, compact: bool = False) -> dict[str, Any]:
        return {
            "type": self.type,
            "label": self.label,
            "fixed": dict(self.fixed),
            "choose": {k: c.as_dict(self.kinds.get(k), compact) for k, c in self.choose.items()},
            "kinds": dict(self.kinds),
        }

    def command(self, **picks: Any) -> dict[str, Any]:
        """The command this template makes with ``picks`` (a value per ``choose`` field; a field not
        given takes the first option, or the first ``min`` options of a ``some_of``)."""
        out: dict[str, Any] = {"type": self.type, **self.fixed}
        for name, choice in self.choose.items():
            if name in picks:
                out[name] = picks[name]
            elif choice.many:
                out[name] = list(choice.options[: max(choice.min, 1)])
            else:
                out[name] = choice.options[0]
        return out

    def commands(self) -> list[dict[str, Any]]:
        """Every command with one option per ``one_of`` field (``some_of`` fields take all options up
        to ``max``): what a test or the fuzzer may send, each legal on its own."""
        out = [{"type": self.type, **self.fixed}]
        for name, choice in self.choose.items():
            if choice.many:
                out = [{**c, name: list(choice.options[: choice.max])} for c in out]
            else:
                out = [{**c, name: option} for c in out for option in choice.options]
        return out


@dataclass(frozen=True)
class Blocked:
    type: str
    label: str
    reason: str
    rule: str

    def as_dict(self) -> dict[str, Any]:
        return {"type": self.type, "label": self.label, "reason": self.reason, "rule": self.rule}


@dataclass
class Actions:
    """What one side may do now: templates to send, and refusals to show disabled."""

    templates: list[Template] = field(default_factory=list)
    blocked: list[Blocked] = field(default_factory=list)

    def add(self, template: Template) -> None:
        self.templates.append(template)

    def block(self, type: str, label: str, reason: str, rule: str) -> None:
        self.blocked.append(Blocked(type, label, reason, rule))

    def of_type(self, type: str) -> list[Template]:
        return [t for t in self.templates if t.type == type]

    def types(self) -> list[str]:
        return [t.type for t in self.templates]

    def as_dict(self, compact: bool = False) -> dict[str, Any]:
        """``compact``: path choices as trees where they are (:func:`path_tree`)."""
        return {
            "actions": [t.as_dict(compact) for t in self.templates],
            "blocked": [b.as_dict() for b in self.blocked],
        }

    def __bool__(self) -> bool:
        return bool(self.templates)

    def __len__(self) -> int:
        return len(self.templates)

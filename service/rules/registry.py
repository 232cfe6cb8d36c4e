"""The registry of rules systems: the shipped ones plus plug-ins named in ``ARBITER_PLUGINS``.

A plug-in is a module path (``tests.fixtures.skirmish``) whose module has a ``SYSTEM`` attribute
(a :class:`~service.rules.base.RulesSystem` instance) or a ``register(registry)`` function.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Iterator

from service.rules.base import RulesSystem

# Shipped systems: (name, "module:attribute").  A module that is not yet written is simply absent.
SHIPPED: tuple[tuple[str, str], ...] = (
    ("merida", "service.rules.merida:SYSTEM"),
    ("backbone", "service.rules.backbone:SYSTEM"),
    ("bizkaya", "service.rules.bizkaya:SYSTEM"),
    ("barcelona", "service.rules.barcelona:SYSTEM"),
)


class UnknownSystem(KeyError):
    pass


class Registry:
    def __init__(self) -> None:
        self._systems: dict[str, RulesSystem] = {}

    def register(self, system: RulesSystem) -> None:
        if not system.name:
            raise ValueError(f"{system!r} has no name")
        self._systems[system.name] = system

    def get(self, name: str) -> RulesSystem:
        try:
            return self._systems[name]
        except KeyError:
            raise UnknownSystem(name) from None

    def __contains__(self, name: object) -> bool:
        return name in self._systems

    def __iter__(self) -> Iterator[RulesSystem]:
        return iter(sorted(self._systems.values(), key=lambda s: s.name))

    def names(self) -> list[str]:
        return sorted(self._systems)

    def load_plugin(self, path: str) -> None:
        module = importlib.import_module(path)
        if hasattr(module, "register"):
            module.register(self)
        elif hasattr(module, "SYSTEM"):
            self.register(module.SYSTEM)
        else:
            raise ValueError(f"plug-in {path} has neither SYSTEM nor register()")


def build_registry(plugins: Iterable[str] = ()) -> Registry:
    registry = Registry()
    for _name, target in SHIPPED:
        module_path, attr = target.split(":")
        try:
            module = importlib.import_module(module_path)
        except ModuleNotFoundError as exc:
            if exc.name is not None and module_path.startswith(exc.name):
                continue  # not written yet
            raise
        if getattr(module, "__file__", None) is None:
            continue  # a namespace package: the module's package is not written yet
        registry.register(getattr(module, attr))
    for path in plugins:
        if path.strip():
            registry.load_plugin(path.strip())
    return registry

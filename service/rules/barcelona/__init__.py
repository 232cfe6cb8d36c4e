"""Back to Barcelona (a one-page quick reference for Spanish Civil War miniatures), the rules module:
``SYSTEM`` is registered as ``barcelona``.  No hexes: units stand on a table measured in inches."""

from service.rules.barcelona.system import BarcelonaRules

SYSTEM = BarcelonaRules()

__all__ = ["SYSTEM", "BarcelonaRules"]

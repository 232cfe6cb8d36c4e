"""Closing the Merida Pocket (Alea no. 18), the rules module: ``SYSTEM`` is registered as ``merida``."""

from service.rules.merida.system import MeridaRules

SYSTEM = MeridaRules()

__all__ = ["SYSTEM", "MeridaRules"]

"""Bizkaya: the Spring 1937 Nationalist offensive (Alea), the rules module: ``SYSTEM`` is
registered as ``bizkaya``."""

from service.rules.bizkaya.system import BizkayaRules

SYSTEM = BizkayaRules()

__all__ = ["SYSTEM", "BizkayaRules"]

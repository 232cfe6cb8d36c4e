"""Operation Backbone (Alea, 2021): the rules module.  ``SYSTEM`` is registered as ``backbone``."""

from service.rules.backbone.system import BackboneRules

SYSTEM = BackboneRules()

__all__ = ["SYSTEM", "BackboneRules"]

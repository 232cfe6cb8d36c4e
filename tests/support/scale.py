"""How much longer ``make fuzz`` runs what ``make test`` proves at a smaller size."""

from __future__ import annotations

import os


def fuzz_scale() -> float:
    """``ARBITER_FUZZ_SCALE``: 1 in ``make test``, 10 in ``make fuzz`` (the Makefile)."""
    return float(os.environ.get("ARBITER_FUZZ_SCALE", "1"))

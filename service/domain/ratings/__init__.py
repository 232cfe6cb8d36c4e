"""Rating systems of ladders (pure Python): Glicko-2, rating periods, per-scenario side adjustment."""

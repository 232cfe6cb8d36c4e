"""The pure hex kernel: coordinates, grids, map data and the generic procedures of hex wargames.

Everything here is game-agnostic and pure: plain values in, plain values out.  A rules module
supplies the game's judgements as predicates and cost functions.
"""

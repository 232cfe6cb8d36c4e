"""The players' vocabulary: each group lists forms that mean the same thing, matched both ways.

A query naming any form also searches for every other form of its group (``ZOC`` finds "zone of
control" and "zone of control" finds ``ZOC``).  Forms are matched after the index's analysis
(lower case, stop words dropped, Snowball stems), so plurals and inflections match too.
"""

from __future__ import annotations

SYNONYM_GROUPS: tuple[tuple[str, ...], ...] = (
    ("zoc", "zone of control", "zdc"),
    ("mp", "movement point", "movement allowance", "cdm"),
    ("rp", "replacement point"),
    ("arp", "air replacement point"),
    ("crt", "combat results table", "combat table", "trc"),
    ("drm", "md", "die roll modifier", "dice modifier", "die modifier"),
    ("ob", "oob", "order of battle"),
    ("insurgent", "nationalist", "rebel"),
    ("loyalist", "republican"),
    ("c/m", "combat motorized", "motorized"),
    ("ngs", "naval gunfire support"),
    ("cd", "coastal defense", "coast defense", "coastal defence"),
    ("vp", "victory point"),
    ("hq", "headquarters", "cg"),
    ("nt", "naval transport"),
    ("ng", "naval group"),
    ("re", "regimental equivalent"),
    ("das", "defensive air support"),
    ("gs", "ground support"),
    ("aa", "anti aircraft", "antiaircraft", "flak"),
    ("msop", "sequence of play"),
    ("tec", "terrain effects chart"),
    ("oos", "unsupplied"),  # "out of supply" would stem to "suppli" alone (stop words)
    ("arty", "artillery"),
    ("afv", "tank", "armour", "armor"),
    ("dz", "danger zone"),
    ("rmy", "rail marshalling yard"),
    ("eliminated", "destroyed", "killed"),
    ("retreat", "withdrawal", "fall back"),
)

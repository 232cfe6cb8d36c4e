"""Topics: what an entry is about, from its Europa rule numbers and its words.

The Europa rule-number map follows the FWtBT FAQ's own headings (``Rule 5 -- Reduced Zones of
Control``, ``Rule 12A/B -- Tracing Supply Lines``, ``Rule 28A -- Naval Reaction Movement`` ...).
"""

from __future__ import annotations

import re

TOPICS = (
    "movement", "zoc", "stacking", "combat", "retreat", "advance", "supply", "command", "air",
    "naval", "weather", "reinforcement", "replacement", "victory", "terrain", "rail",
    "construction", "morale", "artillery", "setup", "amphibious", "isolation", "events",
)  # fmt: skip

# Europa rule-number prefix -> topics (longest prefix wins; every matching prefix adds its topics)
EUROPA_TOPICS: dict[str, tuple[str, ...]] = {
    "3E": ("terrain",), "3F": ("isolation", "supply"), "5": ("zoc",), "6": ("movement",),
    "7": ("movement", "rail"), "9": ("combat",), "9F": ("retreat", "advance"),
    "12": ("supply",), "13": ("combat",), "14": ("construction",),
    **{str(n): ("air",) for n in range(16, 26)}, "25D": ("air", "replacement"),
    **{str(n): ("naval",) for n in range(26, 36)}, "32": ("naval", "amphibious"),
    "36": ("weather",), "36C": ("weather", "naval"), "38": ("events",), "40": ("reinforcement",),
    "40B": ("replacement",), "41": ("setup",), "42": ("victory",), "43": ("setup",),
}  # fmt: skip

_WORDS: dict[str, str] = {
    "movement": r"\bmov(e|es|ed|ing|ement)\b|movement points?|\bMPs?\b|strategic movement|march",
    "zoc": r"zones? of control|\bZo[Cc]s?\b|ZdC",
    "stacking": r"stack(ing|s|ed)?|overstack",
    "combat": r"combat|attack(s|ed|er|ing)?|CRT|odds|battle|overrun|close combat|shooting",
    "retreat": r"retreat(s|ed|ing)?|withdrawals?",
    "advance": r"advance(s|d)?( after combat)?",
    "supply": r"supply|out of supply|\bOoS\b|supplied",
    "command": r"command|leaders?|\bHQs?\b|headquarters|\bCG\b",
    "air": r"\bair\b|aircraft|airbases?|bomb(er|ing)s?|air points?|aviation|ARPs?",
    "naval": r"naval|ships?|\bports?\b|\bNTs?\b|\bNGS?\b|coast(al)? defen[cs]es?|\bCD\b|sea zones?",
    "weather": r"weather|snow|winter|rain(y)?|meteorology|thaw|frozen|freez",
    "reinforcement": r"reinforcements?|arriv(e|al)s?",
    "replacement": r"replacements?|\bRPs?\b|rebuild",
    "victory": r"victory|\bVPs?\b|victory points?",
    "terrain": r"terrain|mountains?|rivers?|swamps?|forest|cities|\bcity\b|towns?|hexsides?",
    "rail": r"\brail|railroad|marshalling yards?|\bRMYs?\b|armored train",
    "construction": r"construct(ion|ed)?|repair|engineers?|fortifications?|trench(es)?|forts?\b",
    "morale": r"morale|demorali[sz]|euphori",
    "artillery": r"artiller(y|ies)|\barty\b|barrages?|\bguns?\b",
    "setup": r"set[- ]?up|deployment|initial deployment|order of battle|\bOBs?\b|\bOoB\b",
    "amphibious": r"amphibious|landings?|beachhead|disembark",
    "isolation": r"isolat(ed|ion)",
    "events": r"\bevents?\b|government|revolt|collapse",
}
_PATTERNS = {t: re.compile(p, re.IGNORECASE) for t, p in _WORDS.items()}


def europa_topics(refs: list[str]) -> list[str]:
    out: list[str] = []
    for ref in refs:
        for prefix, topics in EUROPA_TOPICS.items():
            if _ref_starts(ref, prefix):
                out += [t for t in topics if t not in out]
    return out


def _ref_starts(ref: str, prefix: str) -> bool:
    if not ref.startswith(prefix):
        return False
    rest = ref[len(prefix) :]
    return not rest or not (prefix[-1].isdigit() and rest[0].isdigit())


def word_topics(text: str, min_hits: int = 1) -> list[str]:
    return [t for t, p in _PATTERNS.items() if len(p.findall(text)) >= min_hits]


def topics_for(refs: list[str], title: str, body: str = "") -> list[str]:
    """Topics from rule numbers, words of the title (one mention) and of the body (two mentions)."""
    out = europa_topics(refs)
    for t in word_topics(title) + word_topics(body, min_hits=2):
        if t not in out:
            out.append(t)
    return [t for t in TOPICS if t in out]

"""BERT's uncased tokenizer in plain Python: the basic split (lower case, accents dropped,
punctuation apart) and then WordPiece over ``vocab.txt``, as the packaged MiniLM model was trained
with.  Only ids are needed here (no offsets, no truncation): a query is short, and an entry's text
is averaged token by token, not fed to a model.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping
from functools import lru_cache

UNKNOWN = "[UNK]"
#: a word longer than this is one unknown token (as BERT's tokenizer has it)
MAX_WORD_CHARS = 100


def _is_punctuation(char: str) -> bool:
    code = ord(char)
    # ASCII non-letters and non-digits count as punctuation, as in BERT ("$", "^", "`")
    if 33 <= code <= 47 or 58 <= code <= 64 or 91 <= code <= 96 or 123 <= code <= 126:
        return True
    return unicodedata.category(char).startswith("P")


def _is_cjk(code: int) -> bool:
    return (
        0x4E00 <= code <= 0x9FFF
        or 0x3400 <= code <= 0x4DBF
        or 0x20000 <= code <= 0x2A6DF
        or 0x2A700 <= code <= 0x2CEAF
        or 0xF900 <= code <= 0xFAFF
        or 0x2F800 <= code <= 0x2FA1F
    )


def _cleaned(text: str) -> str:
    """Control characters dropped, white space as spaces, CJK ideographs spaced apart."""
    chars: list[str] = []
    for char in text:
        code = ord(char)
        category = unicodedata.category(char)
        if code in (0, 0xFFFD):
            continue
        if char in "\t\n\r" or category == "Zs":
            chars.append(" ")
        elif category not in ("Cc", "Cf"):
            chars.append(f" {char} " if _is_cjk(code) else char)
    return "".join(chars)


def _apart(word: str) -> list[str]:
    """A word split at its punctuation marks, each mark a word of its own."""
    out: list[str] = []
    current = ""
    for char in word:
        if _is_punctuation(char):
            out += [current, char] if current else [char]
            current = ""
        else:
            current += char
    return out + [current] if current else out


def basic_words(text: str) -> list[str]:
    """Lower-cased words without accents, each punctuation mark a word of its own; control
    characters dropped and CJK ideographs split apart, as BERT's ``BasicTokenizer`` does."""
    words: list[str] = []
    for word in _cleaned(text).lower().split():
        bare = unicodedata.normalize("NFD", word)
        words += _apart("".join(c for c in bare if unicodedata.category(c) != "Mn"))
    return words


class WordPiece:
    """Greedy longest-match WordPiece over a vocabulary (token -> id)."""

    def __init__(self, vocab: Mapping[str, int]) -> None:
        self.vocab = vocab
        self.unknown = vocab[UNKNOWN]
        self._pieces = lru_cache(maxsize=20_000)(self._split)

    def pieces(self, word: str) -> tuple[int, ...]:
        """The ids of one basic word's pieces (the unknown id alone when it cannot be split)."""
        return self._pieces(word)

    def _split(self, word: str) -> tuple[int, ...]:
        if len(word) > MAX_WORD_CHARS:
            return (self.unknown,)
        out: list[int] = []
        start = 0
        while start < len(word):
            end = len(word)
            found = None
            while start < end:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                found = self.vocab.get(piece)
                if found is not None:
                    break
                end -= 1
            if found is None:
                return (self.unknown,)
            out.append(found)
            start = end
        return tuple(out)

    def ids(self, text: str) -> list[int]:
        """The token ids of ``text``, without ``[CLS]``/``[SEP]``."""
        return [i for word in basic_words(text) for i in self.pieces(word)]


def read_vocab(lines: Iterable[str]) -> dict[str, int]:
    """``vocab.txt``: one token a line, its id the line number."""
    return {line.rstrip("\n"): n for n, line in enumerate(lines)}

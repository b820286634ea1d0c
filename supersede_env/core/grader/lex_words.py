"""The word grammar: what a plain word means to the grader, its stem.

Words are compared by stem, so that gold and answer agree on "increased" / "increase" and
"moved" / "move". Spelling variants and abbreviations are folded first ("colour" is "color",
"Wed" is "wednesday"), irregular forms next ("bought" is "buy"), and the rest goes to the Snowball
English stemmer (``snowballstemmer``, pure Python, Porter2).
"""

from __future__ import annotations

import threading
from functools import lru_cache

import snowballstemmer

__all__ = ["AMBIGUOUS_WEEKDAYS", "WEEKDAYS", "stem"]

# Folded before stemming: crude and symmetric, good enough because gold and answer get the same.
_SYNONYMS = {
    "st": "street", "rd": "road", "ave": "avenue", "blvd": "boulevard", "dr": "doctor",
    "mt": "mount", "tv": "television", "favourite": "favorite", "colour": "color",
    "grey": "gray", "theatre": "theater", "centre": "center", "okay": "ok", "&": "and",
    "didn't": "did not",
    # weekday abbreviations ("Mon and Wed"); not "sat" or "sun", which are words
    "mon": "monday", "tue": "tuesday", "tues": "tuesday", "wed": "wednesday", "thu": "thursday",
    "thur": "thursday", "thurs": "thursday", "fri": "friday",
}
# weekday abbreviations that are words too: a weekday only beside another ("Fri, Sat, Sun"; :mod:`.tokens`)
AMBIGUOUS_WEEKDAYS = {"sat": "saturday", "sun": "sunday"}
_IRREGULAR = {
    "children": "child", "men": "man", "women": "woman", "feet": "foot", "teeth": "tooth",
    "mice": "mouse", "people": "person", "bought": "buy", "got": "get", "went": "go",
    "led": "lead", "met": "meet", "ran": "run", "ate": "eat", "drove": "drive", "driven": "drive",
    "kept": "keep", "took": "take", "taken": "take", "made": "make", "read": "read", "saw": "see",
    "seen": "see", "began": "begin", "begun": "begin", "spent": "spend", "sold": "sell",
    "told": "tell", "gave": "give", "given": "give", "found": "find", "left": "leave",
    "won": "win", "lost": "lose", "paid": "pay", "moved": "move", "is": "be", "are": "be",
    "was": "be", "were": "be", "been": "be", "am": "be", "has": "have", "had": "have",
}

_ENGLISH = snowballstemmer.stemmer("english")  # Porter2: "increased" = "increase", "care" != "car"
_STEM_LOCK = threading.Lock()  # a Snowball stemmer object keeps state between calls


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The Snowball (Porter2) stem, after folding spelling variants and irregular forms."""
    word = _SYNONYMS.get(word, word)
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    word = word.removesuffix("'s")
    if len(word) <= 2 or "'" in word:
        return word
    with _STEM_LOCK:
        return _ENGLISH.stemWord(word)


# the weekdays by stem (here, below the lexicon, because the lexer reads them too)
WEEKDAYS = frozenset(stem(d) for d in "monday tuesday wednesday thursday friday saturday sunday".split())

"""The strict reward's abstentions: an abstention is one or more phrases of
:data:`~.abstention.ABSTENTION` (matched on the answer's words joined by single spaces) and otherwise
only words of courtesy, with no value (:mod:`.strict`)."""

from __future__ import annotations

from bisect import bisect_left

from supersede_env.core.grader.abstention import ABSTENTION, ABSTENTION_HINTS
from supersede_env.core.grader.lexicon import COURTESY
from supersede_env.core.grader.tokens import WORD, Token

__all__ = ["abstains", "abstention_cover", "outside_abstention"]


def abstention_cover(tokens: list[Token]) -> tuple[set[int], str | None]:
    """The tokens inside abstention phrases, and the first phrase (None when there is none)."""
    flat = " ".join([t.text for t in tokens if t.kind == WORD])
    covered: set[int] = set()
    if ABSTENTION_HINTS.search(flat) is None or ABSTENTION.search(flat) is None:
        return covered, None  # most answers: no offsets needed
    words = [i for i, t in enumerate(tokens) if t.kind == WORD]
    starts, pos = [], 0
    for i in words:
        starts.append(pos)
        pos += len(tokens[i].text) + 1
    first = None
    for m in ABSTENTION.finditer(flat):
        lo, hi = bisect_left(starts, m.start()), bisect_left(starts, m.end()) - 1
        covered.update(range(words[lo], words[hi] + 1))
        first = first or m.group()
    return covered, first


def outside_abstention(tokens: list[Token], need: list[int], covered: set[int]) -> list[int]:
    return [i for i in need if i not in covered and tokens[i].text not in COURTESY]


def abstains(tokens: list[Token], need: list[int]) -> str | None:
    """The abstention phrase, when ``need`` is abstention phrases and words of courtesy, and no value."""
    covered, first = abstention_cover(tokens)
    return first if first is not None and not outside_abstention(tokens, need, covered) else None

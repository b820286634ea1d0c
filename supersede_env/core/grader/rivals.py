"""Rivals: values the grader was not told about but that compete with the gold.

Each finder below reads one way an answer can put another value beside the gold (another time of
day for a time, another bare count listed beside a count, an item offered with "or", a conjunct, a
name in sequence with the gold, and, when the source named no other candidate, every other name of
a terse reply). :data:`RIVAL_FINDERS` is their ordered list; :func:`find_rivals` runs the ones that
apply and keeps the tightest reading of each place. A rival's role is then given by the same cues as
any other candidate (:mod:`supersede_env.core.grader.roles`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from supersede_env.core.grader.answer import TERSE_REPLY, Answer, Span
from supersede_env.core.grader.conclusion import SHORT_REPLY
from supersede_env.core.grader.gold import Gold
from supersede_env.core.grader.mention import Mention
from supersede_env.core.grader.name_rivals import (
    SEQUENCE_HINT,
    conjunct_rivals,
    disjunction_rivals,
    line_rivals,
    name_rivals,
    offers_alternatives,
    sequence_rivals,
)
from supersede_env.core.grader.value_rivals import (
    closed_class_rivals,
    closed_classes,
    range_rivals,
    value_rivals,
)


@dataclass(frozen=True)
class RivalSearch:
    """What every rival finder reads: the answer, the gold, and the spans of the candidates already
    known (``covered``: the gold's, the superseded values', the decoys'; ``gold_spans``: the gold's)."""

    a: Answer
    gold: Gold
    covered: list[Span]
    gold_spans: list[Span]
    question: frozenset[str]  # the question's word stems
    told: bool  # the source named other candidates (superseded values or decoys)

    @property
    def value_gold(self) -> bool:
        return self.gold.single_value is not None

    @property
    def single_word_gold(self) -> bool:
        """A gold of one thing named by words ("Thrive Market"), not a value or a list."""
        alts = self.gold.alternatives
        return bool(alts) and len(alts[0].parts) == 1 and not self.value_gold and not alts[0].parts[0].keywords

    @property
    def whole_short_reply(self) -> bool:
        """A short reply read whole (no reasoning before it)."""
        return len(self.a.text) <= SHORT_REPLY and len(self.a.source) == len(self.a.text)

    @property
    def terse_and_untold(self) -> bool:
        return not self.told and len(self.a.text) <= TERSE_REPLY

























































@dataclass(frozen=True)
class RivalFinder:
    name: str
    applies: Callable[[RivalSearch], bool]  # a cheap test first: most answers need few finders
    find: Callable[[RivalSearch], list[Mention]]


RIVAL_FINDERS: tuple[RivalFinder, ...] = (
    RivalFinder("another value of the gold's sort", lambda s: s.value_gold, value_rivals),
    RivalFinder("another range of the gold range's sort",
                lambda s: not s.value_gold and s.gold.value_range is not None, range_rivals),
    RivalFinder("another day or month", lambda s: bool(closed_classes(s.gold)[1]), closed_class_rivals),
    RivalFinder("an item offered with the gold ('or', '/', a range)",
                lambda s: bool(s.gold_spans) and offers_alternatives(s), disjunction_rivals),
    RivalFinder("a conjunct of a one-thing gold ('X and Y')",
                lambda s: bool(s.gold_spans) and s.single_word_gold and " and " in s.a.text, conjunct_rivals),
    RivalFinder("a name listed on its own line or after ';'",
                lambda s: bool(s.gold_spans) and s.single_word_gold and any(ch in s.a.text for ch in ";\n/|"),
                line_rivals),
    RivalFinder("a name in sequence with the gold ('X then Y')",
                lambda s: bool(s.gold_spans) and s.whole_short_reply and SEQUENCE_HINT.search(s.a.text) is not None,
                sequence_rivals),
    RivalFinder("another name in a terse reply to a source that named none",
                lambda s: bool(s.gold_spans) and s.whole_short_reply and s.terse_and_untold and not s.value_gold,
                name_rivals),
)


def find_rivals(search: RivalSearch) -> list[Mention]:
    """The rivals of every finder that applies; of readings that overlap, the tightest wins ("Chevy
    Malibu" over the line "Chevy Malibu is outdated")."""
    rivals = [r for finder in RIVAL_FINDERS if finder.applies(search) for r in finder.find(search)]
    taken: set[int] = set()
    out = []
    for r in sorted(rivals, key=lambda r: (r.last - r.first, r.first)):
        if not any(k in taken for k in range(r.first, r.last + 1)):
            taken.update(range(r.first, r.last + 1))
            out.append(r)
    return out

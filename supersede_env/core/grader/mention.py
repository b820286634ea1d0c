"""A mention: one place where the answer names a candidate (the gold, a superseded value, a decoy,
the question's other option or a rival), with the role the answer gives it; and two tests of a
mention's place (a capitalised name, an item standing alone in a list)."""

from __future__ import annotations

from dataclasses import dataclass

from supersede_env.core.grader.answer import Answer
from supersede_env.core.grader.lexicon import SENTENCE_END, SEPARATOR_PUNCT, SEPARATOR_WORDS, SOFT
from supersede_env.core.grader.tokens import LABEL, PUNCT, WORD, Token

ROLES = ("current", "past", "negated", "other", "planned", "hypothetical", "hedged")


OFFERED = frozenset({"current", "hedged", "hypothetical"})  # roles that put a value forward as the answer
RANGE_CUE = "a range"  # the cue of the other end of a range holding the gold ("2-3" for gold 2)


# "planned": a plan or wish ("you'd like a Kia", "thinking about Denver"), never the fact asked about
_PRECEDENCE = {"negated": 0, "past": 1, "other": 2, "planned": 3, "hypothetical": 4, "hedged": 5, "current": 6}


@dataclass(slots=True)
class Mention:
    """One mention of a candidate in the answer, and its role there."""

    text: str  # the candidate as given (gold part, superseded or decoy value) or the rival's words
    kind: str  # gold | stale | decoy | option | rival
    first: int  # token span
    last: int
    part: tuple[int, int] | None = None  # (alternative, part) of the gold
    role: str = "current"
    cue: str = ""  # the words that gave the role (evidence for the verdict's reason)
    marked: str = ""  # "now" / "next" when the answer marks it current or later in a sequence
    tense: str = ""  # "past" / "present": a tense-only mark ("was X", "is X")
    anchor: tuple[int, int] | None = None  # a rival found beside one statement of the gold: that statement
    loose: bool = False  # a keyword match spread over the answer: never contains another mention

    def set_role(self, role: str, cue: str) -> None:
        if _PRECEDENCE[role] < _PRECEDENCE[self.role]:
            self.role, self.cue = role, cue


def is_capitalised_name(a: Answer, i: int, j: int) -> bool:
    surface = a.source[a.tokens[i].start:a.tokens[j].end]
    return surface[:1].isupper() and len(a.source) == len(a.text)


def is_bare_item(tokens: list[Token], i: int, j: int, units: frozenset) -> bool:
    """Do tokens i..j stand alone between list separators ("15; 18", "Maui\\nOahu", "10, 11, 12")?"""
    for step, edge in ((-1, i), (1, j)):
        k = edge + step
        while 0 <= k < len(tokens):
            t = tokens[k]
            if t.kind == PUNCT:
                if t.text in SEPARATOR_PUNCT or t.text in SENTENCE_END or t.text in ("(", ")", "-", ":"):
                    break
                if t.text in ("*", '"', "'"):
                    k += step
                    continue
                return False
            if t.kind == WORD and (t.text in SEPARATOR_WORDS):
                break
            if t.kind == LABEL or (t.kind == WORD and (t.text in SOFT or t.value in units)):
                k += step
                continue
            return False
    return True

"""Where a cue stands and how far it reaches: within its clause and a few content words, across a
parenthesis or a heading colon; the places that keep a cue from a value (an interjection, a clause
of its own, an operand or a bound)."""

from __future__ import annotations

from bisect import bisect_right

from supersede_env.core.grader.answer import Answer
from supersede_env.core.grader.cue_hits import CueHit
from supersede_env.core.grader.lexicon import (
    BOUND_BEFORE,
    CLAUSE_BREAK_PUNCT,
    CLAUSE_BREAK_WORDS,
    CLAUSE_ENDS,
    CLOSING_MARKS,
    CUE_STARTS,
    NEGATION_OPENERS,
    NEXT_CLAUSE,
    OPERATORS,
    SENTENCE_END,
    SEPARATOR_WORDS,
    SET_WORDS,
    SOFT,
    SUBJECT_PRONOUNS,
)
from supersede_env.core.grader.mention import Mention
from supersede_env.core.grader.tokens import LABEL, PUNCT, VALUE_KINDS, WORD, Token

BACK_REACH = 2  # "Denver, previously" / "Denver (previously)": a cue after a value sits right after it


def reaches(tokens: list[Token], lo: int, hi: int, limit: int, *, allow_paren: bool = False,
           allow_colon: bool = False, crossing: frozenset = frozenset()) -> bool:
    """Can a cue reach across tokens lo..hi (exclusive bounds already applied)? Within its clause and
    at most ``limit`` content words; ``allow_paren``: an opening parenthesis right after a mention;
    ``allow_colon``: a heading colon close after the cue ("Old value: Denver", "My best guess: X")."""
    if hi - lo > 3 * limit + 4:
        return False
    words = 0
    for k in range(lo, hi + 1):
        t = tokens[k]
        if t.kind == PUNCT:
            if t.text in crossing:
                continue
            if t.text == ":" and allow_colon and words <= 2:
                words = 0
                allow_colon = False
                continue
            if t.text in CLAUSE_BREAK_PUNCT and not (allow_paren and k == lo and t.text == "("):
                return False
        elif t.kind == WORD:
            if t.text in CLAUSE_BREAK_WORDS and t.text not in crossing:
                return False
            if t.text not in SOFT:
                words += 1
        elif t.kind != LABEL:
            words += 1
        if words > limit:
            return False
    return True


def has_own_subject(tokens: list[Token], hit: CueHit) -> bool:
    """Does a subject pronoun stand right before the cue and a word after it ("you might consider ...")?"""
    before, after = hit.first - 1, hit.last + 1
    return before >= 0 and tokens[before].text in SUBJECT_PRONOUNS and after < len(tokens) and tokens[after].kind == WORD


def ends_fragment(tokens: list[Token], hit: CueHit) -> bool:
    """Does nothing but punctuation follow the cue in its fragment ("X (then)", "X is your brother's, ...")?"""
    nxt = hit.last + 1
    return nxt >= len(tokens) or (tokens[nxt].kind == PUNCT and (tokens[nxt].text in CLAUSE_BREAK_PUNCT
                                                                 or tokens[nxt].text == ","))


def is_interjection(tokens: list[Token], hit: CueHit) -> bool:
    """"No, it's Portland": a "no" or "not" opening a sentence and standing alone denies nothing after it
    ("Portland, NOT." denies what it follows, and so does a reply's last word: "Portland... NOT!")."""
    nxt, before = hit.last + 1, hit.first - 1
    opens = before < 0 or (tokens[before].kind == PUNCT and tokens[before].text in SENTENCE_END)
    alone = nxt >= len(tokens) or (tokens[nxt].kind == PUNCT and tokens[nxt].text in (",", ".", "!", ";", ":", "\n"))
    said_after = any(t.kind != PUNCT for t in tokens[nxt:])  # it opens what follows, not a retraction
    return (opens and alone and (said_after or before < 0) and hit.cue.kind == "neg"
            and hit.cue.words[0] in NEGATION_OPENERS)


def afterthought(a: Answer, hit: CueHit, mentions: list[Mention], by_last: list[int],
                  lasts: list[int]) -> Mention | None:
    """"Portland. Probably." / "47\n\nCould be wrong.": a short sentence that is only a cue speaks of
    the value just before it. The cue must open its sentence, the sentence must hold at most three
    more words (a history cue none: "You used to have Chevy Malibu." speaks of its own object), and
    the value must end the sentence before."""
    tokens = a.tokens
    limit = 0 if hit.cue.kind == "past" else 3
    k = hit.first - 1
    while k >= 0 and tokens[k].kind == WORD and tokens[k].text in SOFT:
        k -= 1
    if k >= 0 and not (tokens[k].kind == PUNCT and tokens[k].text in SENTENCE_END):
        return None
    words, j = 0, hit.last + 1
    while j < len(tokens) and not (tokens[j].kind == PUNCT and tokens[j].text in SENTENCE_END):
        if tokens[j].kind in VALUE_KINDS or (tokens[j].kind == WORD and tokens[j].text not in SOFT):
            words += 1
        if tokens[j].kind == WORD and tokens[j].text in SET_WORDS:
            return None  # "The current one is one of these.": about the set, not the value before
        j += 1
    if words > limit:
        return None
    i = bisect_right(lasts, hit.first - 1) - 1
    if i < 0:
        return None
    before = mentions[by_last[i]]
    # nothing but punctuation between the value and the end of its sentence
    if k < 0 or any(t.kind != PUNCT for t in tokens[before.last + 1:k]):
        return None
    return before


def trails_a_mention(tokens: list[Token], hit: CueHit, lasts: list[int]) -> bool:
    """Does the cue follow a mention (closing marks and one plain word apart: "4 engineers at first")
    and end its clause ("X now, ...", "... at first and ...")?"""
    k = bisect_right(lasts, hit.first - 1) - 1
    if k < 0:
        return False
    between = [t for t in tokens[lasts[k] + 1:hit.first] if not (t.kind == PUNCT and t.text in CLOSING_MARKS)]
    if len(between) > 1 or any(t.kind != WORD or t.text in CUE_STARTS or t.text in SEPARATOR_WORDS for t in between):
        return False
    after = hit.last + 1
    return after >= len(tokens) or (tokens[after].kind == PUNCT and tokens[after].text in CLAUSE_ENDS) or (
        tokens[after].kind == WORD and tokens[after].text in NEXT_CLAUSE)


def opens_clause(tokens: list[Token], hit: CueHit, start: int) -> bool:
    """Does the cue open its clause and stand before a comma or colon ("...; before, 52")?"""
    after = hit.last + 1
    if after >= len(tokens) or tokens[after].text not in (",", ":"):
        return False
    before = hit.first - 1
    return before < start or (tokens[before].kind == PUNCT and (
        tokens[before].text in CLAUSE_BREAK_PUNCT or tokens[before].text in SENTENCE_END or tokens[before].text in "|,"))


def operand_or_bound(tokens: list[Token], first: int, last: int) -> bool:
    """"25 + 2 = 27" (an operand: a number on the other side of the operator), "more than 25" (a bound).
    "50mm lens + 70-200mm lens" lists two things: only arithmetic between numbers is an operation."""
    n = len(tokens)
    if first > 1 and tokens[first - 1].text in OPERATORS and tokens[first - 1].text != "=" \
            and tokens[first - 2].kind in VALUE_KINDS:
        return True
    if last + 2 < n and tokens[last + 1].text in OPERATORS and tokens[last + 2].kind in VALUE_KINDS:
        return True
    j = first - 1
    while j >= 0 and tokens[j].kind == WORD and tokens[j].text in SOFT:
        j -= 1
    return j >= 0 and tokens[j].kind == WORD and tokens[j].text in BOUND_BEFORE

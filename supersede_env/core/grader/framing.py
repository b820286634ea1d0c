"""What frames the official reader's committed statement as other than a plain claim, as written,
whatever its words: a reply broken off after it, a terse one that questions it or limits it
("only"), comments it out in code or gives it for another question; what heads its sentence (a
condition, "Should the record be current, Busan."; in a terse reply an instruction, "Tell her
Busan."); a modal or (for a question asked of now) a past copula, "will" or a change under way ("is
moving to") in its verb group; a bound or an approximation of a name beside it; a document's words
quoted around it.

:mod:`.accounting` asks this first; then it reads the statement's words one by one.
"""
from __future__ import annotations

from supersede_env.core.grader.accounting_spans import sentence_around
from supersede_env.core.grader.answer import TERSE_REPLY, Answer
from supersede_env.core.grader.lex_scan import commented_out
from supersede_env.core.grader.lexicon import (
    BE_FORMS,
    CHANGES_UNDER_WAY,
    CONDITION_SUBJECTS,
    DOCUMENTS,
    FUNCTION_WORDS,
    IMPERATIVE_VERBS,
    INVERTED_CONDITIONALS,
    MODALS_BEFORE_BE,
    OTHER_ORDER,
    PAST_COPULAS,
    PROGRESSIVE_BE,
    PREPOSITION_APPROX,
    QUESTION_NOUNS,
    QUOTE_MARKS,
    REPORTING_VERBS,
    SENTENCE_END,
    UNFINISHED,
    UNFINISHED_UNCLOSED,
    VERB_GROUP,
)
from supersede_env.core.grader.roles import CueReading
from supersede_env.core.grader.tokens import PUNCT, WORD, Token

__all__ = ["framing"]


def _dangling(tokens: list[Token], last: int) -> str | None:
    """The conjunction a reply breaks off on after its value ("Portland, but", "59 minutes... or", "Portland
    — though"): the statement is unfinished, and what it would have said is not known."""
    end = len(tokens) - 1
    while end > last and tokens[end].kind == PUNCT:
        end -= 1
    t = tokens[end]
    if end <= last or t.kind != WORD:
        return None
    closed = end + 1 < len(tokens) and tokens[-1].text in SENTENCE_END
    return t.text if t.text in UNFINISHED or (t.text in UNFINISHED_UNCLOSED and not closed) else None



def framing(a: Answer, first: int, last: int, cues: CueReading, gold_token: Token | None,
            question: frozenset[str], past_question: bool) -> str | None:
    """What frames the statement as other than a plain claim, as written: a reply broken off after it or
    a terse one that questions it, a modal or (asked of now) a past copula in its verb group, a bound or
    an approximation of a name beside it, a document's words quoted. None when nothing does."""
    tokens = a.tokens
    if (word := _dangling(tokens, last)) is not None:
        return word
    terse = len(a.text) <= TERSE_REPLY
    if terse and "`" in a.text and (mark := commented_out(a.text)) is not None:
        return mark  # "`# Busan`": a comment line of code, commented out
    if terse and (any(t.text == "?" for t in tokens[last + 1:])
                  or first > 0 and tokens[first - 1].text == "?" and tokens[first - 1].end == tokens[first].start):
        return "?"  # a terse reply that questions its value ("Marcus. Or was it?", "Marcus, right?", "?Marcus")
    sentence = sentence_around(tokens, first, last)
    if terse and any(t.text == "only" for t in tokens[last + 1:sentence[1] + 1]):
        return "only"  # "Busan in this conversation only", "Busan on weekdays only": a claim limited in scope
    if (head := _sentence_head(a, sentence, first, terse, question)) is not None:
        return head
    if terse and (other := _other_question(a, sentence, question)) is not None:
        return other
    group = _verb_group(tokens, first, last, terse)
    if group & BE_FORMS and (modal := group & MODALS_BEFORE_BE):
        return min(modal)  # "It can be Busan", "It must have been Busan": a possibility or an inference
    asked_now = terse and bool(question) and not past_question
    if asked_now and (past := group & PAST_COPULAS):
        return min(past)  # "It was Busan." for "Where does she live?": said of then, not of now
    if asked_now and "will" not in question and (main := _verb_group(tokens, first, last, False, verbs=1)):
        if "will" in main:
            return "will"  # "Your sister will live in Busan.": a plan, not now ("will be" is a cue already)
        if main & PROGRESSIVE_BE and (moving := main & CHANGES_UNDER_WAY) and not moving & question:
            return min(moving)  # "She is moving to Busan.": a change under way, not done
    for x, y in cues.bounds:  # "at least 6", "6+", "6 or more": whether a range answers is the judge's call
        if (_touches(tokens, y, first) or _touches(tokens, last, x)) and not all(
                tokens[j].value in question for j in range(x, y + 1)):  # "Part of the time, Busan", "47, at least"
            return a.snippet(x, y)
    named = gold_token is None and tokens[first].kind == WORD  # "Pixel 8 Pro", not "10-12 hours"
    for x, y in cues.approximations if named else ():
        # before the name, or after it ending its clause ("Busan, roughly."; not "Busan, near the beach")
        after = _touches(tokens, last, x) and (y + 1 == len(tokens) or tokens[y + 1].kind == PUNCT)
        preposition = tuple(t.text for t in tokens[x:y + 1]) in PREPOSITION_APPROX and a.text[tokens[x].start] != "~"
        if (_touches(tokens, y, first) or after) and not preposition:
            return a.snippet(x, y)  # "Roughly Busan", "Busan-ish": a name is not a quantity one can approach
    return _quoted_report(a, first, last)  # "The note reads 'Busan'.": not a claim of the answer's own


def _sentence_head(a: Answer, sentence: tuple[int, int], first: int, terse: bool, question: frozenset[str]
                   ) -> str | None:
    """The word heading the statement's sentence when it makes the sentence other than a claim: an
    auxiliary before its subject and a comma, a condition ("Should the record be current, Busan.",
    "Were it up to me, Busan."), or in a terse reply a verb that instructs ("Tell her Busan.", "Type 47
    in the box.", "Say, Busan."; not a verb the question asks with: "Drive a Subaru" for "What do I drive?")."""
    tokens = a.tokens
    lo, hi = sentence
    while lo < first and tokens[lo].kind == PUNCT:
        lo += 1  # "**Tell her Busan.**", "- Say Busan"
    head = tokens[lo] if lo < first else None
    asked = tokens[hi].text == "?" or (hi + 1 < len(tokens) and tokens[hi + 1].text == "?")
    if head is None or head.kind != WORD or asked:
        return None
    if head.text in INVERTED_CONDITIONALS and tokens[lo + 1].text in CONDITION_SUBJECTS and any(
            t.text == "," for t in tokens[lo + 2:first]):
        return head.text
    if terse and head.text in IMPERATIVE_VERBS and head.value not in question and tokens[lo + 1].text != ":":
        return head.text
    return None


def _other_question(a: Answer, sentence: tuple[int, int], question: frozenset[str]) -> str | None:
    """A question or item other than the one asked, named in the statement's sentence: the answer is given
    for it ("Busan is the answer to the previous question.", "47 is for the follow-up.")."""
    tokens = a.tokens
    lo, hi = sentence
    for k in range(lo, hi + 1):
        if tokens[k].text == "follow" and k + 2 <= hi and tokens[k + 1].text == "-" and tokens[k + 2].text == "up":
            return a.snippet(k, k + 2)  # "the follow-up": another question, whatever precedes it
        if tokens[k].text in QUESTION_NOUNS and any(
                tokens[j].text in OTHER_ORDER and tokens[j].value not in question for j in range(max(lo, k - 2), k)):
            return a.snippet(max(lo, k - 2), k)
    return None


def _verb_group(tokens: list[Token], first: int, last: int, terse: bool, verbs: int = 0) -> set[str]:
    """The words of the statement's verb group: the function words and :data:`~.lexicon.VERB_GROUP`
    words right before the value ("It can only be", "had been in"), past at most ``verbs`` other words
    (the main verb: "will live in"), and in a terse reply those right after it, past a comma ("Busan
    was it.", "Busan, it can be.")."""

    def grouped(t: Token) -> bool:
        return t.kind == WORD and (t.text in FUNCTION_WORDS or t.text in VERB_GROUP)

    words = set()
    k = first - 1
    while k >= 0 and tokens[k].kind == WORD and (grouped(tokens[k]) or verbs > 0):
        verbs -= not grouped(tokens[k])
        words.add(tokens[k].text)
        k -= 1
    k = last + 1 + (last + 1 < len(tokens) and tokens[last + 1].text == ",")
    while terse and k < len(tokens) and grouped(tokens[k]):
        words.add(tokens[k].text)
        k += 1
    return words


def _quoted_report(a: Answer, first: int, last: int) -> str | None:
    """The reporting verb of the sentence when the statement stands in quotation marks in it and a document
    reports it ("The note reads 'Busan'.", "'Busan' is what session 2 says."); None otherwise."""
    tokens = a.tokens
    if not (0 < first and last + 1 < len(tokens) and tokens[first - 1].text in QUOTE_MARKS
            and tokens[last + 1].text == tokens[first - 1].text):
        return None
    lo, hi = sentence_around(tokens, first, last)
    words = {t.text for t in tokens[lo:hi + 1] if t.kind == WORD}
    return next(iter(sorted(words & REPORTING_VERBS)), None) if words & DOCUMENTS else None


def _touches(tokens: list[Token], before: int, after: int) -> bool:
    """Is nothing but punctuation between tokens ``before`` and ``after`` ("Busan, roughly")?"""
    return before < after and all(t.kind == PUNCT for t in tokens[before + 1:after])

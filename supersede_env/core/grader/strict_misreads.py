"""What the strict reader must not read past even where an answer states the gold: a value given as
someone else's ("They live in Busan now."), a character the lexer reads as nothing (">47", "Busan ~"),
and a number that states another kind of quantity than the gold's (an ordinal for a cardinal, a duration
for a count). Each closes a class of answers that named the gold without committing to it as the
user's current value; :func:`supersede_env.core.grader.strict.grade_strict` applies them."""

from __future__ import annotations

import re
from functools import lru_cache

from supersede_env.core.grader.lex_scan import BLOCKQUOTE, EMPHASIS_TAGS
from supersede_env.core.grader.lexicon import (ANSWER_WORDS, COUNT_QUESTION_WORDS, MARKDOWN_MARKS, OTHER_OWNERS,
                                               THIRD_PERSONS, TIME_QUESTION_WORDS, USER_AS_SUBJECT,
                                               YES_NO_WORDS, for_the_speaker)
from supersede_env.core.grader.strict_world import World
from supersede_env.core.grader.text import normalise_text
from supersede_env.core.grader.tokens import (DUR, LABEL, NUM, PUNCT, VALUE_KINDS, WORD, Token, tokenize,
                                              values_equal)

__all__ = ["other_quantities", "someone_elses", "unread_character"]

_SENTENCE_ENDS = frozenset({".", "!", ";", "\n", "\n\n"})


def someone_elses(tokens: list[Token], world: World, gold: str) -> str | None:
    """A first- or third-person word, not the question's or the gold's, in a sentence that names a value
    ("They live in Busan now.", "Mine is 47."): the value is given as someone else's. ("Busan. That is what I
    have." names the notes' keeper in a sentence of its own.) A third person counts only where the
    question asks about the user ("Where do I live?")."""
    owner: str | None = None
    names_value = False
    voiced = world.frame_words | {t.text for t in _gold_tokens(gold)[1] if t.kind == WORD}
    if not world.frame_words & USER_AS_SUBJECT:  # "Where do my parents live?": "They live in Busan." answers it
        voiced |= THIRD_PERSONS
    for k, t in enumerate((*tokens, None)):
        if t is None or (t.kind == PUNCT and t.text in _SENTENCE_ENDS):
            if owner is not None and names_value:
                return owner
            owner, names_value = None, False
            continue
        labels = k + 1 < len(tokens) and tokens[k + 1].text in ANSWER_WORDS  # "My answer: Busan"
        if t.kind == WORD and t.text in OTHER_OWNERS and t.text not in voiced and t.text.split("'")[0] not in voiced \
                and not labels:
            owner = owner or t.text  # the question's or the gold's own "I" or "my": an echo of the user's voice
        if for_the_speaker(tokens, k) and "me" not in voiced:
            owner = owner or "for me"  # "Busan for me.", "As for me, Busan.": the speaker's own
        names_value = names_value or t.kind in VALUE_KINDS or (t.kind == WORD and (
            t.value in world.candidate_stems or (world.gold.polarity is not None and t.text in YES_NO_WORDS)))
    return None


def unread_character(norm: str, tokens: list[Token]) -> str | None:
    """A character between tokens that the lexer read as nothing (">" of ">47", "~" of "Busan ~"), but
    markdown marks and emphasis tags: a symbol the reward cannot read can change what the value says."""
    quoted = {m.end() - 1 for m in BLOCKQUOTE.finditer(norm)}  # "> Busan": a quoted line, layout
    pos = 0
    for t in (*tokens, None):
        stop = len(norm) if t is None else t.start
        gap = norm[pos:stop]
        marks = EMPHASIS_TAGS.sub(lambda m: " " * len(m.group()), gap) if "<" in gap else gap  # <b>: layout
        for at, ch in enumerate(marks, pos):
            if not ch.isspace() and ch not in MARKDOWN_MARKS and at not in quoted:
                return ch
        if t is not None:
            pos = max(pos, t.end)
    return None


_ORDINAL = re.compile(r"\d(?:st|nd|rd|th)$")


@lru_cache(maxsize=4096)
def _gold_tokens(gold: str) -> tuple[str, tuple[Token, ...]]:
    """The gold as the strict reader reads it (normalised text, tokens); one item is graded many times."""
    norm = normalise_text(gold)
    return norm, tuple(tokenize(norm))


def other_quantities(tokens: list[Token], norm: str, gold: str, world: World) -> list[Token]:
    """On a question that asks for a count ("How many houseplants ...?"), the answer's numbers that state
    another kind of quantity, as labels (never a statement of it): an ordinal ("47th" for 47) or a
    duration ("56 min" for 56) unless the question asks in time ("How many minutes ...?"). Elsewhere
    an ordinal or a duration may be the natural answer ("3rd floor", "26 minutes" for "How long ...?")."""
    if not world.frame_words & COUNT_QUESTION_WORDS or world.frame_words & TIME_QUESTION_WORDS:
        return tokens
    gold_norm, gold_tokens = _gold_tokens(gold)
    # a count: one unit-less number, with at most a common noun ("47", "47 houseplants"; not "Pixel 5")
    values = [t for t in gold_tokens if t.kind in VALUE_KINDS]
    if not (len(values) == 1 and values[0].kind == NUM and values[0].unit is None
            and not any(w[:1].isupper() for w in gold.split())
            and not _ORDINAL.search(gold_norm[values[0].start:values[0].end])):
        return tokens
    out = []
    for t in tokens:
        other = (t.kind == NUM and _ORDINAL.search(norm[t.start:t.end]) is not None) or t.kind == DUR
        asked = any(q.kind == t.kind and values_equal(q, t) for q in world.plain_values)  # "the 7th job"
        out.append(Token(LABEL, t.value, t.start, t.end, norm[t.start:t.end]) if other and not asked else t)
    return out

"""The question, read once: its words and stems (a restated question is not an answer), its 4-grams,
its own values, and whether it names a year."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from supersede_env.core.grader.labels import is_year
from supersede_env.core.grader.lexicon import RATE_PERIODS, SOFT, past_form
from supersede_env.core.grader.tokens import (
    FREQ,
    LABEL,
    PUNCT,
    VALUE_KINDS,
    WORD,
    Token,
    normalise_text,
    tokenize,
    values_equal,
)


# ---------------------------------------------------------------------------------------------
# The question: its words (restated questions are not answers) and its stems
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class QuestionInfo:
    stems: frozenset[str]  # word stems of the question
    content_stems: frozenset[str]  # the same without soft words
    grams: frozenset[tuple]  # 4-grams of question tokens: an answer restating the question
    keys: frozenset  # every question token key (a cheap pre-check for the grams)
    dated: bool = False  # the question names a year ("where did I live in 2023?"): years are what it asks
    values: tuple[Token, ...] = ()  # the question's own values ("my 5K personal best", "in the last 3 months")
    words: frozenset[str] = frozenset()  # the question's words as written (its own cue words are its frame)

    @property
    def past(self) -> bool:
        """Does the question ask in the past ("Where did I go?", "Which happened first?")?"""
        return any(past_form(w) for w in self.words)


def echo_key(t: Token) -> object:
    """What a token is compared by when looking for a restated question."""
    return t.value if t.kind == WORD else (t.kind, repr(t.value))


@lru_cache(maxsize=8192)
def question_info(question: str | None) -> QuestionInfo:
    if not question:
        return QuestionInfo(frozenset(), frozenset(), frozenset(), frozenset())
    toks = tokenize(normalise_text(question))
    q = [echo_key(t) for t in toks if t.kind != PUNCT]
    return QuestionInfo(
        frozenset(t.value for t in toks if t.kind == WORD),
        frozenset(t.value for t in content_tokens(toks) if t.kind == WORD),
        frozenset(tuple(q[i:i + 4]) for i in range(len(q) - 3)),
        frozenset(q),
        any(is_year(t) for t in toks),
        tuple(t for t in toks if t.kind in VALUE_KINDS),
        frozenset(t.text for t in toks if t.kind == WORD),
    )


@lru_cache(maxsize=None)
def _once_a(period: str) -> Token:
    return tokenize(f"once a {period}")[0]


def rate_periods(tokens: Iterable[Token]) -> frozenset[str]:
    """The periods of the rates a question names ("my monthly rent": month), so that an amount given per
    that period ("$1,800 a month", after one of :data:`~.lexicon.RATE_WORDS`) answers it."""
    return frozenset(period for t in tokens if t.kind == FREQ for period in RATE_PERIODS
                     if values_equal(t, _once_a(period)))


def content_tokens(tokens: list[Token]) -> list[Token]:
    """The tokens a value is made of: no punctuation, labels or soft words."""
    return [t for t in tokens if t.kind != PUNCT and t.kind != LABEL and not (t.kind == WORD and t.text in SOFT)]

"""The strict reward's closed world for one item: the candidates an answer may name (the gold's parts
as the strict reader matches them, each superseded value, the decoys), and the question's and the
gold's words that count as plain."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from supersede_env.core.grader.gold import Gold, Pattern, parse_gold, parse_value
from supersede_env.core.grader.lexicon import FUNCTION_WORDS, NOT_PLAIN, PAST_FORMS
from supersede_env.core.grader.question import rate_periods
from supersede_env.core.grader.text import normalise_text
from supersede_env.core.grader.tokens import VALUE_KINDS, WORD, Token, tokenize, values_equal


@dataclass(frozen=True, slots=True)
class StrictPart:
    """One part of a candidate as the strict reader matches it: the tokens a statement of it must
    hold in order (plain function words left out), or its distinctive head, and its own words."""

    text: str
    required: tuple[Token, ...]
    fallback: tuple[Token, ...]
    optional: frozenset[str]  # a value's own words ("points" of "132 points")
    is_value: bool
    keywords: bool = False  # an explanation gold's key words: a run of them, in any order
    min_keywords: int = 0
    must_keywords: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class StrictCandidate:
    """A value an answer may state (an alternative of the gold, a superseded value, a decoy): its parts,
    and the stems of every word a statement of it can hold (an answer with another word besides a
    unit's states something else)."""

    text: str
    parts: tuple[StrictPart, ...]
    ordered: bool
    words: frozenset[str]


def _candidate(text: str, parts: tuple[StrictPart, ...], ordered: bool = False) -> StrictCandidate:
    words = {t.value for p in parts for t in (*p.required, *p.fallback) if t.kind == WORD}
    return StrictCandidate(text, parts, ordered, frozenset(words.union(*(p.optional for p in parts))))


@dataclass(frozen=True, slots=True)
class World:
    """What an answer to this item may name, and which of the question's words are plain."""

    gold: Gold
    alternatives: tuple[StrictCandidate, ...]  # the gold's
    stale: tuple[StrictCandidate, ...]  # each superseded value, each of its patterns a part
    decoys: tuple[StrictCandidate, ...]
    candidate_stems: frozenset[str]  # required words of every candidate: never plain
    plain_stems: frozenset[str]  # the question's words that count as plain
    gold_stems: frozenset[str]  # an explanation gold's own words ("You switched to less water")
    timeline: bool  # a then-and-now gold: its own words of time are plain too
    plain_values: tuple[Token, ...]  # the question's values that no candidate holds ("5K", "monthly")
    past_question: bool  # the question asks in the past ("How much did I pay?"): past forms are plain
    frame_words: frozenset[str]  # the question's (and an explanation gold's) words as written
    premise: bool = False  # the question presumes a superseded value ("Since it's still Phoenix: ...")
    rate_periods: frozenset[str] = frozenset()  # "month" for "my monthly rent": "$1,800 a month" is plain


def _content(tokens: tuple[Token, ...]) -> tuple[Token, ...]:
    return tuple(t for t in tokens if not (t.kind == WORD and t.text in FUNCTION_WORDS and t.value != "~"))


def _part(p: Pattern) -> StrictPart:
    own = p.optional | {t.value for t in tokenize(normalise_text(p.text)) if t.kind == WORD} if p.is_value else frozenset()
    return StrictPart(p.text, _content(p.required), _content(p.fallback), frozenset(own), p.is_value, p.keywords,
                 p.min_keywords, p.must_keywords)


def _words(parts: tuple[StrictPart, ...]) -> set[str]:
    return {t.value for p in parts for t in (*p.required, *p.fallback) if t.kind == WORD}


@lru_cache(maxsize=4096)
def world_of(gold_text: str, stale: tuple[str, ...], decoys: tuple[str, ...], question: str | None,
           abstention: bool = False) -> World:
    gold = parse_gold(gold_text, question)
    # an abstention item's gold is an explanation, never a value to state
    alternatives = () if abstention else tuple(
        _candidate(alt.text, tuple(map(_part, alt.parts)), alt.ordered or alt.timeline) for alt in gold.alternatives)
    stale_parts = tuple(_candidate(s, tuple(map(_part, parse_value(s, gold.per)))) for s in stale)
    decoy_parts = tuple(_candidate(d, tuple(map(_part, parse_value(d, gold.per)))) for d in decoys)
    candidates = {w for c in (*alternatives, *stale_parts, *decoy_parts) for w in _words(c.parts)}
    if gold.choice is not None:
        candidates |= _words((_part(gold.choice.rejected),))
    q_tokens = tokenize(normalise_text(question or ""))
    plain = frozenset(t.value for t in q_tokens if t.kind == WORD and t.text not in NOT_PLAIN
                      and t.value not in NOT_PLAIN and t.value != "~") - candidates
    held = [t for alt in alternatives for p in alt.parts for t in p.required if t.kind in VALUE_KINDS]
    held += [t for c in stale_parts for p in c.parts for t in p.required if t.kind in VALUE_KINDS]
    values = tuple(q for q in q_tokens if q.kind in VALUE_KINDS and not any(
        values_equal(q, h) or values_equal(h, q) for h in held))
    # an explanation gold is a statement in its own words: they are plain ("You switched to less
    # water"), and a then-and-now gold's words of time too ("Previously ...; currently ...")
    # (an abstention item's gold says what was never given: "You never mentioned how much it costs")
    explained = abstention or gold.choice is not None or any(p.keywords for alt in gold.alternatives for p in alt.parts)
    timeline = any(alt.timeline for alt in gold.alternatives)
    gold_words = [t for t in tokenize(normalise_text(gold_text)) if t.kind == WORD] if explained or timeline else []
    own = frozenset(t.value for t in gold_words if timeline or t.text not in NOT_PLAIN) - candidates
    # a possessive frames its noun too: "What's my manager's name?" asks about "your manager"
    surface = frozenset(w for t in (*q_tokens, *gold_words) if t.kind == WORD for w in {t.text, t.text.removesuffix("'s")})
    past = any(t.kind == WORD and t.text in PAST_FORMS for t in q_tokens)
    # a yes/no item has no premise to correct: its "no" is the answer itself
    premise = gold.polarity is None and any(_names(part, q_tokens) for c in stale_parts for part in c.parts)
    return World(gold, alternatives, stale_parts, decoy_parts, frozenset(candidates), plain, own, timeline, values,
                 past, surface, premise, rate_periods(q_tokens))


def _names(part: StrictPart, tokens: tuple[Token, ...] | list[Token]) -> bool:
    """Does a text (its tokens) name this part: every value and word it requires?"""
    stems = {t.value for t in tokens if t.kind == WORD}
    return bool(part.required) and all(
        r.value in stems if r.kind == WORD else any(values_equal(r, t) for t in tokens if t.kind in VALUE_KINDS)
        for r in part.required)

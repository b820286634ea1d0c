"""The strict reward: closed-world. It pays only what it can account for.

r_cur = 1 only when the answer place, after the one normalisation (:func:`~.tokens.normalise_text`), consists of **one
statement of the gold** (in any form :mod:`.tokens` equates: ``four`` = ``4``, ``25:50`` = ``25
minutes and 50 seconds``) and otherwise only

- plain function words (:data:`~.lexicon.FUNCTION_WORDS`: "It's", "you", "in", "now") and plain
  punctuation (:data:`~.lexicon.PLAIN_PUNCT`);
- words of the question that are neither a candidate value nor a role word
  (:data:`~.lexicon.NOT_PLAIN`: negators, hedges, history, contrast, approximation, numerals);
- the value's own words ("points" of "132 points") and its unit.

Every other token (an unknown word, a second value of any kind, a symbol, text beside the answer
place) means no payment, and the reason names the first one. So do characters that render other
than they read: combining overlays, strike markup, bidirectional controls and invisible separators.
r_stale = -1 by the same rule with a superseded value as the target. An abstention is one or more
phrases of :data:`~.lexicon.ABSTENTION` and otherwise only plain words, with no value; a yes/no gold
is answered by its yes or no word alone. The gold text restated whole (case, spacing and a
closing full stop aside) is paid with whatever it carries: a gold's own alternatives or explanation are right.

Why no blind policy beats a guess: a paid answer names exactly one candidate, the gold, and nothing
the grader cannot read. A policy that does not know which candidate is current writes the same
answer whichever one is; the answer names one candidate (or none) and is paid only when that one is
the gold, so its expected pay is at most that of naming one candidate, a uniform guess.


**The item's closed world.** The candidates the candidates an answer may name (the gold's parts
as the strict reader matches them, each superseded value, the decoys), and the question's and the
gold's words that count as plain.

**Misreads.** What the strict reader must not read past even where an answer states the gold: a value given as
someone else's ("They live in Busan now."), a character the lexer reads as nothing (">47", "Busan ~"),
and a number that states another kind of quantity than the gold's (an ordinal for a cardinal, a duration
for a count). Each closes a class of answers that named the gold without committing to it as the
user's current value; :func:`grade_strict` applies them.

**Abstentions.** An abstention is one or more phrases of
:data:`~.abstention.ABSTENTION` (matched on the answer's words joined by single spaces) and otherwise
only words of courtesy, with no value."""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass
from functools import lru_cache
from itertools import permutations

from supersede_env.core.grader.abstention import ABSTENTION, ABSTENTION_HINTS
from supersede_env.core.grader.gold import Gold, Pattern, parse_gold, parse_value
from supersede_env.core.grader.lex_quantities import MEASURE_UNITS
from supersede_env.core.grader.lexicon import (
    ANSWER_WORDS,
    AUXILIARIES,
    BREAK_OFF_MARKS,
    COUNT_QUESTION_WORDS,
    COURTESY,
    FRAME_KINDS,
    FUNCTION_WORDS,
    MARKDOWN_MARKS,
    NOT_PLAIN,
    OCCURRENCE_WORDS,
    OTHER_OWNERS,
    PAST_FORMS,
    PLAIN_PUNCT,
    PLAIN_SYMBOLS,
    PREMISE_CORRECTIONS,
    RATE_WORDS,
    ROLE_PHRASE_STARTS,
    ROLE_PHRASES,
    THIRD_PERSONS,
    TIME_QUESTION_WORDS,
    USER_AS_SUBJECT,
    YES_NO_WORDS,
    for_the_speaker,
)
from supersede_env.core.grader.question import rate_periods
from supersede_env.core.grader.tokens import (
    BLOCKQUOTE,
    DATE,
    DUR,
    EMPHASIS_TAGS,
    LABEL,
    NUM,
    PUNCT,
    VALUE_KINDS,
    WORD,
    Token,
    commented_out,
    normalise_text,
    tokenize,
    values_equal,
)
from supersede_env.core.verdict import Verdict

__all__ = [
    "abstains", "abstention_cover", "grade_strict", "other_quantities", "outside_abstention",
    "someone_elses", "unread_character",
]


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
        # "My answer: Busan" labels the speaker's answer; "Their answer: Busan" is someone else's
        labels = t.text == "my" and k + 1 < len(tokens) and tokens[k + 1].text in ANSWER_WORDS
        if t.kind == WORD and t.text in OTHER_OWNERS and t.text not in voiced and t.text.split("'")[0] not in voiced \
                and not labels:
            owner = owner or t.text  # the question's or the gold's own "I" or "my": an echo of the user's voice
        if for_the_speaker(tokens, k) and t.text not in voiced:
            owner = owner or f"for {t.text}"  # "Busan for me.", "For us, Busan.": the speaker's own
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


_ORDINAL = re.compile(r"(?:\d(?:st|nd|rd|th)|th|first|second|third)$")  # "47th", "twelfth"; no cardinal word ends so


@lru_cache(maxsize=4096)
def _gold_tokens(gold: str) -> tuple[str, tuple[Token, ...]]:
    """The gold as the strict reader reads it (normalised text, tokens); one item is graded many times."""
    norm = normalise_text(gold)
    return norm, tuple(tokenize(norm))


def other_quantities(tokens: list[Token], norm: str, gold: str, world: World) -> list[Token]:
    """The answer's numbers that state another kind of quantity than the gold's, as labels (never a
    statement of it): an ordinal for a count or a duration ("47th" for 47, "fortieth" for 40 minutes), and
    on a question that asks for a count ("How many houseplants ...?", "How many times a week ...?") a
    duration ("56 min" for 56) unless the question asks in time ("How many minutes ...?"). Elsewhere an
    ordinal or a duration may be the natural answer ("3rd floor", "26 minutes" for "How long ...?")."""
    gold_norm, gold_tokens = _gold_tokens(gold)
    values = [t for t in gold_tokens if t.kind in VALUE_KINDS]
    if len(values) != 1 or _ORDINAL.search(gold_norm[values[0].start:values[0].end]):
        return tokens
    value, frame = values[0], world.frame_words
    # a count: one unit-less number, with at most a common noun ("47", "47 houseplants"; not "Pixel 5")
    count = value.kind == NUM and value.unit is None and not any(w[:1].isupper() for w in gold.split())
    asks_count = bool(frame & COUNT_QUESTION_WORDS) and not (frame & TIME_QUESTION_WORDS
                                                             and not frame & OCCURRENCE_WORDS)
    if not ((count and asks_count) or value.kind == DUR):
        return tokens
    out = []
    for t in tokens:
        other = (t.kind == NUM and _ORDINAL.search(norm[t.start:t.end]) is not None) or (t.kind == DUR and count)
        asked = any(q.kind == t.kind and values_equal(q, t) for q in world.plain_values)  # "the 7th job"
        out.append(Token(LABEL, t.value, t.start, t.end, norm[t.start:t.end]) if other and not asked else t)
    return out


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


MODE = "strict"
# Characters that make a text read other than it renders: combining overlays (strike-through),
# bidirectional controls, invisible separators and joiners.
_TRAPS = re.compile("[\u0334-\u0338\u20d2\u20d3\u20d8-\u20da\u20e5\u20e6\u20ea\u20eb"
                    "\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c"
                    "\u200b-\u200d\u2060-\u2064\ufeff\u00ad\u180e\u3164\u115f\u1160\uffa0\u2800"
                    "\U000e0000-\U000e007f]")  # tag characters spell text no one sees
_STRIKE = re.compile(r"~~|<\s*/?\s*(?:s|del|strike)\s*>", re.I)
# control characters, and ">" after text on its line ("Phoenix > Lexington"; a quote marker opens its line)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]|[^\s>][ \t]*>")
_YES_OR_NO = re.compile(r"^\W*(yes|no)\b", re.I)
# a wink or a face beside the answer ("Lexington ;)") says it is not meant plainly
_EMOTICON = re.compile(r"(?:^|\s)[;:=][-^o']?[()\[\]DPpO/\\|*@3]+(?=\s|$)")
# an answer that opens like a question ("Is it Lexington", "Do you live in Lexington") asks, not states
# (matched on the normalised text, which is lower case)
_ASKS = re.compile(r"^\W*(?:is|are|am|was|were|do|does|did|have|has|can|could|would|should|will)\s+"
                   r"(?:it|that|this|you|i|we|they|there|your|my)\b")


def _verdict(label: str, reason: str, extracted: str, *, r_cur: float = 0.0, r_stale: float = 0.0) -> Verdict:
    return Verdict(label, r_cur, r_stale, f"strict: {reason}", extracted.strip(), MODE)


def _as_written(norm: str) -> str:
    """A normalised text as written, but for its spacing and a closing full stop."""
    return " ".join(norm.split()).removesuffix(".").rstrip()


def _trap(text: str) -> str | None:
    """Why ``text`` renders other than it reads, if it does."""
    if not text.isascii() and (m := _TRAPS.search(text)) is not None:
        return f"a hidden or overlaid character (U+{ord(m.group()):04X}) reads other than it renders"
    if ("~" in text or "<" in text) and (m := _STRIKE.search(text)) is not None:
        return f"struck-out text ({m.group()!r})"
    return None


def _odd(norm: str) -> str | None:
    """A character (or face) the grader cannot read as a word, value or plain punctuation."""
    if (";" in norm or ":" in norm or "=" in norm) and (m := _EMOTICON.search(norm)) is not None:
        return m.group().strip()
    if not norm.isascii():
        for ch in norm:
            if not ch.isascii() and ch not in PLAIN_SYMBOLS:
                return ch
    if (">" in norm or not norm.isprintable()) and (m := _CONTROL.search(EMPHASIS_TAGS.sub(" ", norm))) is not None:
        return m.group()[-1]
    return None


def _role_phrases(tokens: list[Token], world: World) -> tuple[set[int], set[int]]:
    """Tokens inside a role phrase of several words ("up to", "used to", "your manager"): those that need
    accounting, and those of a person the question asks about ("What's my manager's name?" frames "your
    manager"), which are plain. A phrase of time the question holds ("in the past" for "How many ... in
    the past few weeks?") is not forced, but its words are read as any other ("At first 15." for "...
    in the first three months?" says what was, not what is)."""
    forced: set[int] = set()
    framed: set[int] = set()
    n = len(tokens)
    for i in [i for i in range(n - 1) if tokens[i].text in ROLE_PHRASE_STARTS
              and (tokens[i].text, tokens[i + 1].text) in ROLE_PHRASES]:
        for words, kind in ROLE_PHRASES[tokens[i].text, tokens[i + 1].text]:
            k = len(words)
            if i + k <= n and all(tokens[i + x].text == words[x] for x in range(2, k)):
                content = [w for w in words if w not in FUNCTION_WORDS]  # "has to be" is no word of the question's
                if not (kind in FRAME_KINDS and content and all(w in world.frame_words for w in content)):
                    forced.update(range(i, i + k))
                elif kind == "other":
                    framed.update(range(i, i + k))
                break
    return forced, framed


def _to_account(tokens: list[Token], world: World) -> list[int]:
    """Indices of the tokens that only a statement of the target (or an abstention) can account for."""
    out = []
    forced, framed = _role_phrases(tokens, world)
    candidates, plain, own = world.candidate_stems, world.plain_stems, world.gold_stems
    opening = next((i for i, t in enumerate(tokens) if t.kind != PUNCT), None)
    for i, t in enumerate(tokens):
        kind = t.kind
        if i in forced:
            pass
        elif i in framed:
            continue
        elif i == opening and world.premise and t.text in PREMISE_CORRECTIONS:
            continue  # "No, Lexington." corrects the question's stale premise
        elif t.text in world.rate_periods and i >= 1 and tokens[i - 1].text in RATE_WORDS:
            continue  # "$1,800 a month" for "What is my monthly rent?"
        elif kind == WORD:
            if t.text in FUNCTION_WORDS and t.value != "~":
                continue
            if t.value not in candidates and t.value != "~" and (
                    (t.text not in NOT_PLAIN and (t.value in plain or t.value in own) and not _past_form(t, world))
                    or (world.timeline and t.value in own)):
                continue
        elif kind == PUNCT:
            if t.text in PLAIN_PUNCT and not _minus_sign(tokens, i) and not _bang_before(tokens, i):
                continue
        elif kind in VALUE_KINDS and any(q.kind == kind and values_equal(q, t) for q in world.plain_values):
            continue  # a value the question itself gives ("your 5K personal best")
        out.append(i)
    return out


def _past_form(t: Token, world: World) -> bool:
    """A question's word in the past ("lived" for "Where do I live?", "was" for "What is my rent?"):
    history, not a plain word, unless the question asks in the past."""
    past = t.text in PAST_FORMS or (t.text.endswith("ed") and len(t.text) > 3)
    return past and not world.past_question and t.text not in world.frame_words


def _minus_sign(tokens: list[Token], i: int) -> bool:
    """"-5": a hyphen written against a number is its sign, not punctuation (unless it closes a range)."""
    t = tokens[i]
    if t.text != "-" or i + 1 >= len(tokens) or tokens[i + 1].kind not in VALUE_KINDS or tokens[i + 1].start != t.end:
        return False
    return i == 0 or tokens[i - 1].kind not in VALUE_KINDS


def _bang_before(tokens: list[Token], i: int) -> bool:
    """"!Busan": an exclamation mark written against the word after it negates it; one that ends a
    statement ("Busan!") is plain."""
    t = tokens[i]
    return t.text == "!" and i + 1 < len(tokens) and tokens[i + 1].start == t.end and tokens[i + 1].kind != PUNCT


def _same(g: Token, a: Token) -> bool:
    if g.kind == WORD:
        return a.kind == WORD and a.value == g.value
    if g.kind == DATE and g.value[0] is None and a.kind == DATE and a.value[0] is not None:
        return False  # "March 14, 2019" for "March 14": a year the gold does not give, which may be past
    return a.kind in VALUE_KINDS and values_equal(g, a)


def _own_word(p: StrictPart, tokens: list[Token], k: int, unit: str | None) -> bool:
    """Is tokens[k] a word of the value itself: one of its words ("points" of "132 points"), or the
    unit of the candidate's value just before it ("400,000 dollars" for "$400,000")?"""
    t = tokens[k]
    if t.kind != WORD:
        return False
    return t.value in p.optional or (unit is not None and MEASURE_UNITS.get(t.text) == unit)


def _match_part(p: StrictPart, tokens: list[Token], need: list[int], at: int, fallback: bool = True) -> int | None:
    """Where a statement of pattern ``p`` that starts at need[at] ends (exclusive), or None; with
    ``fallback``, a long name's distinctive head counts too."""
    if p.keywords:
        return _match_keywords(p, tokens, need, at)
    for seq in (p.required, p.fallback) if fallback else (p.required,):
        if not seq:
            continue
        j, unit, n = at, None, len(need)
        for g in seq:  # each required token, the value's own words allowed before and between
            while j < n and not _same(g, tokens[need[j]]):
                if not _own_word(p, tokens, need[j], unit):
                    j = n  # a word that is neither g nor the value's own
                    break
                j += 1
            if j >= n:
                break
            unit = g.unit
            j += 1
        else:
            while j < n and _own_word(p, tokens, need[j], unit):
                j += 1
            return j
    return None


def _match_keywords(p: StrictPart, tokens: list[Token], need: list[int], at: int) -> int | None:
    """An explanation gold's key words: a run of them, each once, at least ``min_keywords``."""
    keys = {g.value for g in p.required}
    seen: set[str] = set()
    j = at
    while j < len(need) and tokens[need[j]].kind == WORD and tokens[need[j]].value in keys - seen:
        seen.add(tokens[need[j]].value)
        j += 1
    return j if len(seen) >= max(1, p.min_keywords) and p.must_keywords <= seen else None


def _states(parts: tuple[StrictPart, ...], ordered: bool, tokens: list[Token], need: list[int],
            fallback: bool = True) -> bool:
    """Is ``need`` exactly one statement of every part (in order when ``ordered``), and nothing else?"""
    if len(parts) == 1:  # most candidates
        end = _match_part(parts[0], tokens, need, 0, fallback)
        return end is not None and 0 < end == len(need)
    orders = [parts] if ordered or len(parts) > 4 else permutations(parts)
    for order in orders:
        at = 0
        for p in order:
            end = _match_part(p, tokens, need, at, fallback)
            if end is None or end == at:
                break
            at = end
        else:
            if at == len(need):
                return True
    return False


def _need_words(tokens: list[Token], need: list[int]) -> frozenset[str]:
    """The stems of the words in ``need`` but units (a candidate states ``need`` only when it can hold
    each of them: :attr:`.StrictCandidate.words`; a unit may follow any value)."""
    return frozenset([t.value for i in need if (t := tokens[i]).kind == WORD and t.text not in MEASURE_UNITS])


def _gold_stated(world: World, tokens: list[Token], need: list[int], words: frozenset[str],
                 fallback: bool = True) -> str | None:
    for alt in world.alternatives:
        if words <= alt.words and _states(alt.parts, alt.ordered, tokens, need, fallback):
            return alt.text
    return None


def _also_states(world: World, tokens: list[Token], need: list[int], words: frozenset[str]) -> str | None:
    """Another candidate the same answer states (a paid answer names exactly one): a superseded value
    or decoy stated in full, or one stated by its distinctive head when the gold is too ("3 pm" for
    "Monday 3 pm" beside "Tuesday 3 pm"; "Lexington" for "New Lexington" beside "Lexington")."""
    gold_in_full: bool | None = None  # computed when a candidate with a distinctive head needs it
    for c in (*world.stale, *world.decoys):
        if not words <= c.words:
            continue
        if any(_states((p,), False, tokens, need, fallback=False) for p in c.parts):
            return c.text
        heads = [p for p in c.parts if p.fallback]
        if heads and gold_in_full is None:
            gold_in_full = _gold_stated(world, tokens, need, words, fallback=False) is not None
        if heads and not gold_in_full and any(_states((p,), False, tokens, need) for p in heads):
            return c.text
    return None


def _stale_stated(world: World, tokens: list[Token], need: list[int], words: frozenset[str]) -> str | None:
    for c in world.stale:
        if words <= c.words and any(_states((p,), False, tokens, need) for p in c.parts):
            return c.text
    return None


def _gold_inside(world: World, tokens: list[Token], need: list[int]) -> bool:
    """Does a statement of a part of the gold start anywhere in ``need``? (Only at a value, a unit or a
    word the gold can hold: a statement starts at one of them.)"""
    for alt in world.alternatives:
        starts = [k for k, i in enumerate(need) if (t := tokens[i]).kind in VALUE_KINDS or (
            t.kind == WORD and (t.value in alt.words or t.text in MEASURE_UNITS))]
        if any(_match_part(p, tokens, need, k) is not None for p in alt.parts for k in starts):
            return True
    return False


def _not_abstention(tokens: list[Token], need: list[int]) -> str:
    """Why an answer on an abstention item is not an abstention alone."""
    value = next((tokens[i] for i in need if tokens[i].kind in VALUE_KINDS), None)
    if value is not None:
        return f"puts forward a {_kind_name(value)}"
    covered, first = abstention_cover(tokens)
    if first is None:
        return "says no abstention phrase" + _first_reason(tokens, need)
    return "not an abstention alone" + _first_reason(tokens, outside_abstention(tokens, need, covered))


def _first_unaccounted(tokens: list[Token], need: list[int], world: World) -> tuple[str, bool]:
    """The first token of ``need`` that no statement of the gold accounts for, and whether it is a
    role word, a candidate or another value (the answer then hedges rather than errs)."""
    gold_tokens = [g for alt in world.alternatives for p in alt.parts for g in (*p.required, *p.fallback)]
    for i in need:
        t = tokens[i]
        if any(_same(g, t) for g in gold_tokens):
            continue
        role = t.kind in VALUE_KINDS or t.value in world.candidate_stems or t.text in NOT_PLAIN or t.text == "?"
        return (t.text or f"a {_kind_name(t)}"), role
    return "a second statement of the gold", True


def _kind_name(t: Token) -> str:
    return {"n": "number", "t": "time", "c": "clock time", "d": "duration", "D": "date", "f": "frequency",
            "L": "label number"}.get(t.kind, "value")


def _negations(asked: set[str]) -> set[str]:
    """The negations of the question's auxiliaries ("did" -> "didn't", "do" -> "don't"), and "not"."""
    irregular = {"do": "don't", "will": "won't", "can": "can't"}
    return {irregular.get(a, f"{a}n't") for a in asked} | ({"not"} if asked else set())


def _yes_no(world: World, tokens: list[Token], need: list[int], stale: tuple[str, ...], gold: str, text: str
            ) -> Verdict:
    said = [YES_NO_WORDS[tokens[i].text] for i in need if tokens[i].kind == WORD and tokens[i].text in YES_NO_WORDS]
    # the question's own words restate it, and whether they agree with the yes or no is not read:
    # the word alone answers ("No, you still have the bike" is not a plain no)
    # ("Yes, you did.", "No, you didn't." echo the question's auxiliary: a no's may be negated)
    asked = {a for a in AUXILIARIES if a in world.frame_words}  # "It might be yes" is no echo of "Do I ...?"
    echo = asked | (_negations(asked) if said[:1] == ["no"] else set())
    restated = [i for i, t in enumerate(tokens) if t.kind == WORD and t.text not in FUNCTION_WORDS
                and t.text not in YES_NO_WORDS and t.text not in COURTESY and t.text not in echo]
    if restated and said:
        return _verdict("hedged", f"{tokens[restated[0]].text!r} is not accounted for beside {said[0]!r}", text)
    if len(said) == 1 and all(tokens[i].text in echo or tokens[i].text in YES_NO_WORDS for i in need):
        if said[0] == world.gold.polarity:
            if (owner := someone_elses(tokens, world, gold)) is not None:  # "Yes for me."
                return _verdict("hedged", f"answers {said[0]!r}, but as someone else's ({owner!r})", text)
            return _verdict("current", f"answers {said[0]!r}", text, r_cur=1.0)
        if any((m := _YES_OR_NO.match(s)) is not None and m.group(1).lower() == said[0] for s in stale):
            return _verdict("stale", f"answers {said[0]!r}, the superseded answer", text, r_stale=-1.0)
        return _verdict("wrong", f"answers {said[0]!r}, gold is {world.gold.polarity!r}", text)
    if not need:
        return _verdict("wrong", "says neither yes nor no", text)
    first = tokens[need[0]] if not said or len(need) > 1 else tokens[need[-1]]
    extra = next((tokens[i] for i in need if tokens[i].text not in YES_NO_WORDS), first)
    return _verdict("hedged" if said else "wrong", f"{extra.text or _kind_name(extra)!r} is not accounted for", text)


def grade_strict(text: str, gold: str, stale: tuple[str, ...], decoys: tuple[str, ...], abstention: bool,
                 question: str | None) -> Verdict:
    """The strict verdict on an answer place's text (see the module docstring)."""
    trap = _trap(text)
    if trap is not None:
        return _verdict("wrong", trap, text)
    norm = normalise_text(text)
    if _as_written(norm) == _as_written(normalise_text(gold)):
        # the gold restated whole: what it carries besides its value (its own alternatives, "25:50 or 25
        # minutes and 50 seconds"; an explanation, "Yes. (You have a road bike too.)") is the answer's too
        if abstention:
            return _verdict("abstained", "restates the gold", text, r_cur=1.0)
        return _verdict("current", "restates the gold", text, r_cur=1.0)
    odd = _odd(norm)
    if odd is not None:
        return _verdict("wrong", f"{odd!r} is not accounted for", text)
    if _ASKS.match(norm) is not None:
        return _verdict("wrong", "asks rather than states", text)
    tokens = tokenize(norm)
    unread = commented_out(norm) or unread_character(norm, tokens)
    if unread is not None:
        return _verdict("wrong", f"{unread!r} is not accounted for", text)
    world = world_of(gold, stale, decoys, question, abstention)
    tokens = other_quantities(tokens, norm, gold, world)
    need = _to_account(tokens, world)
    if abstention:
        phrase = abstains(tokens, need)
        if phrase is not None:
            return _verdict("abstained", f"abstains: {phrase!r}", text, r_cur=1.0)
        return _verdict("wrong", _not_abstention(tokens, need), text)
    if world.gold.polarity is not None:
        return _yes_no(world, tokens, need, stale, gold, text)
    words = _need_words(tokens, need)
    stated = _gold_stated(world, tokens, need, words)
    if stated is not None:
        other = _also_states(world, tokens, need, words)
        if other is not None:
            return _verdict("hedged", f"states {stated!r}, but reads as {other!r} too", text)
        owner = someone_elses(tokens, world, gold)
        if owner is not None:
            return _verdict("hedged", f"states {stated!r}, but as someone else's ({owner!r})", text)
        if tokens[-1].kind == PUNCT and (tokens[-1].text in BREAK_OFF_MARKS or tokens[-1].text == ":"):
            return _verdict("wrong", f"states {stated!r}, but breaks off on {tokens[-1].text!r}", text)  # "Busan ("
        return _verdict("current", f"states {stated!r}", text, r_cur=1.0)
    value = _stale_stated(world, tokens, need, words)
    if value is not None:
        return _verdict("stale", f"states superseded {value!r}", text, r_stale=-1.0)
    phrase = abstains(tokens, need)
    if phrase is not None:
        return _verdict("abstained", f"abstains: {phrase!r}", text)
    if not need:
        return _verdict("wrong", "states no value", text)
    if _gold_inside(world, tokens, need):
        word, role = _first_unaccounted(tokens, need, world)
        return _verdict("hedged" if role else "wrong", f"states the gold, but {word!r} is not accounted for", text)
    return _verdict("wrong", "does not state the gold" + _first_reason(tokens, need), text)


def _first_reason(tokens: list[Token], need: list[int]) -> str:
    if not need:
        return ""
    t = tokens[need[0]]
    return f" ({(t.text or _kind_name(t))!r} is not accounted for)"

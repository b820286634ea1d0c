"""Rivals: values the grader was not told about but that compete with the gold.

Each finder below reads one way an answer can put another value beside the gold (another time of
day for a time, another bare count listed beside a count, an item offered with "or", a conjunct, a
name in sequence with the gold, and, when the source named no other candidate, every other name of
a terse reply). :data:`RIVAL_FINDERS` is their ordered list; :func:`find_rivals` runs the ones that
apply and keeps the tightest reading of each place. A rival's role is then given by the same cues as
any other candidate (:mod:`supersede_env.core.grader.roles`).


**Typed values.** Rivals among typed values: another time, date, amount, duration or count of the gold's sort, another
range, another day of the week or month.

**Named rivals.** Rivals named by words: an item offered with the gold ("or", "/", a range), a conjunct of a one-thing
gold, a name listed on its own line, a name in sequence with the gold, and the other names of a terse
reply to a source that named none.

**Names.** Names an answer puts forward that the grader was not told of: runs of capitalised words.

A source that lists no superseded value (LongMemEval's release, a user's file) leaves the grader to
find the rivals of the gold itself. In a short reply, the policy's format, every name beside the gold
is one: "Chevy Malibu, Toyota Prius" lists two cars whether or not the grader knows the Malibu. On an
abstention item every name is a possible guess. A name is a run of words written with a capital
(in the reply as written), that is not a pronoun, a cue or discourse word, a word of the question, or a
sentence's first word standing before more words ("Therefore, ...", "There is ...").
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from supersede_env.core.grader.answer import SHORT_REPLY, TERSE_REPLY, Answer, Span
from supersede_env.core.grader.gold import Gold
from supersede_env.core.grader.labels import is_year
from supersede_env.core.grader.lexicon import (
    ABSTAIN_TRIGGERS,
    ALTERNATIVE_WORDS,
    CLAUSE_BREAK_PUNCT,
    CLAUSE_BREAK_WORDS,
    COPULAS,
    CUE_STARTS,
    CUE_TABLE,
    DISCOURSE,
    HEADINGS,
    JOINERS,
    LINE_SEPARATORS,
    LINKS,
    LIST_JOINERS,
    MONTHS,
    NAME_HEDGES,
    NOT_A_RIVAL,
    NOT_NAMES,
    PLACE_PREPOSITIONS,
    PRONOUNS,
    SENTENCE_END,
    SEPARATOR_PUNCT,
    SEQUENCE_OR_HEDGE,
    SEQUENCE_WORDS,
    SOFT,
    STAYING_VERBS,
    TITLES,
    TO_WORDS,
    UNSURE_SUBJECTS,
    WEEKDAYS,
)
from supersede_env.core.grader.mention import RANGE_CUE, Mention, is_bare_item, is_capitalised_name
from supersede_env.core.grader.tokens import (
    CLOCK,
    DATE,
    DUR,
    FREQ,
    LABEL,
    NUM,
    PUNCT,
    TIME,
    VALUE_KINDS,
    WORD,
    Token,
    other_unit,
    values_equal,
)

if TYPE_CHECKING:
    from supersede_env.core.grader.answer import Answer
    from supersede_env.core.grader.rivals import RivalSearch
if TYPE_CHECKING:
    from supersede_env.core.grader.rivals import RivalSearch


def _comparable(gold_tok: Token, t: Token) -> bool:
    """Is value ``t`` of the gold's sort, so a rival answer when it differs from the gold?"""
    gk = gold_tok.kind
    if gk in (TIME, CLOCK):
        return t.kind == TIME or (t.kind == CLOCK and bool(t.value[0]))
    if gk in (DATE, FREQ):
        return t.kind == gk
    if gk == DUR:  # "25 minutes and 50 seconds" vs "27:12" (a clock reading of a duration)
        return (t.kind == DUR and t.value[0] == gold_tok.value[0]) or (
            t.kind == CLOCK and gold_tok.value[0] == "s" and bool(t.value[1]))
    if gk == NUM:
        return gold_tok.unit is not None and t.kind == NUM and t.unit == gold_tok.unit
    return False


def value_rivals(s: RivalSearch) -> list[Mention]:
    """Other values of the gold's sort in the conclusion: rivals whatever their role.

    Typed values (times, dates, money, durations, frequencies) compete wherever they stand. A bare
    count competes when it stands as a list item ("15; 18"), beside another number ("42 43 44"), or
    counts the same thing in a short reply after a sequence
    or hedge word ("47 then 52", "47, maybe 50") or when the source ``told`` of no other value (a reasoned
    answer counts other things too); a year is a date, not a count."""
    a, gold, covered, question, gold_spans, told = s.a, s.gold, s.covered, s.question, s.gold_spans, s.told
    gold_tok = gold.single_value
    if gold_tok is None:
        return []
    tokens = a.tokens
    units = gold.alternatives[0].parts[0].optional
    n = len(tokens)
    nouns: frozenset | None = None  # what the gold counts (built when needed)
    starts = [s for s, _ in covered]
    out = []
    short = len(a.text) <= SHORT_REPLY
    terse = len(a.text) <= TERSE_REPLY
    for i in _other_values(a, gold):
        t = tokens[i]
        k = bisect_right(starts, i) - 1
        if k >= 0 and covered[k][0] <= i <= covered[k][1]:
            continue  # part of a known candidate
        if gold_tok.kind == NUM and t.kind == NUM and t.unit == gold_tok.unit:
            if is_year(t) and not is_year(gold_tok):
                continue
            beside_number = (i > 0 and tokens[i - 1].kind == NUM) or (i + 1 < n and tokens[i + 1].kind == NUM)
            # "47 then 52", "47, maybe 50"; in a short reply to a source that named no other value, every count
            same_count = (short and _after_marker(tokens, i)) or (terse and not told)
            if same_count and nouns is None:
                # its unit words, the question's words, the word after the gold in the answer
                nouns = units | question | {tokens[e + 1].value for _, e in gold_spans
                                            if e + 1 < n and tokens[e + 1].kind == WORD}
            after = tokens[i + 1] if i + 1 < n else None
            counts_same = same_count and (after is None or after.kind != WORD or after.value in nouns or (
                not told and (after.text in SOFT or after.text in LINKS or after.text in CUE_STARTS)))
            if is_bare_item(tokens, i, i, units) or beside_number or counts_same:
                out.append(Mention(a.snippet(i, i), "rival", i, i))
        elif _comparable(gold_tok, t):
            out.append(Mention(a.snippet(i, i), "rival", i, i))
    return out


def _other_values(a: Answer, gold: Gold) -> list[int]:
    """The conclusion's value tokens (indices, in text order) of a value other than the gold's, each
    distinct value compared once."""
    tokens, all_content, skip, gold_tok = a.tokens, a.all_content, a.skip, gold.single_value
    found = []
    for ps in a.value_groups.values():
        t = tokens[all_content[ps[0]]]
        if t.kind in VALUE_KINDS and not values_equal(gold_tok, t) and not gold.accepts(t):
            found.extend(all_content[p] for p in ps if p >= skip)
    return sorted(found)


def range_rivals(s: RivalSearch) -> list[Mention]:
    """Other ranges of the gold range's sort ("5-6 hours" beside "10-12 hours", "3-2" beside "5-2")."""
    a, covered = s.a, s.covered
    tokens = a.tokens
    start, end = s.gold.value_range
    out = []
    for j in range(max(a.start, 1), len(tokens) - 1):
        t = tokens[j]
        if t.kind != WORD or t.value != "~":
            continue
        lo, hi = tokens[j - 1], tokens[j + 1]
        if lo.kind not in VALUE_KINDS or hi.kind != end.kind or (values_equal(start, lo) and values_equal(end, hi)):
            continue
        if any(s <= j <= e for s, e in covered):
            continue  # the gold itself, or a known candidate
        if (hi.kind == NUM and hi.unit != end.unit) or (hi.kind == DUR and hi.value[0] != end.value[0]):
            continue  # another quantity ("5-6 kg" beside "10-12 hours" is not a rival reading)
        out.append(Mention(a.snippet(j - 1, j + 1), "rival", j - 1, j + 1))
    return out


def _after_marker(tokens: list[Token], i: int) -> bool:
    """Does a sequence or hedge word come right before token i (soft words and commas aside)?"""
    k = i - 1
    while k >= 0 and (tokens[k].text in SOFT or tokens[k].text == ","):
        k -= 1
    return k >= 0 and tokens[k].text in SEQUENCE_OR_HEDGE


_CLASSES: dict[int, tuple[Gold, frozenset, tuple[frozenset, ...]]] = {}


def closed_classes(gold: Gold) -> tuple[frozenset, tuple[frozenset, ...]]:
    """The gold's words, and the closed kinds (weekdays, months) it names (cached by identity)."""
    known = _CLASSES.get(id(gold))
    if known is not None and known[0] is gold:
        return known[1], known[2]
    words = frozenset(t.value for alt in gold.alternatives for p in alt.parts for t in p.required if t.kind == WORD)
    classes = tuple(c for c in (WEEKDAYS, MONTHS) if words & c)
    if len(_CLASSES) > 50_000:
        _CLASSES.clear()
    _CLASSES[id(gold)] = (gold, words, classes)
    return words, classes


def closed_class_rivals(s: RivalSearch) -> list[Mention]:
    """Days of the week and months are values of a closed kind: when the gold names some, every other
    one the answer names competes with it ("Mondays, Tuesdays, ..., Sundays" for "Mondays and
    Wednesdays" is a sweep, not an answer)."""
    a, covered = s.a, s.covered
    words, classes = closed_classes(s.gold)
    if not classes:
        return []
    tokens = a.tokens
    starts = [s for s, _ in covered]
    out = []
    for i in a.content:
        t = tokens[i]
        if t.kind != WORD or t.value in words or not any(t.value in c for c in classes):
            continue
        k = bisect_right(starts, i) - 1
        if k >= 0 and covered[k][0] <= i <= covered[k][1]:
            continue
        if out and all(tokens[k].text in (",", "and", "&") for k in range(out[-1].last + 1, i)):
            # "Thursdays and Fridays": one value of several days, which one cue marks as a whole
            out[-1] = Mention(a.snippet(out[-1].first, i), "rival", out[-1].first, i)
            continue
        out.append(Mention(a.snippet(i, i), "rival", i, i))
    return out


def _word_rival_after(tokens: list[Token], j: int, step: int, gold_cover: set[int]) -> tuple[int, int] | None:
    """The unknown item on the far side of an "or" / "/" at index j (a span), if it names something."""
    k = j + step
    seen = 0
    while 0 <= k < len(tokens) and seen < 4:
        t = tokens[k]
        if t.kind == PUNCT:
            if t.text in CLAUSE_BREAK_PUNCT and t.text not in ("(", ")"):
                return None
            k += step
            continue
        if t.kind == WORD and (t.text in SOFT or t.text in NAME_HEDGES):
            k += step
            seen += 1
            continue
        if k in gold_cover or (t.kind == WORD and (t.text in NOT_A_RIVAL or t.text in PRONOUNS)) or t.kind == LABEL:
            return None
        return (k, k)
    return None


def disjunction_rivals(s: RivalSearch) -> list[Mention]:
    """Unknown items offered with the gold: "Portland or Seattle", "25/27", "25-30" (a range), outside
    the known candidates."""
    a, gold_spans, gold, value_gold = s.a, s.gold_spans, s.gold, s.value_gold
    tokens = a.tokens
    cover = {k for s, e in gold_spans for k in range(s, e + 1)}
    out: list[Mention] = []
    for first, last in gold_spans:
        for step, edge in ((1, last), (-1, first)):
            j, hops = edge + step, 0
            while 0 <= j < len(tokens) and hops < 3:
                t = tokens[j]
                if t.kind == PUNCT and t.text in CLAUSE_BREAK_PUNCT and t.text not in ("(", ")"):
                    break
                if (t.kind == WORD and t.text in ALTERNATIVE_WORDS) or (t.kind == PUNCT and t.text == "/"):
                    span = _word_rival_after(tokens, j, step, cover)
                    if span is not None:
                        r = tokens[span[0]]
                        # a unit alone after the value offers the same number in it ("25 minutes or seconds")
                        if not value_gold or (r.kind in VALUE_KINDS and not gold.accepts(r)) or (
                                step == 1 and gold.single_value is not None and other_unit(gold.single_value, r)):
                            out.append(Mention(a.snippet(*span), "rival", span[0], span[1], role="hedged",
                                               cue=t.text, anchor=(first, last)))
                    break
                if value_gold and t.kind == WORD and t.value == "~" and abs(j - edge) == 1:
                    # a range with the gold at one end ("25-30"); "from 55 to 39" is a change, not a range
                    other_i = j + step
                    low = min(first, other_i)
                    changed_from = low > 0 and tokens[low - 1].kind == WORD and tokens[low - 1].text == "from"
                    if not (changed_from and step == -1) and 0 <= other_i < len(tokens):
                        other = tokens[other_i]
                        if other.kind in VALUE_KINDS and other_i not in cover and not gold.accepts(other):
                            out.append(Mention(a.snippet(other_i, other_i), "rival", other_i, other_i,
                                               role="hedged", cue=RANGE_CUE, anchor=(first, last)))
                    break
                if t.kind in VALUE_KINDS or (t.kind == WORD and t.text not in SOFT):
                    hops += 1
                j += step
    return [r for r in out if not any(first <= r.first <= last for first, last in s.covered)]


def name_rivals(s: RivalSearch) -> list[Mention]:
    """When the source named no other candidate: the other names of a terse reply ("Chevy Malibu, Toyota
    Prius"), months and weekdays aside (a date beside the value, not another value): only names in the
    gold's place."""
    a, covered, question = s.a, s.covered, s.question
    cover = {k for s, e in covered for k in range(s, e + 1)}
    out = []
    for i, j in name_runs(a, question, listed=True):
        if any(k in cover for k in range(i, j + 1)):
            continue
        if all(a.tokens[k].value in MONTHS or a.tokens[k].value in WEEKDAYS for k in range(i, j + 1)):
            continue
        # only a name in the gold's place: an item of a list, or a name a cue speaks of ("Porto is current",
        # "previously Chevy Malibu", "Chevy Malibu now"); "Your sister Emily lives in Denver" names a person
        if not is_bare_item(a.tokens, i, j, frozenset()) and not _cue_beside(a.tokens, i, j) \
                and not _beside(a.tokens, i, j, cover):
            continue
        out.append(Mention(a.snippet(i, j), "rival", i, j))
    return out


def _beside(tokens: list[Token], i: int, j: int, cover: set[int]) -> bool:
    """Do tokens i..j stand right beside a known candidate, punctuation apart ("Prius + Malibu", "Prius\tMalibu")?"""
    for k, step in ((i - 1, -1), (j + 1, 1)):
        while 0 <= k < len(tokens) and tokens[k].kind == PUNCT and tokens[k].text not in SENTENCE_END:
            k += step
        if 0 <= k < len(tokens) and k in cover:
            return True
    return False


def _cue_beside(tokens: list[Token], i: int, j: int) -> bool:
    """Is the word just before tokens i..j, or just after (soft words apart), a cue other than a bare tense
    ("lives", "was")?"""
    for k, step in ((i - 1, -1), (j + 1, 1)):
        while 0 <= k < len(tokens) and tokens[k].kind == WORD and tokens[k].text in SOFT and tokens[k].text not in CUE_STARTS:
            k += step
        if 0 <= k < len(tokens) and tokens[k].kind == WORD and (
                tokens[k].text in COPULAS or any(
                    c.kind not in ("pasttense", "presenttense") for c in CUE_TABLE.get(tokens[k].text, ()))):
            return True
    return False


SEQUENCE_HINT = re.compile(r"\b(?:then|now|later|actually|afterwards|eventually|finally|from)\b|->|<-|=>|<=|\u2192|\u2190")


def sequence_rivals(s: RivalSearch) -> list[Mention]:
    """A name in sequence with the gold, in a short reply: "Lexington then Boston", "Boston -> Lexington",
    "Lexington (now Boston)", "from Lexington to Boston": another value of the same fact, whether or not
    the grader was told of it (which one is current is then the cues' business). With ``phrases`` (a
    terse reply to a source that named no other candidate) an uncapitalised phrase counts too: "under my
    bed, then a shoe rack"."""
    a, gold_spans, covered, question = s.a, s.gold_spans, s.covered, s.question
    phrases = s.terse_and_untold and not s.value_gold
    tokens, source = a.tokens, a.source
    cover = {k for s, e in covered for k in range(s, e + 1)}

    def skip(j: int, step: int) -> int:
        while 0 <= j < len(tokens) and tokens[j].text not in SEQUENCE_WORDS and tokens[j].text not in TO_WORDS and (
                tokens[j].kind == PUNCT and tokens[j].text != "\n\n" or tokens[j].kind == WORD and tokens[j].text in SOFT):
            j += step
        return j

    def name_at(j: int, step: int) -> Mention | None:
        run = []
        while 0 <= j < len(tokens) and j not in cover and tokens[j].kind == WORD and \
                source[tokens[j].start:tokens[j].start + 1].isupper() and tokens[j].text not in PRONOUNS \
                and tokens[j].text not in NOT_A_RIVAL and tokens[j].text not in SEQUENCE_WORDS and tokens[j].text not in CUE_STARTS:
            run.append(j)
            j += step
        if not run and phrases:
            return phrase_at(j, step)
        if not run:
            return None
        lo, hi = min(run), max(run)
        return Mention(a.snippet(lo, hi), "rival", lo, hi)

    def phrase_at(j: int, step: int) -> Mention | None:
        run = []
        while 0 <= j < len(tokens) and len(run) < 6 and j not in cover and tokens[j].kind != PUNCT \
                and tokens[j].text not in SEQUENCE_WORDS and tokens[j].text not in CUE_STARTS:
            run.append(j)
            j += step
        words = [tokens[k] for k in run if tokens[k].text not in SOFT]
        if not words or (tokens[run[0] if step == 1 else run[-1]].text in PRONOUNS) or all(
                w.text in NOT_A_RIVAL or w.value in question for w in words):
            return None
        lo, hi = min(run), max(run)
        return Mention(a.snippet(lo, hi), "rival", lo, hi)

    out: list[Mention] = []
    for first, last in gold_spans:
        j = skip(last + 1, 1)
        changed_from = first > 0 and tokens[first - 1].text == "from"
        if j < len(tokens) and (tokens[j].text in SEQUENCE_WORDS or (changed_from and tokens[j].text in TO_WORDS)):
            m = name_at(skip(j + 1, 1), 1)
            if m is not None:
                out.append(m)
        j = skip(first - 1, -1)
        if j >= 0 and (tokens[j].text in SEQUENCE_WORDS or tokens[j].text in TO_WORDS):
            m = name_at(skip(j - 1, -1), -1)
            if m is not None and (tokens[j].text in SEQUENCE_WORDS or (m.first > 0 and tokens[m.first - 1].text == "from")):
                out.append(m)
    return out


def _conjunct_rival(a: Answer, span: Span, gold_cover: set[int]) -> Mention | None:
    """"a yellow dress and a pair of earrings" / "Down Dog and Serenity Yoga" for a gold of one thing."""
    tokens = a.tokens
    # after: ", and X" up to the end of the clause
    j = span[1] + 1
    while j < len(tokens) and tokens[j].kind == PUNCT and tokens[j].text == ",":
        j += 1
    if j < len(tokens) and tokens[j].kind == WORD and tokens[j].text == "and":
        j += 1
        first = j
        words = 0
        while j < len(tokens) and words <= 4:
            t = tokens[j]
            if t.kind == PUNCT:
                break
            if (t.kind == WORD and (t.text in PRONOUNS or t.text in CLAUSE_BREAK_WORDS)) or j in gold_cover:
                words = 99
                break
            if not (t.kind == WORD and t.text in SOFT):
                words += 1
            j += 1
        if 0 < words <= 4 and (j >= len(tokens) or tokens[j].kind == PUNCT):
            return Mention(a.snippet(first, j - 1), "rival", first, j - 1, anchor=span)
    # before: "X and <gold>"
    j = span[0] - 1
    while j >= 0 and tokens[j].kind == WORD and tokens[j].text in SOFT and tokens[j].text not in PLACE_PREPOSITIONS:
        j -= 1
    if j < 0 or not (tokens[j].kind == WORD and tokens[j].text == "and"):
        return None
    j -= 1
    last = j
    words = 0
    while j >= 0 and words <= 4:
        t = tokens[j]
        if t.kind == PUNCT or (t.kind == WORD and t.text in SOFT):
            break
        if (t.kind == WORD and (t.text in PRONOUNS or t.text in CLAUSE_BREAK_WORDS)) or j in gold_cover:
            return None
        words += 1
        j -= 1
    if not 0 < words <= 4 or j < 0:
        return None
    return Mention(a.snippet(j + 1, last), "rival", j + 1, last, anchor=span)


def line_rivals(s: RivalSearch) -> list[Mention]:
    """Unknown names listed on their own, next to the gold: "Maui\\nOahu", "Maui; Oahu" (word golds)."""
    a, covered, gold_spans = s.a, s.covered, s.gold_spans
    tokens = a.tokens
    out = []
    for first, last in gold_spans:
        if not is_bare_item(tokens, first, last, frozenset()):
            continue
        for step, edge in ((1, last), (-1, first)):
            j = edge + step
            sep = None
            while 0 <= j < len(tokens) and tokens[j].kind == PUNCT and tokens[j].text in LINE_SEPARATORS:
                sep = tokens[j].text
                j += step
            if sep is None or not 0 <= j < len(tokens):
                continue
            # the item on the other side, up to the next separator
            k = j
            while 0 <= k + step < len(tokens) and not (tokens[k + step].kind == PUNCT and (
                    tokens[k + step].text in SEPARATOR_PUNCT or tokens[k + step].text in SENTENCE_END)):
                k += step
                if abs(k - j) > 4:
                    break
            i0, i1 = min(j, k), max(j, k)
            if abs(k - j) > 3 or any(s <= i0 <= e or s <= i1 <= e for s, e in covered):
                continue
            if tokens[i0].kind == WORD and tokens[i0].text not in HEADINGS and is_capitalised_name(a, i0, i1) \
                    and is_bare_item(tokens, i0, i1, frozenset()):
                out.append(Mention(a.snippet(i0, i1), "rival", i0, i1, anchor=(first, last)))
    return out


_OR_HINT = re.compile(r"\bor\b|/|\bvs\b|\bversus\b|\beither\b")


def _has_or(text: str) -> bool:
    """Could the text offer alternatives? (substring tests first: the pattern is slower on long text)"""
    return ("or" in text or "/" in text or "vs" in text or "either" in text) and _OR_HINT.search(text) is not None


_RANGE_HINT = re.compile(r"\d\s*(?:-|\bto\b|\bthrough\b)")


def conjunct_rivals(s: RivalSearch) -> list[Mention]:
    cover = {k for first, last in s.gold_spans for k in range(first, last + 1)}
    found = (_conjunct_rival(s.a, span, cover) for span in s.gold_spans)
    return [r for r in found if r is not None and not any(first <= r.first <= last for first, last in s.covered)]


def offers_alternatives(s: RivalSearch) -> bool:
    text = s.a.read_text
    return _has_or(text) or (s.value_gold and ("-" in text or " to " in text or "through" in text)
                             and _RANGE_HINT.search(text) is not None)


_STARTS = frozenset({".", "!", "?", "\n", "\n\n", ":", ";", '"', "("})
_COPULAS = COPULAS | STAYING_VERBS  # "Porto is current."


def namelike(t: Token, q_stems: frozenset[str]) -> bool:
    # a pronoun's contraction ("I'll", "You've") is the pronoun, however it is capitalised
    return (t.text.partition("'")[0] not in PRONOUNS and t.text not in CUE_STARTS and t.text not in NOT_NAMES
            and t.text not in ABSTAIN_TRIGGERS and t.value not in q_stems and not t.text.endswith("n't"))


def name_runs(a: Answer, q_stems: frozenset[str], *, beside_abstention: bool = False,
              listed: bool = False) -> Iterator[tuple[int, int]]:
    """Token spans of the names in the answer's conclusion (empty when its casing was lost).

    A sentence's first word is a name only when the run is several words, stands alone ("Taipei?"),
    or (``beside_abstention``) is offered beside an abstention ("Luna or unknown", "Luna, I don't know"),
    or (``listed``) is followed by a list joiner or a copula ("Malibu, Prius", "Malibu or Prius", "Porto is
    current")."""
    tokens, source = a.tokens, a.source
    if len(source) != len(a.text):
        return
    i, n = a.start, len(tokens)
    while i < n:
        t = tokens[i]
        if t.kind == WORD and source[t.start:t.start + 1].isupper() and namelike(t, q_stems):
            j = i
            while j + 1 < n:
                nxt = tokens[j + 1]
                if nxt.kind == WORD and source[nxt.start:nxt.start + 1].isupper() \
                        and source[tokens[j].end:nxt.start] == " ":  # a tab or two spaces part two names
                    j += 1
                elif nxt.text == "." and tokens[j].text in TITLES and j + 2 < n and tokens[j + 2].kind == WORD:
                    j += 1  # "Dr. Johnson": the title's full stop
                else:
                    break
            sentence_start = i == 0 or (tokens[i - 1].kind == PUNCT and tokens[i - 1].text in _STARTS
                                        and not (i > 1 and tokens[i - 2].text in TITLES))
            alone = j + 1 >= n or (tokens[j + 1].kind == PUNCT and tokens[j + 1].text in SENTENCE_END)
            item = listed and j + 1 < n and (tokens[j + 1].text in LIST_JOINERS or tokens[j + 1].text in _COPULAS) \
                and tokens[j].text not in DISCOURSE
            if (not sentence_start or j > i or alone or item or (beside_abstention and _beside_abstention(tokens, j))) \
                    and not (j + 1 < n and tokens[j + 1].kind == LABEL):
                yield i, j
            i = j
        i += 1


def _beside_abstention(tokens: list[Token], j: int) -> bool:
    """Is the word at j offered beside an abstention: "Luna or unknown", "Luna / not sure", "Luna, I don't
    know"? (A discourse word or an -ly adverb before a comma opens a sentence: "Sadly, I don't know".)"""
    if j + 2 >= len(tokens):
        return False
    joiner, after = tokens[j + 1].text, tokens[j + 2]
    word = tokens[j].text
    if joiner in JOINERS:
        return True
    if joiner not in (",", ";", "-", "\n") or word in DISCOURSE or (len(word) >= 6 and word.endswith("ly")):
        return False
    return after.kind == WORD and (after.text in ABSTAIN_TRIGGERS or after.text in UNSURE_SUBJECTS)


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
    # read by every finder's test of whether it applies, so computed once:
    value_gold: bool = field(init=False)  # the gold is one value ("47", "6:30 pm")
    single_word_gold: bool = field(init=False)  # one thing named by words ("Thrive Market"), not a value or a list
    whole_short_reply: bool = field(init=False)  # a short reply read whole (no reasoning before it)
    terse_and_untold: bool = field(init=False)  # a terse reply to a source that named no other candidate

    def __post_init__(self) -> None:
        alts, a = self.gold.alternatives, self.a
        value_gold = self.gold.single_value is not None
        object.__setattr__(self, "value_gold", value_gold)
        object.__setattr__(self, "single_word_gold", bool(alts) and len(alts[0].parts) == 1 and not value_gold
                           and not alts[0].parts[0].keywords)
        object.__setattr__(self, "whole_short_reply", len(a.text) <= SHORT_REPLY and len(a.source) == len(a.text))
        object.__setattr__(self, "terse_and_untold", not self.told and len(a.text) <= TERSE_REPLY)

























































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

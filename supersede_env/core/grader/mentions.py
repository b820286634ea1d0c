"""Every candidate value the answer mentions, each with the role the answer gives it.

Candidates are the gold's parts, the episode's superseded values, its decoy values, a choice
question's other option, and *rivals*: values the grader was not told about but that compete with
the gold (another time of day for a time, another bare number listed next to a count, an unknown
name offered with "or" or in sequence with the gold, and, when the source named no other candidate,
every other name or count of a terse reply: :mod:`supersede_env.core.grader.names`). :func:`find_mentions` finds them; :func:`assign_roles` gives each one role,
by the same cues whichever value it is (:mod:`supersede_env.core.grader.cues`):

``current`` (asserted), ``past`` (history), ``negated``, ``other`` (someone else's), ``hypothetical``,
``hedged``.

Direction comes from sequences: a mention marked ``now`` or ``next`` ("now Y", "then Y", "-> Y",
"from X to Y") turns the unmarked mentions before it into history, and a tense-only mark ("was X")
decides only between rivals (see :mod:`supersede_env.core.grader.decide`). Every step is linear in the
answer's length: cues bind only within a few tokens, and each mention is demoted at most once.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from functools import lru_cache

from supersede_env.core.grader.answer import SHORT_REPLY, TERSE_REPLY, Answer, Span
from supersede_env.core.grader.gold import Gold, Pattern, parse_value
from supersede_env.core.grader.labels import is_year, table_cells, year_label, year_labels
from supersede_env.core.grader.lexicon import (
    BOUND_BEFORE,
    CHANGE_VERBS,
    CLAUSE_BREAK_PUNCT,
    CLAUSE_BREAK_WORDS,
    COPULAS,
    CUE_STARTS,
    FUNCTION_WORDS,
    GENERIC,
    META_WORDS,
    MONTHS,
    NOT_A_RIVAL,
    OPERATORS,
    PRONOUNS,
    SENTENCE_END,
    SOFT,
    WEEKDAYS,
    Cue,
    cue_table,
)
from supersede_env.core.grader.names import name_runs
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
    stem,
    values_equal,
)

__all__ = ["Mention", "CueReading", "find", "find_mentions", "assign_roles", "is_bare_item", "ROLES", "OFFERED",
           "BOUND_CUE"]

ROLES = ("current", "past", "negated", "other", "planned", "hypothetical", "hedged")
OFFERED = frozenset({"current", "hedged", "hypothetical"})  # roles that put a value forward as the answer
# "planned": a plan or wish ("you'd like a Kia", "thinking about Denver"), never the fact asked about
_PRECEDENCE = {"negated": 0, "past": 1, "other": 2, "planned": 3, "hypothetical": 4, "hedged": 5, "current": 6}
_ROLE_OF_CUE = {"neg": "negated", "past": "past", "other": "other", "hypo": "hypothetical", "hedge": "hedged",
                "softhedge": "hedged", "approx": "hedged"}


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


# ---------------------------------------------------------------------------------------------
# Finding patterns
# ---------------------------------------------------------------------------------------------
def _tok_equal(g: Token, a: Token) -> bool:
    if g.kind == WORD:
        return a.kind == WORD and a.value == g.value
    return a.kind in VALUE_KINDS and values_equal(g, a)


def find(pattern: Pattern, a: Answer) -> list[Span]:
    """Spans of the answer's matchable tokens where ``pattern`` occurs (callers do not modify the list)."""
    key = id(pattern)
    known = a.find_memo.get(key)
    if known is not None and known[0] is pattern:
        return known[1]
    spans = _find_seq(pattern.required, pattern, a)
    if not spans and pattern.fallback:
        spans = _find_seq(pattern.fallback, pattern, a)
    a.find_memo[key] = (pattern, spans)
    return spans


def _adjacent(a: Answer, i: int, j: int) -> bool:
    """Only soft words between tokens i and j: no punctuation, operator or markup ("~~124 points~~ 132")."""
    tokens = a.tokens
    return all(tokens[k].kind == WORD and tokens[k].text in SOFT for k in range(i + 1, j)) and not any(
        ch in "*_~`#>" for ch in a.text[tokens[i].end:tokens[j].start])


def _find_seq(req: tuple[Token, ...], pattern: Pattern, a: Answer) -> list[Span]:
    if not req:
        return []
    tokens, content = a.tokens, a.content
    if pattern.keywords:
        hits = {}
        for g in req:
            pos = a.positions(g)
            if pos:
                hits[g.value] = content[pos[0]]
        if not hits or len(hits) < pattern.min_keywords or not pattern.must_keywords <= hits.keys():
            return []
        return [(min(hits.values()), max(hits.values()))]
    spans = []
    n = len(content)
    gap_allowed = 1 if (not pattern.is_value and len(req) >= 3) else 0
    for p in a.positions(req[0]):
        k, q, gaps = 1, p + 1, 0
        while k < len(req) and q < n:
            tok = tokens[content[q]]
            if _tok_equal(req[k], tok):
                k += 1
                q += 1
            elif pattern.is_value and tok.kind == WORD and tok.value in pattern.optional:
                q += 1
            elif gaps < gap_allowed and tok.kind == WORD:
                gaps += 1
                q += 1
            else:
                break
        if k == len(req):
            if pattern.is_value and pattern.optional:
                # the value's own words right around it belong to the mention ("Pixel 6a", "132 points")
                while p > 0 and tokens[content[p - 1]].kind == WORD and tokens[content[p - 1]].value in pattern.optional \
                        and _adjacent(a, content[p - 1], content[p]):
                    p -= 1
                while q < n and tokens[content[q]].kind == WORD and tokens[content[q]].value in pattern.optional \
                        and _adjacent(a, content[q - 1], content[q]):
                    q += 1
            first, last = content[p], content[q - 1]
            surface = _surface_words(pattern)  # the candidate's own soft words: "about" of "about an hour"
            while first > 0 and tokens[first - 1].kind == WORD and tokens[first - 1].text in surface:
                first -= 1
            spans.append((first, last))
    return spans


_SURFACE: dict[int, tuple[Pattern, frozenset[str]]] = {}


def _surface_words(pattern: Pattern) -> frozenset[str]:
    """The candidate's own soft words (cached by identity, like :func:`_own_words`)."""
    known = _SURFACE.get(id(pattern))
    if known is not None and known[0] is pattern:
        return known[1]
    words = frozenset(w for w in re.findall(r"[a-z']+", pattern.text.lower()) if w in SOFT)
    if len(_SURFACE) > 50_000:
        _SURFACE.clear()
    _SURFACE[id(pattern)] = (pattern, words)
    return words


# ---------------------------------------------------------------------------------------------
# Finding mentions
# ---------------------------------------------------------------------------------------------
def _coverage(m: Mention, own: dict[int, frozenset], tokens: list[Token], first: int, last: int) -> int:
    """How many tokens of first..last the mention's own pattern accounts for."""
    words = own[id(m)]
    return sum(1 for t in tokens[first:last + 1] if t.kind != PUNCT and (t.kind != WORD or t.value in words))


_KIND_ORDER = {"gold": 0, "stale": 1, "decoy": 2, "option": 3, "rival": 4}  # the same words found as two


def _resolve_nesting(mentions: list[Mention], own: dict[int, frozenset], tokens: list[Token]) -> list[Mention]:
    """Of two candidates found one inside the other, keep the one the text is about: "Kia" inside "Kia
    Sorento" is the Sorento, "Gold" inside "Premier Gold" is Premier Gold; but an outer match that
    only spans the inner one through a skipped word ("Wednesdays and Fridays" across "Wednesdays,
    Thursdays and Fridays") is no match."""
    if len(mentions) < 2:
        return mentions
    mentions.sort(key=lambda m: (m.first, -m.last))
    dropped: set[int] = set()
    open_outers: list[Mention] = []  # mentions whose span is still open at the current position
    for m in mentions:  # pass 1: an outer match that skips over another candidate is spurious
        if m.loose:
            continue
        open_outers = [o for o in open_outers if o.last >= m.first]
        for o in open_outers:
            if m.last <= o.last and m.text != o.text and _coverage(o, own, tokens, m.first, m.last) == 0:
                dropped.add(id(o))
        open_outers.append(m)
    outer: Mention | None = None
    for m in mentions:  # pass 2: the outer candidate explains what lies inside it
        if m.loose or id(m) in dropped:
            continue
        if outer is not None and m.last <= outer.last and m.text != outer.text:
            mine, theirs = _coverage(m, own, tokens, m.first, m.last), _coverage(outer, own, tokens, m.first, m.last)
            if (m.first, m.last) == (outer.first, outer.last) and (
                    mine > theirs or (mine == theirs and _KIND_ORDER[m.kind] < _KIND_ORDER[outer.kind])):
                dropped.add(id(outer))
                outer = m
            else:
                dropped.add(id(m))
            continue
        if outer is None or m.last > outer.last:
            outer = m
    return sorted((m for m in mentions if id(m) not in dropped), key=lambda m: (m.first, m.last))


def _comparable(gold_tok: Token, t: Token, strict: bool) -> bool:
    """Is value ``t`` of the gold's sort, so a rival answer when it differs from the gold?"""
    gk = gold_tok.kind
    if gk in (TIME, CLOCK):
        return t.kind == TIME or (t.kind == CLOCK and bool(t.value[0]))
    if gk in (DATE, FREQ):
        return t.kind == gk
    if gk == DUR:  # "25 minutes and 50 seconds" vs "27:12" (a clock reading of a duration)
        return (t.kind == DUR and (strict or t.value[0] == gold_tok.value[0])) or (
            t.kind == CLOCK and gold_tok.value[0] == "s" and bool(t.value[1]))
    if gk == NUM:
        if gold_tok.unit is not None:
            return t.kind == NUM and (t.unit == gold_tok.unit or (strict and t.unit is None))
        return strict and t.kind == DUR
    return False


_SEPARATOR_PUNCT = frozenset({",", ";", "/", "\n", "\n\n", "&", "|"})
_SEPARATOR_WORDS = frozenset({"and", "or", "vs", "versus", "either", "but"})


def is_bare_item(tokens: list[Token], i: int, j: int, units: frozenset) -> bool:
    """Do tokens i..j stand alone between list separators ("15; 18", "Maui\\nOahu", "10, 11, 12")?"""
    for step, edge in ((-1, i), (1, j)):
        k = edge + step
        while 0 <= k < len(tokens):
            t = tokens[k]
            if t.kind == PUNCT:
                if t.text in _SEPARATOR_PUNCT or t.text in SENTENCE_END or t.text in ("(", ")", "-", ":"):
                    break
                if t.text in ("*", '"', "'"):
                    k += step
                    continue
                return False
            if t.kind == WORD and (t.text in _SEPARATOR_WORDS):
                break
            if t.kind == LABEL or (t.kind == WORD and (t.text in SOFT or t.value in units)):
                k += step
                continue
            return False
    return True


def _value_rivals(a: Answer, gold: Gold, covered: list[Span], strict: bool, question: frozenset[str],
                  gold_spans: list[Span], told: bool = True) -> list[Mention]:
    """Other values of the gold's sort in the conclusion: rivals whatever their role.

    Typed values (times, dates, money, durations, frequencies) compete wherever they stand. A bare
    count competes when it stands as a list item ("15; 18"), beside another number ("42 43 44"), or
    counts the same thing ("47 plants ... 62 plants") in strict mode, or in a short reply after a sequence
    or hedge word ("47 then 52", "47, maybe 50") or when the source ``told`` of no other value (a reasoned
    answer counts other things too); a year is a date, not a count."""
    gold_tok = gold.single_value
    if gold_tok is None:
        return []
    tokens = a.tokens
    units = gold.alternatives[0].parts[0].optional
    n = len(tokens)
    nouns: frozenset | None = None  # what the gold counts (built when a strict count needs it)
    starts = [s for s, _ in covered]
    out = []
    short = len(a.text) <= SHORT_REPLY
    terse = len(a.text) <= TERSE_REPLY
    skip, all_content = a.skip, a.all_content
    for p in a.values:  # value tokens only (positions in all_content), in the conclusion
        if p < skip:
            continue
        i = all_content[p]
        t = tokens[i]
        if t.kind not in VALUE_KINDS or values_equal(gold_tok, t) or gold.accepts(t):
            continue
        k = bisect_right(starts, i) - 1
        if k >= 0 and covered[k][0] <= i <= covered[k][1]:
            continue  # part of a known candidate
        if gold_tok.kind == NUM and t.kind == NUM and t.unit == gold_tok.unit:
            if is_year(t) and not is_year(gold_tok):
                continue
            beside_number = (i > 0 and tokens[i - 1].kind == NUM) or (i + 1 < n and tokens[i + 1].kind == NUM)
            # "47 then 52", "47, maybe 50"; in a short reply to a source that named no other value, every count
            same_count = strict or (short and _after_marker(tokens, i)) or (terse and not told)
            if same_count and nouns is None:
                # its unit words, the question's words, the word after the gold in the answer
                nouns = units | question | {tokens[e + 1].value for _, e in gold_spans
                                            if e + 1 < n and tokens[e + 1].kind == WORD}
            after = tokens[i + 1] if i + 1 < n else None
            counts_same = same_count and (after is None or after.kind != WORD or after.value in nouns or (
                not told and (after.text in SOFT or after.text in _LINKS or after.text in _CUES)))
            if is_bare_item(tokens, i, i, units) or beside_number or counts_same:
                out.append(Mention(a.snippet(i, i), "rival", i, i))
        elif _comparable(gold_tok, t, strict):
            out.append(Mention(a.snippet(i, i), "rival", i, i))
    return out


def _range_rivals(a: Answer, gold_range: tuple[Token, Token], covered: list[Span]) -> list[Mention]:
    """Other ranges of the gold range's sort ("5-6 hours" beside "10-12 hours", "3-2" beside "5-2")."""
    tokens = a.tokens
    start, end = gold_range
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


# words after a count that do not say it counts something else ("from 62 to 47", "62 then 47", "62 is old")
_LINKS = COPULAS | {"to", "or", "and", "then", "before", "previously", "earlier", "instead", "but", "not"}
_SEQUENCE_OR_HEDGE = frozenset({"then", "later", "now", "actually", "maybe", "perhaps", "possibly", "probably",
                                "->", "<-"})


def _after_marker(tokens: list[Token], i: int) -> bool:
    """Does a sequence or hedge word come right before token i (soft words and commas aside)?"""
    k = i - 1
    while k >= 0 and (tokens[k].text in SOFT or tokens[k].text == ","):
        k -= 1
    return k >= 0 and tokens[k].text in _SEQUENCE_OR_HEDGE


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
        if t.kind == WORD and (t.text in SOFT or t.text in ("maybe", "possibly", "perhaps", "even", "either")):
            k += step
            seen += 1
            continue
        if k in gold_cover or (t.kind == WORD and (t.text in NOT_A_RIVAL or t.text in PRONOUNS)) or t.kind == LABEL:
            return None
        return (k, k)
    return None


def _disjunction_rivals(a: Answer, gold_spans: list[Span], gold: Gold, value_gold: bool) -> list[Mention]:
    """Unknown items offered with the gold: "Portland or Seattle", "25/27", "25-30" (a range)."""
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
                if (t.kind == WORD and t.text in ("or", "either", "vs", "versus")) or (t.kind == PUNCT and t.text == "/"):
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
                                               role="hedged", cue="a range", anchor=(first, last)))
                    break
                if t.kind in VALUE_KINDS or (t.kind == WORD and t.text not in SOFT):
                    hops += 1
                j += step
    return out


def _name_rivals(a: Answer, covered: list[Span], question: frozenset[str], strict: bool) -> list[Mention]:
    """When the source named no other candidate: the other names of a terse reply ("Chevy Malibu, Toyota
    Prius"), months and weekdays aside (a date beside the value, not another value). Strict mode (the
    value alone) takes every name; official mode only names in the gold's place."""
    cover = {k for s, e in covered for k in range(s, e + 1)}
    out = []
    for i, j in name_runs(a, question, listed=True):
        if any(k in cover for k in range(i, j + 1)):
            continue
        if all(a.tokens[k].value in MONTHS or a.tokens[k].value in WEEKDAYS for k in range(i, j + 1)):
            continue
        # only a name in the gold's place: an item of a list, or a name a cue speaks of ("Porto is current",
        # "previously Chevy Malibu", "Chevy Malibu now"); "Your sister Emily lives in Denver" names a person
        if not strict and not is_bare_item(a.tokens, i, j, frozenset()) and not _cue_beside(a.tokens, i, j) \
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
        while 0 <= k < len(tokens) and tokens[k].kind == WORD and tokens[k].text in SOFT and tokens[k].text not in _CUES:
            k += step
        if 0 <= k < len(tokens) and tokens[k].kind == WORD and (
                tokens[k].text in COPULAS or any(
                    c.kind not in ("pasttense", "presenttense") for c in _CUES.get(tokens[k].text, ()))):
            return True
    return False


_SEQUENCE_HINT = re.compile(r"\b(?:then|now|later|actually|afterwards|eventually|finally|from)\b|->|<-|=>|<=|\u2192|\u2190")
_SEQUENCE = frozenset({"then", "now", "later", "actually", "->", "<-", "afterwards", "eventually", "finally"})


def _sequence_rivals(a: Answer, gold_spans: list[Span], covered: list[Span], question: frozenset[str], *,
                     phrases: bool = False) -> list[Mention]:
    """A name in sequence with the gold, in a short reply: "Lexington then Boston", "Boston -> Lexington",
    "Lexington (now Boston)", "from Lexington to Boston": another value of the same fact, whether or not
    the grader was told of it (which one is current is then the cues' business). With ``phrases`` (a
    terse reply to a source that named no other candidate) an uncapitalised phrase counts too: "under my
    bed, then a shoe rack"."""
    tokens, source = a.tokens, a.source
    cover = {k for s, e in covered for k in range(s, e + 1)}

    def skip(j: int, step: int) -> int:
        while 0 <= j < len(tokens) and tokens[j].text not in _SEQUENCE and tokens[j].text not in _TO_WORDS and (
                tokens[j].kind == PUNCT and tokens[j].text != "\n\n" or tokens[j].kind == WORD and tokens[j].text in SOFT):
            j += step
        return j

    def name_at(j: int, step: int) -> Mention | None:
        run = []
        while 0 <= j < len(tokens) and j not in cover and tokens[j].kind == WORD and \
                source[tokens[j].start:tokens[j].start + 1].isupper() and tokens[j].text not in PRONOUNS \
                and tokens[j].text not in NOT_A_RIVAL and tokens[j].text not in _SEQUENCE and tokens[j].text not in _CUES:
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
                and tokens[j].text not in _SEQUENCE and tokens[j].text not in _CUES:
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
        if j < len(tokens) and (tokens[j].text in _SEQUENCE or (changed_from and tokens[j].text in _TO_WORDS)):
            m = name_at(skip(j + 1, 1), 1)
            if m is not None:
                out.append(m)
        j = skip(first - 1, -1)
        if j >= 0 and (tokens[j].text in _SEQUENCE or tokens[j].text in _TO_WORDS):
            m = name_at(skip(j - 1, -1), -1)
            if m is not None and (tokens[j].text in _SEQUENCE or (m.first > 0 and tokens[m.first - 1].text == "from")):
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
    while j >= 0 and tokens[j].kind == WORD and tokens[j].text in SOFT and tokens[j].text not in ("in", "on", "at", "of"):
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


def _is_capitalised_name(a: Answer, i: int, j: int) -> bool:
    surface = a.source[a.tokens[i].start:a.tokens[j].end]
    return surface[:1].isupper() and len(a.source) == len(a.text)


# labels, not names: contract fields, and the old/new labels of a table's rows ("| Old | Denver |")
_HEADINGS = frozenset("""answer final status evidence missing note notes summary conclusion result old new previous
    current before now former latest updated earlier original""".split())


def _line_rivals(a: Answer, covered: list[Span], gold_spans: list[Span]) -> list[Mention]:
    """Unknown names listed on their own, next to the gold: "Maui\\nOahu", "Maui; Oahu" (word golds)."""
    tokens = a.tokens
    out = []
    for first, last in gold_spans:
        if not is_bare_item(tokens, first, last, frozenset()):
            continue
        for step, edge in ((1, last), (-1, first)):
            j = edge + step
            sep = None
            while 0 <= j < len(tokens) and tokens[j].kind == PUNCT and tokens[j].text in (";", "\n", "\n\n", "/", "|"):
                sep = tokens[j].text
                j += step
            if sep is None or not 0 <= j < len(tokens):
                continue
            # the item on the other side, up to the next separator
            k = j
            while 0 <= k + step < len(tokens) and not (tokens[k + step].kind == PUNCT and (
                    tokens[k + step].text in _SEPARATOR_PUNCT or tokens[k + step].text in SENTENCE_END)):
                k += step
                if abs(k - j) > 4:
                    break
            i0, i1 = min(j, k), max(j, k)
            if abs(k - j) > 3 or any(s <= i0 <= e or s <= i1 <= e for s, e in covered):
                continue
            if tokens[i0].kind == WORD and tokens[i0].text not in _HEADINGS and _is_capitalised_name(a, i0, i1) \
                    and is_bare_item(tokens, i0, i1, frozenset()):
                out.append(Mention(a.snippet(i0, i1), "rival", i0, i1, anchor=(first, last)))
    return out


_OR_HINT = re.compile(r"\bor\b|/|\bvs\b|\bversus\b|\beither\b")


def _has_or(text: str) -> bool:
    """Could the text offer alternatives? (substring tests first: the pattern is slower on long text)"""
    return ("or" in text or "/" in text or "vs" in text or "either" in text) and _OR_HINT.search(text) is not None
_RANGE_HINT = re.compile(r"\d\s*(?:-|\bto\b|\bthrough\b)")


_OWN_WORDS: dict[int, tuple[Pattern, frozenset]] = {}


def _own_words(pattern: Pattern) -> frozenset:
    """The values a pattern is made of (cached by identity: patterns come from lru-cached parses)."""
    known = _OWN_WORDS.get(id(pattern))
    if known is not None and known[0] is pattern:
        return known[1]
    words = frozenset(t.value for t in pattern.required) | pattern.optional
    if len(_OWN_WORDS) > 50_000:
        _OWN_WORDS.clear()
    _OWN_WORDS[id(pattern)] = (pattern, words)
    return words


_LEET = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "8": "b", "l": "i", "@": "a",
                       "$": "s", "|": "i", "!": "i"})
_NOT_ALNUM = re.compile(r"[\W_]+")


def _skeleton(text: str) -> str:
    """Letters and digits only, leetspeak folded: what is left of "C.h.3.v.y" or "Ch3vy M4l1bu"."""
    return _NOT_ALNUM.sub("", text.lower().translate(_LEET))


@lru_cache(maxsize=8192)
def _value_skeleton(value: str) -> str | None:
    """A known value's :func:`_skeleton`, when it is long and lettered enough to look for in disguise
    (five characters or more, three of them letters); cached by value, never by answer."""
    rival = _skeleton(value)
    return rival if len(rival) >= 5 and sum(ch.isalpha() for ch in rival) >= 3 else None


def _disguised(a: Answer, known: list[tuple[str, str]], gold: Gold, covered: list[Span],
               found: dict[str, int]) -> list[Mention]:
    """Known rivals the answer names in a disguise or in part: spelled with dots, spaces or leetspeak
    ("C.h.e.v.y M.a.l.i.b.u", "Ch3vy", "ChevyMalibu"), or by a distinctive word of their name alone
    ("Chevy" for "Chevy Malibu"). Only names of five letters or more, and never inside the gold."""
    text = a.text
    gold_words = _closed_classes(gold)[0]
    out: list[Mention] = []
    taken = list(covered)

    def add(kind: str, value: str, first: int, last: int) -> None:
        if any(s <= last and first <= e for s, e in taken):
            return  # found as itself, or inside another candidate or the gold
        taken.append((first, last))
        out.append(Mention(value, kind, first, last, cue="disguised"))

    skeleton: str | None = None
    gold_skeletons: list[str] | None = None
    for kind, value in known:
        rival = _value_skeleton(value)
        if rival is None:
            continue
        if skeleton is None:
            skeleton = _skeleton(text[a.start_char:])  # one pass in C; the character map is built only for a hit
        if rival not in skeleton:
            continue
        if skeleton.count(rival) <= found.get(value, 0):
            continue  # every occurrence is a plain mention, found already
        if gold_skeletons is None:
            gold_skeletons = [_skeleton(alt.text) for alt in gold.alternatives]
        if any(rival in g for g in gold_skeletons):
            continue
        owner = _skeleton_owners(a)
        pos = skeleton.find(rival)
        while pos != -1:
            add(kind, value, owner[pos], owner[pos + len(rival) - 1])
            pos = skeleton.find(rival, pos + 1)
    for kind, value in known:
        for word, surface in _distinctive_words(value):
            if word in gold_words:
                continue
            for p in a.words.get(word, ()):
                i = a.all_content[p]
                if i >= a.start and a.tokens[i].text == surface:
                    add(kind, value, i, i)
    return out


def _skeleton_owners(a: Answer) -> list[int]:
    """The token index of each character of the conclusion's skeleton (same characters, same order)."""
    owner: list[int] = []
    text, tokens = a.text, a.tokens
    for i in range(a.start, len(tokens)):
        t = tokens[i]
        owner.extend([i] * len(_NOT_ALNUM.sub("", text[t.start:t.end].lower().translate(_LEET))))
    return owner


@lru_cache(maxsize=4096)
def _distinctive_words(value: str) -> tuple[tuple[str, str], ...]:
    """The capitalised words of a several-word name that name it alone ("Chevy" of "Chevy Malibu"), as
    (stem, lower-case spelling)."""
    words = re.findall(r"[A-Za-z][A-Za-z'-]+", value)
    if len(words) < 2:
        return ()
    out = []
    for w in words:
        if w[0].isupper() and len(w) >= 4 and w.lower() not in SOFT:
            stemmed = stem(w.lower())
            if stemmed not in GENERIC and stemmed not in META_WORDS:  # "Note" of "Redmi Note 13" is a word too
                out.append((stemmed, w.lower()))
    return tuple(out)


_CLASSES: dict[int, tuple[Gold, frozenset, tuple[frozenset, ...]]] = {}


def _closed_classes(gold: Gold) -> tuple[frozenset, tuple[frozenset, ...]]:
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


def _closed_class_rivals(a: Answer, gold: Gold, covered: list[Span]) -> list[Mention]:
    """Days of the week and months are values of a closed kind: when the gold names some, every other
    one the answer names competes with it ("Mondays, Tuesdays, ..., Sundays" for "Mondays and
    Wednesdays" is a sweep, not an answer)."""
    words, classes = _closed_classes(gold)
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


def find_mentions(a: Answer, gold: Gold, stale: tuple[str, ...], decoys: tuple[str, ...], strict: bool,
                  question: frozenset[str] = frozenset()) -> list[Mention]:
    """Every candidate mention in the answer's conclusion, in text order (roles not yet assigned)."""
    mentions: list[Mention] = []
    own: dict[int, frozenset] = {}

    def add(pattern: Pattern, kind: str, text: str, part: tuple[int, int] | None = None) -> None:
        spans = find(pattern, a)
        if not spans:
            return
        words = _own_words(pattern)
        for first, last in spans:
            m = Mention(text, kind, first, last, part, loose=pattern.keywords)
            own[id(m)] = words
            mentions.append(m)

    for ai, alt in enumerate(gold.alternatives):
        for pi, part in enumerate(alt.parts):
            add(part, "gold", part.text, (ai, pi))
    if gold.choice is not None:
        add(gold.choice.rejected, "option", gold.choice.rejected.text)
    for kind, values in (("stale", stale), ("decoy", decoys)):
        for value in values:
            for pattern in parse_value(str(value)):
                add(pattern, kind, str(value))
    mentions = _resolve_nesting(mentions, own, a.tokens)
    if stale or decoys:
        known = [(kind, str(v)) for kind, values in (("stale", stale), ("decoy", decoys)) for v in values]
        found: dict[str, int] = {}
        for m in mentions:
            found[m.text] = found.get(m.text, 0) + 1
        mentions += _disguised(a, known, gold, [(m.first, m.last) for m in mentions if not m.loose], found)
        mentions.sort(key=lambda m: (m.first, m.last))
    covered = [(m.first, m.last) for m in mentions if not m.loose]
    gold_spans = [(m.first, m.last) for m in mentions if m.kind == "gold" and not m.loose]
    value_gold = gold.single_value is not None
    if value_gold:
        rivals = _value_rivals(a, gold, covered, strict, question, gold_spans, bool(stale or decoys))
    else:
        rivals = _range_rivals(a, gold.value_range, covered) if gold.value_range is not None else []
    if _closed_classes(gold)[1]:
        rivals += _closed_class_rivals(a, gold, covered)
    text = a.text
    if gold_spans:
        if _has_or(text) or (value_gold and ("-" in text or " to " in text or "through" in text)
                             and _RANGE_HINT.search(text)):
            rivals += [r for r in _disjunction_rivals(a, gold_spans, gold, value_gold)
                       if not any(s <= r.first <= e for s, e in covered)]
        single_part = bool(gold.alternatives) and len(gold.alternatives[0].parts) == 1
        if single_part and not value_gold and not gold.alternatives[0].parts[0].keywords:
            if " and " in text:
                cover = {k for s, e in gold_spans for k in range(s, e + 1)}
                for span in gold_spans:
                    r = _conjunct_rival(a, span, cover)
                    if r is not None and not any(s <= r.first <= e for s, e in covered):
                        rivals.append(r)
            if any(ch in text for ch in ";\n/|"):
                rivals += _line_rivals(a, covered, gold_spans)
        if len(text) <= SHORT_REPLY and len(a.source) == len(text):
            untold = not stale and not decoys and len(text) <= TERSE_REPLY
            if _SEQUENCE_HINT.search(text) is not None:
                rivals += _sequence_rivals(a, gold_spans, covered, question, phrases=untold and not value_gold)
            if untold and not value_gold:
                rivals += _name_rivals(a, covered, question, strict)
    if rivals:
        # the tightest reading of each place wins ("Chevy Malibu" over the line "Chevy Malibu is outdated")
        taken: set[int] = set()
        for r in sorted(rivals, key=lambda r: (r.last - r.first, r.first)):
            if not any(k in taken for k in range(r.first, r.last + 1)):
                taken.update(range(r.first, r.last + 1))
                mentions.append(r)
        mentions.sort(key=lambda m: (m.first, m.last))
    return mentions


# ---------------------------------------------------------------------------------------------
# Roles
# ---------------------------------------------------------------------------------------------
_CUES = cue_table()
# the table by its first word (one-word cues) and by its first two words (longer ones, longest first)
_SINGLE = {c.words[0]: c for cues in _CUES.values() for c in cues if len(c.words) == 1}
_SINGLE_WITHOUT_TENSES = {w: c for w, c in _SINGLE.items() if c.kind not in ("pasttense", "presenttense")}
_PAIRED: dict[tuple[str, str], list[Cue]] = {}
for _cues_of_word in _CUES.values():
    for _cue in _cues_of_word:  # already longest first
        if len(_cue.words) > 1:
            _PAIRED.setdefault(_cue.words[:2], []).append(_cue)
_NOT_CUE = Cue(("n't",), "neg", "fwd")
_WINDOW = {"neg": 3, "past": 3, "hypo": 4, "other": 3, "hedge": 4, "softhedge": 4, "approx": 4, "now": 3, "next": 3,
           "pasttense": 2, "presenttense": 2}
_BACK_WINDOW = 2  # "Denver, previously" / "Denver (previously)": a cue after a value sits right after it
_COMPARATIVES = frozenset("more less fewer higher lower longer shorter earlier later bigger smaller".split())
_TIGHT = frozenset({("from",), ("ex",), ("after",)})  # bind only to the value right after them ("from Denver")
# approximations hedge only the value they touch ("about 47"), not "about the car: ..."
_APPROX = frozenset({(w,) for w in ("about", "around", "roughly", "approximately", "circa", "nearly", "almost",
                                     "approx", "approximate", "estimated")}
                    | {("at", "least"), ("at", "most"), ("up", "to"), ("an", "estimated"), ("est", ".")})
# corrections start a new clause ("Denver - actually, Portland"); "is actually Portland" is emphasis
_CORRECTIONS = frozenset({("actually",), ("wait",), ("no", "wait"), ("i", "mean"), ("correction",), ("or", "rather"),
                          ("scratch", "that"), ("make", "that")})
_FRAME_KINDS = frozenset({"past", "hypo", "other"})
_CLAUSE_FINAL = frozenset({("before",), ("earlier",)})  # adverbs only at the end of a clause
_TO_WORDS = frozenset({"to", "into"})


@dataclass(slots=True)
class CueReading:
    """Where the roles found cues in an answer (token positions), and which of them qualified no
    mention: the official reader's accounting reads those as speaking of the value beside them."""

    matched: set[int]
    unbound: set[int]
    governed: set[int] = field(default_factory=set)  # words a cue governs ("not Hawaii", "thinking about a Kia")


@dataclass(slots=True)
class _CueHit:
    cue: Cue
    first: int
    last: int


_NEAR = 14  # tokens: no cue binds farther than this from its mention


def _cue_hits_near(a: Answer, mentions: list[Mention], inside: set[int], tenses: bool) -> list[_CueHit]:
    """The cues within reach of some mention (windows around the mentions), none before the
    conclusion's start ("The answer would be: X" does not make X hypothetical). Only the tokens the
    reading marked as possible cue starts are tried."""
    tokens, positions = a.tokens, a.cues
    windows: list[tuple[int, int]] = []
    for m in mentions:
        lo, hi = max(a.start, m.first - _NEAR), m.last + _NEAR
        if windows and lo <= windows[-1][1]:
            windows[-1] = (windows[-1][0], max(windows[-1][1], hi))
        else:
            windows.append((lo, hi))
    hits: list[_CueHit] = []
    singles, pairs = (_SINGLE, _PAIRED) if tenses else (_SINGLE_WITHOUT_TENSES, _PAIRED)
    n = len(tokens)
    skip_to = -1
    for lo, hi in windows:
        for p in range(bisect_left(positions, lo), bisect_left(positions, hi)):
            i = positions[p]
            if i < skip_to or i in inside:
                continue
            text = tokens[i].text
            found: Cue | None = None
            longer = pairs.get((text, tokens[i + 1].text)) if i + 1 < n else None
            if longer:  # phrases of two words or more, longest first
                for cue in longer:
                    k = len(cue.words)
                    if i + k <= n and all(tokens[i + x].text == w and (i + x) not in inside
                                          for x, w in enumerate(cue.words) if x):
                        found = cue
                        break
            if found is None:
                found = singles.get(text)
            if found is None:
                if text.endswith("n't"):
                    hits.append(_CueHit(_NOT_CUE, i, i))  # every "-n't" denies: "wouldn't", "mustn't"
                continue
            k = len(found.words)
            if text == "percent" and i > 0 and tokens[i - 1].kind == NUM and tokens[i - 1].value >= 100:
                continue  # "100% sure" is certainty, not a hedge
            hits.append(_CueHit(found, i, i + k - 1))
            skip_to = i + k
    return hits


def _reach(tokens: list[Token], lo: int, hi: int, limit: int, *, allow_paren: bool = False,
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


_SUBJECTS = frozenset("you i we they he she".split())


def _has_own_subject(tokens: list[Token], hit: _CueHit) -> bool:
    """Does a subject pronoun stand right before the cue and a word after it ("you might consider ...")?"""
    before, after = hit.first - 1, hit.last + 1
    return before >= 0 and tokens[before].text in _SUBJECTS and after < len(tokens) and tokens[after].kind == WORD


def _ends_fragment(tokens: list[Token], hit: _CueHit) -> bool:
    """Does nothing but punctuation follow the cue in its fragment ("X (then)", "X is your brother's, ...")?"""
    nxt = hit.last + 1
    return nxt >= len(tokens) or (tokens[nxt].kind == PUNCT and (tokens[nxt].text in CLAUSE_BREAK_PUNCT
                                                                 or tokens[nxt].text == ","))


# nouns that name the value itself: a history word before them says the value is history ("(prior record)")
_VALUE_NOUNS = frozenset("value values entry entries record records answer number figure amount count setting "
                         "status version one".split())


def _qualifies(a: Answer, hit: _CueHit) -> bool:
    """Does a role cue that bound no mention qualify the value it stands beside? Not a tight cue ("from"
    binds only the value right after it), nor a forward cue with words of its own after it ("the previous
    conversation", "not Hawaii"), unless it offers a condition or fallback ("assuming no change", "if not,
    Quebec City"), gives the value to someone else ("your brother's"), or calls it an old value ("(prior
    record)"). A sequence word closing its clause does too ("Lexington (then)")."""
    tokens, cue = a.tokens, hit.cue
    if cue.kind == "next":
        return _ends_fragment(tokens, hit)
    if cue.kind not in _ROLE_OF_CUE or cue.kind == "approx" or cue.words in _TIGHT:
        return False
    if cue.kind == "other":
        return not _governed(a, hit)  # "your friend Sam's car": the cue introduces someone, named
    if (cue.kind == "hypo" and not cue.governs) or cue.side != "fwd" or _ends_fragment(tokens, hit):
        return True
    nxt = hit.last + 1
    return cue.kind == "past" and nxt < len(tokens) and tokens[nxt].text in _VALUE_NOUNS


def _in_frame(t: Token, frame: frozenset[str]) -> bool:
    """Is the cue word one the question (or gold) itself uses, in any form ("previous" for "previously")?
    Not "used" for "use": "used to" marks history, the verb "use" asks about the present."""
    return t.text in frame or (t.value in frame and t.text != "used")


def _governed(a: Answer, hit: _CueHit) -> range:
    """The name or value a forward cue speaks of when it found no mention ("not Hawaii", "from H&M",
    "you'd like a Kia", "from Session 40"), up to the end of its fragment; empty when what follows is
    no name or value ("from memory", "assuming no change" still need accounting)."""
    tokens, cue, nxt = a.tokens, hit.cue, hit.last + 1
    history = cue.kind == "past" and cue.side != "bwd"  # "You used to have Chevy Malibu": history of a name
    if not history and (cue.side != "fwd" or not (cue.governs or cue.words in _TIGHT)):
        return range(0)
    end = nxt
    while end < len(tokens) and tokens[end].kind != PUNCT and end - nxt < 6:
        end += 1
    named = any(tokens[k].kind != WORD or _is_capitalised_name(a, k, k) for k in range(nxt, end)
                if tokens[k].text not in SOFT)
    return range(nxt, end) if named else range(0)


def _is_interjection(tokens: list[Token], hit: _CueHit) -> bool:
    """"No, it's Portland": a "no" or "not" opening a sentence and standing alone denies nothing after it
    ("Portland, NOT." denies what it follows)."""
    nxt, before = hit.last + 1, hit.first - 1
    opens = before < 0 or (tokens[before].kind == PUNCT and tokens[before].text in SENTENCE_END)
    return opens and hit.cue.kind == "neg" and hit.cue.words[0] in ("no", "not", "never", "none") and (
        nxt >= len(tokens) or (tokens[nxt].kind == PUNCT and tokens[nxt].text in (",", ".", "!", ";", ":", "\n")))


def _from_is_change(tokens: list[Token], hit: _CueHit, target: Mention, firsts: list[int],
                    mentions: list[Mention]) -> Mention | None | bool:
    """"from X" is history in a change: after a change verb, or with "to <value>" after X. Returns
    the mention after "to" (it is the new value), True for a change without one, False for none."""
    k = target.last + 1
    while k < len(tokens) and k <= target.last + 3:
        t = tokens[k]
        if (t.kind == WORD and t.text in _TO_WORDS) or (t.kind == PUNCT and t.text in ("-", "->")) or (
                t.kind == WORD and t.value == "~"):
            nxt = bisect_left(firsts, k + 1)
            if nxt < len(mentions) and mentions[nxt].first <= k + 3:
                return mentions[nxt]
            break
        if t.kind != PUNCT and not (t.kind == WORD and t.text in SOFT):
            break
        k += 1
    for k in range(hit.first - 1, max(-1, hit.first - 9), -1):
        t = tokens[k]
        if (t.kind == PUNCT and t.text in CLAUSE_BREAK_PUNCT) or (t.kind == WORD and t.text in CLAUSE_BREAK_WORDS):
            break
        if t.kind == WORD and (t.text in CHANGE_VERBS or (k == hit.first - 1 and t.text in ("up", "down", "on"))
                               or (t.text in ("up", "down") and k + 1 < len(tokens) and tokens[k + 1].text == "to")):
            return True  # "moved from X", "up from X", "down to 47 from 52"
    return False


_ORDER_KINDS = frozenset({"past", "now", "next", "pasttense", "presenttense"})
_CROSSING_KINDS = frozenset({"hedge", "softhedge", "approx", "past", "neg"})  # "X, but not anymore", "X - not sure"
_CROSSES = frozenset({"but", "though", "although", "-"})
_AFTERTHOUGHT_KINDS = frozenset({"hedge", "softhedge", "approx", "past", "neg", "hypo"})


_SET_WORDS = frozenset("these those them either any which all both".split())


def _afterthought(a: Answer, hit: _CueHit, mentions: list[Mention], by_last: list[int],
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
        if tokens[j].kind == WORD and tokens[j].text in _SET_WORDS:
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


def assign_roles(a: Answer, mentions: list[Mention], *, ordering: bool = False,
                 frame: frozenset[str] = frozenset(), strict: bool = False, dated_question: bool = False) -> CueReading:
    """Give every mention its role from the cues around it (see the module docstring). With
    ``ordering`` (a question about the order of events) only denials, hypotheticals and hedges count.
    ``frame``: the question's words as written and their stems. A history or hypothetical cue the question itself uses is
    what is asked about ("where did I *initially* keep ...", "my *former* manager", "where am I
    *planning* to stay"), not a role the answer gives. ``strict``: mild hedges ("I think") count too.
    ``dated_question``: the question names a year, so year labels say what it asks, not what is history.
    Returns where cues were found, and the role cues that found no mention to bind to."""
    reading = CueReading(set(), set())
    if not mentions:
        return reading
    tokens = a.tokens
    inside = {k for m in mentions if not m.loose for k in range(m.first, m.last + 1)}
    firsts = [m.first for m in mentions]
    by_last = sorted(range(len(mentions)), key=lambda k: mentions[k].last) if len(mentions) > 1 else [0]
    lasts = [mentions[k].last for k in by_last]
    for m in mentions:  # operands and bounds ("25 + 2", "more than 25") are not answers
        if tokens[m.first].kind in VALUE_KINDS and _operand_or_bound(tokens, m.first, m.last):
            m.set_role("negated", BOUND_CUE)
    tenses = len({m.text for m in mentions}) > 1
    short = len(a.text) <= SHORT_REPLY  # a reply this short is the answer itself: mild hedges count
    for hit in _cue_hits_near(a, mentions, inside, tenses):
        cue = hit.cue
        reading.matched.update(range(hit.first, hit.last + 1))
        if _is_interjection(tokens, hit) or (ordering and cue.kind in _ORDER_KINDS) or (
                cue.kind == "approx" and not strict) or (cue.kind == "softhedge" and not (strict or short)):
            continue
        if frame and cue.kind in _FRAME_KINDS and cue.words not in _TIGHT and all(
                _in_frame(tokens[k], frame) for k in range(hit.first, hit.last + 1)
                if tokens[k].text not in SOFT and tokens[k].text not in FUNCTION_WORDS):
            continue
        if cue.words in _CORRECTIONS and hit.first > 0 and tokens[hit.first - 1].kind != PUNCT:
            continue
        limit = 0 if (cue.words in _TIGHT or cue.words in _APPROX) else _WINDOW[cue.kind]
        target: Mention | None = None
        # "Lexington now, Phoenix earlier": a two-sided cue right after a value, ending its clause, is that value's
        if cue.side == "fwd" or (cue.side == "both" and not _trails_a_mention(tokens, hit, lasts)):
            k = bisect_left(firsts, hit.last + 1)
            if k < len(mentions) and _reach(tokens, hit.last + 1, mentions[k].first - 1, limit,
                                            allow_colon=limit > 0):
                target = mentions[k]
        opens = cue.words in _CLAUSE_FINAL and _opens_clause(tokens, hit, a.start)
        if target is None and cue.side in ("bwd", "both") and not opens:
            k = bisect_right(lasts, hit.first - 1) - 1
            if k >= 0:
                before = mentions[by_last[k]]
                hedge = cue.kind in ("hedge", "softhedge", "approx")
                if hedge and hit.last + 1 < len(tokens) and tokens[hit.last + 1].text in _COMPARATIVES:
                    continue  # "at least 2, but possibly more": the hedge is about the bound
                if hedge and _has_own_subject(tokens, hit):
                    continue  # "Prius - you might consider a Kia": the hedge is about its own clause
                if cue.words in _CLAUSE_FINAL and hit.last + 1 < len(tokens) and tokens[hit.last + 1].kind != PUNCT \
                        and tokens[hit.last + 1].text not in _NEXT_CLAUSE:
                    continue  # "Denver before, Portland now" is history; "10 minutes before washing" is not
                if _reach(tokens, before.last + 1, hit.first - 1, _BACK_WINDOW + (2 if hedge else 0),
                          allow_paren=True, crossing=_CROSSES if cue.kind in _CROSSING_KINDS else frozenset()):
                    target = before
        if target is None and opens:
            # "Now 47; before, 52": an adverb opening its clause, then a comma, speaks of what follows
            k = bisect_left(firsts, hit.last + 2)
            if k < len(mentions) and _reach(tokens, hit.last + 2, mentions[k].first - 1, _WINDOW[cue.kind]):
                target = mentions[k]
        if target is None and cue.kind in _AFTERTHOUGHT_KINDS and cue.side != "fwd":
            target = _afterthought(a, hit, mentions, by_last, lasts)
        if target is None:
            governed = _governed(a, hit)  # "not Hawaii", "from H&M": what the cue speaks of
            reading.matched.update(governed)
            reading.governed.update(governed)
            if not governed and hit.first not in reading.governed and _qualifies(a, hit):
                reading.unbound.update(range(hit.first, hit.last + 1))
            continue
        words = " ".join(cue.words)
        if cue.words == ("from",):
            change = _from_is_change(tokens, hit, target, firsts, mentions)
            if change is False:
                continue
            if isinstance(change, Mention):
                change.marked = change.marked or "next"
        if cue.kind == "hypo" and cue.governs:
            target.set_role("planned", words)
        elif cue.kind in _ROLE_OF_CUE:
            target.set_role(_ROLE_OF_CUE[cue.kind], words)
        elif cue.kind == "pasttense":
            target.tense = target.tense or "past"
        elif cue.kind == "presenttense":
            target.tense = "present"
        elif cue.kind == "now":
            target.marked = "now"
        elif cue.kind == "next" and not target.marked:
            target.marked = "next"
    text = a.text
    if not ordering:
        _labelled_history(a, mentions, dated_question)
    if len(mentions) > 1 and ("or" in text or "/" in text or "vs" in text):
        _disjunctions(tokens, mentions)
    _sentence_alternatives(a, mentions)
    if "?" in text:
        _questions(tokens, mentions)
    _struck_through(a, mentions)
    if not ordering:
        _sequences(mentions)
    return reading


_YEAR_HINT = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")
_CLOSING = frozenset({")", '"', "'", "*"})
_CLAUSE_ENDS = frozenset({",", ";", ".", "!", "?", "\n", "\n\n", ")", ":"})
_NEXT_CLAUSE = frozenset({"and", "but", "while", "whereas"})


def _trails_a_mention(tokens: list[Token], hit: _CueHit, lasts: list[int]) -> bool:
    """Does the cue follow a mention (closing marks and one plain word apart: "4 engineers at first")
    and end its clause ("X now, ...", "... at first and ...")?"""
    k = bisect_right(lasts, hit.first - 1) - 1
    if k < 0:
        return False
    between = [t for t in tokens[lasts[k] + 1:hit.first] if not (t.kind == PUNCT and t.text in _CLOSING)]
    if len(between) > 1 or any(t.kind != WORD or t.text in CUE_STARTS or t.text in _SEPARATOR_WORDS for t in between):
        return False
    after = hit.last + 1
    return after >= len(tokens) or (tokens[after].kind == PUNCT and tokens[after].text in _CLAUSE_ENDS) or (
        tokens[after].kind == WORD and tokens[after].text in _NEXT_CLAUSE)


def _labelled_history(a: Answer, mentions: list[Mention], dated_question: bool) -> None:
    """History told by layout (:mod:`.labels`): values in a table's "old" column or row, and values
    dated earlier than another value the answer dates ("Denver (2023), Portland (2024)")."""
    tokens, text = a.tokens, a.text
    plain = [m for m in mentions if not m.loose]
    if "|" in text:
        cells = table_cells(text)  # in text order: found by bisection, so a long table stays linear
        starts = [c.start for c in cells]
        for m in mentions:  # a keyword match too: it starts in its cell
            start = tokens[m.first].start
            k = bisect_right(starts, start) - 1
            if k >= 0 and start < cells[k].end and cells[k].role == "past":
                m.set_role("past", f"under {cells[k].label!r}")
    if _YEAR_HINT.search(text) is None or dated_question or any(is_year(tokens[m.first]) for m in plain):
        return  # no year at all, or the years are the values, or what the question asks about
    dated = [(m, y) for m in plain if (y := year_label(tokens, m.first, m.last)) is not None]
    if not dated:
        return
    latest = max(y for _, y in dated)
    # a terse reply's later year labels a value too, even one the grader was never told of, when what
    # it labels is a value or a name ("Seattle (2024)"), not "got a dog (2024)"
    later = [y for y, i in year_labels(tokens) if y > latest and _value_or_name(a, i)] if len(text) <= TERSE_REPLY else []
    if later:
        latest = max(later)
    elif len({m.text for m, _ in dated}) < 2:
        return
    newest = [m for m, y in dated if y == latest]
    if len({m.text for m in newest}) > 1 or any(m.role != "current" or m.tense == "past" for m in newest):
        return  # no one value holds the latest year, or the answer's own words put it in the past
    for m, y in dated:
        # the words win over the layout: a value the answer says is current now stays so
        if y < latest and m.marked != "now" and m.tense != "present":
            m.set_role("past", f"dated {y}, before {latest}")


def _value_or_name(a: Answer, i: int) -> bool:
    """Is token i a value, or a word written with a capital (in a reply whose casing is kept)?"""
    t = a.tokens[i]
    return t.kind in VALUE_KINDS or (t.kind == WORD and len(a.source) == len(a.text)
                                     and a.source[t.start:t.start + 1].isupper())


def _opens_clause(tokens: list[Token], hit: _CueHit, start: int) -> bool:
    """Does the cue open its clause and stand before a comma or colon ("...; before, 52")?"""
    after = hit.last + 1
    if after >= len(tokens) or tokens[after].text not in (",", ":"):
        return False
    before = hit.first - 1
    return before < start or (tokens[before].kind == PUNCT and (
        tokens[before].text in CLAUSE_BREAK_PUNCT or tokens[before].text in SENTENCE_END or tokens[before].text in "|,"))


def _operand_or_bound(tokens: list[Token], first: int, last: int) -> bool:
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


BOUND_CUE = "an operand or a bound"  # the role's cue for "25 + 2", "more than 25": not a denial of the value
_OR_GLUE = frozenset({"or", "either", "maybe", "possibly", "perhaps", "even", "vs", "versus"})


def _disjunctions(tokens: list[Token], mentions: list[Mention]) -> None:
    """Two mentions joined by "or" / "/" are both offered without commitment."""
    for x, y in zip(mentions, mentions[1:]):
        if y.first <= x.last or y.first - x.last > 8 or (
                x.kind == "gold" and y.kind == "gold" and not _parts_of_one(x, y)):
            continue  # two forms of the gold ("25:50 (or 25 minutes and 50 seconds)") are one answer
        joined = False
        for k in range(x.last + 1, y.first):
            t = tokens[k]
            if t.kind == PUNCT and t.text == "/" or t.kind == WORD and t.text in ("or", "vs", "versus"):
                joined = True
            elif not (t.kind == PUNCT and t.text in (",", "(", ")")) and not (
                    t.kind == WORD and (t.text in SOFT or t.text in _OR_GLUE)) and not is_year(t):  # "X (2024) or Y"
                joined = False
                break
        if joined:
            x.set_role("hedged", "or")
            y.set_role("hedged", "or")


def _parts_of_one(x: Mention, y: Mention) -> bool:
    """Are x and y two different parts of one gold alternative ("Mondays" and "Wednesdays", "4 then" and
    "5 now")? Joined by "or", such parts are alternatives, not the answer."""
    return x.part is not None and y.part is not None and x.part[0] == y.part[0] and x.part[1] != y.part[1]


_OR_MAYBE = re.compile(r"\bor\s+(?:possibly|perhaps|maybe|potentially)\b|\beither\b[^.\n]{0,80}\bor\b"
                       r"|\b[ap]\.?m\.?\s*(?:or|/)\s*[ap]\.?m\b")  # "6:35 (am or pm)"


def _sentence_alternatives(a: Answer, mentions: list[Mention]) -> None:
    """"A Tesla (or possibly the Ford F-150)", "either ... or ...": every value of that sentence is
    offered, not committed to."""
    text = a.text
    if "or " not in text:
        return
    for m in mentions:
        start, end = a.tokens[m.first].start, a.tokens[m.last].end
        lo = max(text.rfind(". ", 0, start) + 1, text.rfind("\n", 0, start) + 1)
        hi = min((x for x in (text.find(". ", end), text.find("\n", end)) if x != -1), default=len(text))
        if hi - lo <= 600 and (found := _OR_MAYBE.search(text, lo, hi)) is not None:
            m.set_role("hedged", found.group(0))


_STRUCK = re.compile(r"~~(.+?)~~|<(s|del|strike)>(.+?)</\2>", re.S)


def _struck_through(a: Answer, mentions: list[Mention]) -> None:
    """"~~Denver~~ Portland", "<s>Denver</s>", "<del>Denver</del>": struck-out text denies what it crosses out
    (overlaid strokes, "D̶e̶n̶v̶e̶r̶", are read as "~~" by the normalisation)."""
    if "~~" not in a.text and "</" not in a.text:
        return
    spans = [m.span(1) if m.group(1) is not None else m.span(3) for m in _STRUCK.finditer(a.text)]
    for m in mentions:
        start = a.tokens[m.first].start
        if any(lo <= start < hi for lo, hi in spans):
            m.set_role("negated", "struck through")


def _questions(tokens: list[Token], mentions: list[Mention]) -> None:
    """"Toyota Prius?", "47...?": a value in a sentence that ends with a question mark is asked, not answered."""
    for m in mentions:
        for k in range(m.last + 1, min(len(tokens), m.last + 40)):
            t = tokens[k]
            if t.kind == PUNCT and t.text in SENTENCE_END:
                j = k
                while j < len(tokens) and tokens[j].kind == PUNCT and tokens[j].text in (".", "?", "!", ")", '"'):
                    if tokens[j].text == "?":
                        m.set_role("hedged", "?")
                        break
                    j += 1
                break


def _sequences(mentions: list[Mention]) -> None:
    """"X, now Y" / "first X, then Y" / "X -> Y": what comes before a marked mention is history."""
    pending: list[Mention] = []
    for m in mentions:
        if m.loose:
            continue
        if m.marked and m.role not in ("past", "negated"):  # "... moved to after Phoenix", "now, not 52": no successor
            for p in pending:
                # parts of one gold ("4 engineers then, 5 now") are not rivals of each other
                if p.text != m.text and p.role == "current" and p.marked != "now" and not (
                        p.kind == "gold" and m.kind == "gold"):
                    p.set_role("past", f"before {m.marked!r} {m.text!r}")
            pending = []
        if m.role == "current" and m.marked != "now":
            pending.append(m)

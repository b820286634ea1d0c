"""Every candidate value the answer mentions, each with the role the answer gives it.

Candidates are the gold's parts, the episode's superseded values, its decoy values, a choice
question's other option, and *rivals*: values the grader was not told about but that compete with
the gold (another time of day for a time, another bare number listed next to a count, an unknown
name offered with "or" or in sequence with the gold, and, when the source named no other candidate,
every other name or count of a terse reply: :mod:`supersede_env.core.grader.rivals`). :func:`find_mentions` finds them; :func:`assign_roles` gives each one role,
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
from functools import lru_cache

from supersede_env.core.grader.answer import Answer, Span
from supersede_env.core.grader.gold import Gold, Pattern, parse_value
from supersede_env.core.grader.lexicon import GENERIC, META_WORDS, SOFT
from supersede_env.core.grader.mention import Mention
from supersede_env.core.grader.rivals import RivalSearch, closed_classes, find_rivals
from supersede_env.core.grader.tokens import PUNCT, VALUE_KINDS, WORD, Token, stem, values_equal

__all__ = ["find", "find_mentions"]


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
    surface = _surface_words(pattern)  # the candidate's own soft words: "about" of "about an hour"
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
    gold_words = closed_classes(gold)[0]
    out: list[Mention] = []
    taken = {k for first, last in covered for k in range(first, last + 1)}  # a set: hits may be many

    def add(kind: str, value: str, first: int, last: int) -> None:
        if any(k in taken for k in range(first, last + 1)):
            return  # found as itself, or inside another candidate or the gold
        taken.update(range(first, last + 1))
        out.append(Mention(value, kind, first, last, cue="disguised"))

    skeleton: str | None = None
    gold_skeletons: list[str] | None = None
    for kind, value in dict.fromkeys(known):
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
        # found in the text's skeleton: place it by the tokens' own (text between tokens may hold
        # letters the reading dropped, so the two skeletons can differ)
        token_skeleton, owner = _skeleton_owners(a)
        pos = token_skeleton.find(rival)
        while pos != -1:
            add(kind, value, owner[pos], owner[pos + len(rival) - 1])
            pos = token_skeleton.find(rival, pos + 1)
    for kind, value in dict.fromkeys(known):  # a value listed twice is looked for once
        for word, surface in dict.fromkeys(_distinctive_words(value)):
            if word in gold_words:
                continue
            for p in a.words.get(word, ()):
                i = a.all_content[p]
                if i >= a.start and a.tokens[i].text == surface:
                    add(kind, value, i, i)
    return out


def _skeleton_owners(a: Answer) -> tuple[str, list[int]]:
    """The conclusion's skeleton built token by token, and the token index of each of its characters."""
    owner: list[int] = []
    pieces: list[str] = []
    text, tokens = a.text, a.tokens
    for i in range(a.start, len(tokens)):
        t = tokens[i]
        piece = _skeleton(text[t.start:t.end])
        pieces.append(piece)
        owner.extend([i] * len(piece))
    return "".join(pieces), owner


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


def find_mentions(a: Answer, gold: Gold, stale: tuple[str, ...], decoys: tuple[str, ...],
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
            for pattern in parse_value(str(value), gold.per):
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
    rivals = find_rivals(RivalSearch(a, gold, covered, gold_spans, question, bool(stale or decoys)))
    if rivals:
        mentions = sorted([*mentions, *rivals], key=lambda m: (m.first, m.last))
    return mentions



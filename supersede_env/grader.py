"""The hardened grader: is an answer the CURRENT value, a superseded one, a hedge, or an abstention?

``grade(answer, gold, stale=..., abstention=..., question=...)`` returns a :class:`Verdict`. The
verifiers reward, the TRL reward and the evaluation harness all call it, so its holes would be holes
in the learning signal. It therefore matches meaning, not characters:

- values are parsed (:mod:`supersede_env.normalize`): ``four`` = ``4``, ``6 pm`` = ``18:00`` but
  not ``7:00 pm``; ``25`` is not in ``250`` and ``ten`` is not in ``tennis``;
- a long answer is judged by what it *concludes* (the text after its last "answer:" / "the answer
  is" / "therefore"), not by every value it passes on the way;
- a value counts only when *asserted*: not negated ("not Portland"), not an operand ("25 + 2") or a
  bound ("more than 25"), not an enumerator ("2. Denver"), and, for a superseded value, not history
  ("moved from Denver to Portland", "used to drive a Civic");
- offering several candidates ("Denver or Portland", "25-30", "25, 27 and 30", gold and stale side
  by side, "it might be X") is a hedge and never pays;
- an abstention ("not in my notes", "I don't know", "you never mentioned it") is its own outcome:
  right on an abstention item, an honest miss elsewhere, and never a match for a gold of "no".

Gold strings follow LongMemEval's conventions: alternates (``"25:50 (or 25 minutes and 50
seconds)"``, ``"7 days. 8 days (including the last day) is also acceptable."``), conjunctions
(``"jazz and blues"`` needs both), yes/no golds, explanation sentences (``"When you started you
led 4 engineers. Now you lead 5"``: the key values) and choice questions ("did I increase or
decrease ...?": the option the gold takes).

This module and :mod:`supersede_env.normalize` are also built with mypyc when the package is
installed with ``SUPERSEDE_ENV_COMPILE=1`` (see ``setup.py``): the same source, 1.7-2.3x as fast.
Their type annotations are therefore exact; mypyc checks them at run time.
"""

from __future__ import annotations

import itertools
import math
import operator
import re
from collections.abc import Sequence, Set
from dataclasses import dataclass, field
from bisect import bisect_left
from functools import lru_cache
from typing import TYPE_CHECKING, Final

from supersede_env.normalize import (
    CLOCK, DATE, DUR, FREQ, LABEL, NUM, PUNCT, TIME, VALUE_KINDS, WORD, Token, prepare, stem,
    tokenize, values_equal,
)
from supersede_env.verdict import LABELS, MODES, Verdict

if TYPE_CHECKING:
    from supersede_env.episode import Episode

__all__ = ["Verdict", "grade", "grade_episode", "LABELS", "COMPILED"]

COMPILED = not __file__.endswith(".py")  # the optional mypyc build (setup.py) is running, not this source

Span = tuple[int, int]  # first and last token index of a match


# =============================================================================================
# Lexicons and cue patterns (compiled once)
# =============================================================================================
# Words a match may skip over: articles, pronouns, fillers ("the user's current ...").
_SOFT: Final = frozenset(
    """a an the my your his her their our its this that these those in on at of some any i you we
    they he she it me them us be do did does have user user's just also very really currently current
    now still new called named approximately about around roughly nearly almost exactly total only
    with for by own""".split()
)
_NEGATORS: Final = frozenset({"not", "no", "never", "neither", "nor", "without", "none", "nothing", "cannot"})
_CLAUSE_BREAK_WORDS: Final = frozenset(
    {"but", "however", "although", "though", "whereas", "while", "so", "therefore", "thus", "hence",
     "because", "since", "which", "who"}
)
_CLAUSE_BREAK_PUNCT: Final = frozenset({".", ";", "!", "?", "\n", "\n\n", ":", "(", ")", '"'})
# "more than 25": a bound, not a claimed value
_BOUND_BEFORE: Final = frozenset({"than", "over", "beyond", "above", "below", "under", "exceed", "exceeds",
                           "exceeding", "past"})
_OPERATORS: Final = frozenset({"+", "×", "=", "plus", "minus"})
# A superseded value near one of these is history ("moved from Denver", "Denver (previously)")
_HISTORY_BEFORE: Final = frozenset(
    """from previously previous formerly former used originally original initially initial earlier
    before old older prior past once replaced replace switched switch changed upgraded moved instead
    rather longer was were had last then until outdated""".split()
)
_HISTORY_AFTER: Final = frozenset(
    """previously before earlier anymore originally initially formerly outdated incorrect wrong old past prior ago
    used lived""".split()
)
# Words after "or" that do not name a rival candidate ("25 or more", "or not")
_NOT_A_RIVAL: Final = frozenset(
    """so more less fewer not similar something anything otherwise else other another possibly perhaps
    maybe even higher lower greater later earlier slightly a an the none neither nor no both rather
    that this these those it they them he she i you we""".split()
)
_MODAL_HEDGE: Final = frozenset({"might", "may", "could", "possibly", "perhaps", "maybe", "probably",
                                 "speculative", "guess"})
_PRONOUNS: Final = frozenset("i you he she it we they me him her us them this that there".split())
# Generic words that never identify an answer on their own
_GENERIC: Final = frozenset(stem(w) for w in """get got have do make go take set thing lot kind type bit way one
    some follow followed then finally next first second third last later before after also""".split())

# Concluding-span markers. STRONG: everything after the last one is the answer.
_STRONG_MARKER: Final = re.compile(
    r"(?:final\s+answer|the\s+answer\s+(?:to\s+[^\n:]{0,100}?)?(?:is|would\s+be|will\s+be)\b"
    r"|my\s+(?:final\s+)?answer\s+(?:is|would\s+be|will\s+be)|\banswer\s*(?:\*\*)?\s*:"
    r"|(?:^|\n)\s*(?:\*\*|#+\s*)?\s*(?:final\s+)?answer\s*(?:\*\*)?\s*(?=\n)"
    r"|(?:^|\n)[^\n]{0,40}step\s*\d+\s*[:.-]?\s*(?:\*\*)?\s*(?:provide|give|determine|draw|answer|final|state|"
    r"choose|select|formulate)[^\n]*"
    r"|(?:^|\n)\s*(?:\*\*|#+\s*)\s*conclusion[^\n]*)"
)
_WEAK_MARKER: Final = re.compile(
    r"\b(?:therefore|thus|hence|in\s+conclusion|to\s+conclude|in\s+summary|to\s+summarize|overall|"
    r"(?:i|we)\s+(?:can|could|will|would)\s+(?:confidently\s+)?(?:conclude|say|infer|determine)|"
    r"(?:this|which)\s+means|based\s+on\s+(?:this|these|the\s+above|the\s+(?:extracted\s+)?information|"
    r"the\s+(?:analysis|reasoning|chat\s+history|available\s+information)))\b"
)
_STEP_HEADING: Final = re.compile(r"(?:^|\n)[^\n]{0,10}step\s*\d")
# Where a match of each marker can begin (besides the start of the text): every alternative of
# _STRONG_MARKER starts with "final answer", "the answer", "my (final) answer", "answer" or a line
# break; _STEP_HEADING starts with a line break. Keep them in step with the markers: _markers() tries
# the markers only there.
_STRONG_MARKER_STARTS: Final = re.compile(
    r"final(?=\s+answer)|the(?=\s+answer)|my(?=\s+(?:final\s+)?answer)|answer|\n")
_LINE_STARTS: Final = re.compile(r"\n")

# Abstention: the answer says the asked information is not available. Searched only in windows
# around trigger words (see _abstentions) because one pass of this pattern over a text is slow.
_ABSTAIN: Final = re.compile(
    r"(?:\b(?:i|we)\s+(?:do\s+not|don't|cannot|can't|am\s+not\s+able\s+to|am\s+unable\s+to|could\s+not|"
    r"couldn't|was\s+unable\s+to|were\s+unable\s+to|have\s+no\s+way\s+to)\s+(?:\w+\s+){0,2}?"
    r"(?:know|determine|say|tell|find|answer|provide|confirm|recall|remember|see|locate|give|pinpoint|identify|access)\b"
    r"|\b(?:not|n't)\s+(?:\w+\s+){0,2}?(?:sure|certain)\b"
    r"|\b(?:do|does|did)\s+not\s+(?:\w+\s+){0,2}?(?:have|contain|include|provide|mention|specify|state|say|tell|indicate)\s+"
    r"(?:\w+\s+){0,3}?(?:information|info|details?|data|record|mention|answer|notes?|way|specifics?|number|indication|context|knowledge)\b"
    r"|\b(?:don't|doesn't|didn't)\s+(?:\w+\s+){0,2}?(?:have|contain|include|provide|mention|specify|state|say|tell|indicate)\s+"
    r"(?:\w+\s+){0,3}?(?:information|info|details?|data|record|mention|answer|notes?|way|specifics?|number|indication)\b"
    r"|\b(?:not|insufficient|no|lack\s+of|lacking)\s+(?:enough\s+|sufficient\s+|specific\s+|relevant\s+|direct\s+|"
    r"explicit\s+|clear\s+|further\s+|additional\s+|such\s+|precise\s+|exact\s+|concrete\s+|definitive\s+|available\s+)*"
    r"(?:information|info|details|data|context|evidence)"
    r"(?!\s+(?:about|on|regarding|of)\s+(?:any\s+)?(?:a\s+)?(?:changes?|updates?|further|additional|subsequent|later|new|"
    r"more|other)\b)"
    r"|\bno\s+(?:specific\s+|explicit\s+|direct\s+|clear\s+)?(?:mention|record|answer|way\s+to\s+(?:know|tell|determine))"
    r"\s+(?:of|about|regarding|on|to|in)?\b"
    r"(?!\s+(?:any\s+)?(?:a\s+)?(?:changes?|updates?|further|additional|subsequent|later|new|more|other|higher|lower)\b)"
    r"|\b(?:cannot|can't|could\s+not|couldn't|can\s+not)\s+be\s+(?:determined|answered|found|known|confirmed|"
    r"established|inferred)"
    r"|\b(?:impossible|not\s+possible|unable|no\s+way|difficult|hard)\s+(?:for\s+me\s+)?to\s+(?:accurately\s+|definitively\s+|"
    r"precisely\s+|exactly\s+)?(?:determine|know|say|tell|answer|find|pinpoint|give|provide|confirm|infer|identify)"
    r"|\b(?:is|are|was|remains?)\s+(?:\w+\s+){0,2}?(?:unknown|unclear|unspecified|not\s+(?:\w+ly\s+)?(?:known|clear|"
    r"specified|mentioned|stated|provided|given|available|recorded|included|discussed|disclosed))\b"
    r"|\bunknown\b|\bnot\s+in\s+(?:my|the)\s+(?:notes|memo|memory|records|chat|conversation|history)"
    r"|\b(?:you|we|the\s+user|they|he|she)\s+(?:never|did\s+not|didn't|does\s+not|doesn't|do\s+not|don't|have\s+not|"
    r"haven't|has\s+not|hasn't)\s+(?:\w+\s+)?(?:mention|say|said|tell|told|share|shared|specify|specified|state|"
    r"stated|provide|provided|discuss|discussed|bring|brought|talk)"
    r"|\b(?:was|were|is|are)\s+never\s+(?:mentioned|stated|specified|discussed|provided|given|shared)"
    r"|\bnot\s+aware\s+of\b|\bno\s+(?:knowledge|memory|recollection)\s+of\b"
    r"|\bno\s+(?:relevant|such)\b|\bunclear\b|\bno\s+(?:definitive|definite|clear|exact|specific)\s+answer"
    r"|\b(?:need|require)\s+(?:\w+\s+)?(?:more|additional|further|some)\s+(?:context|information|info|details)"
    r"|\bonce\s+i\s+have\s+(?:this|that|more|the|these|those)\s+(?:information|details)"
    r"|\b(?:won't|will\s+not|wouldn't|would\s+not)\s+be\s+able\s+to\s+(?:\w+\s+)?(?:provide|answer|determine|say|tell|give)"
    r"|(?:(?<![\s\S])|(?<=[\n:\"*])|(?<=[\n:\"*]\s)|(?<=[\n:\"*]\s\s))empty\b"
    r"|\boutput\s+\"?empty|\banswer\s*:?\s*\**\s*empty\b"
    r"|\bi\s+(?:do\s+not|don't)\s+know\b|\bno\s+idea\b|\bnot\s+enough\b|\binsufficient\b)"
)
_ABSTAIN_TRIGGERS: Final = frozenset(
    """not no never cannot unable impossible unknown unclear unspecified insufficient lack lacking
    difficult hard empty need needs require once""".split()
)
# Committing to an answer after an abstention phrase: "no mention of Tom, so it implies Alex"
_COMMIT: Final = re.compile(
    r"\b(?:conclude|concluded|infer|inferred|implies|imply|suggests|it\s+is\s+likely|likely\s+that|"
    r"i\s+would\s+say|i\s+would\s+guess|educated\s+guess|estimate|estimated|approximately|"
    r"roughly|the\s+answer\s+is|can\s+be\s+concluded|must\s+be|is\s+likely|are\s+likely|probably)\b"
)
_YES_NO: Final = re.compile(
    r"(?:^|[\n:.!?*\"(]\s*|\banswer\s+(?:is|would\s+be)\s*:?\s*\**\s*)(yes|no)\b(?=\s*[,.!;:*)\n\"]|\s*$|\s+-)"
)
_SENTENCE_SPLIT: Final = re.compile(r"(?<=[.!?])\s+|\n+")
_ANTONYMS: Final = {
    stem(a): stem(b)
    for x, y in (("more", "less"), ("more", "fewer"), ("higher", "lower"), ("increase", "decrease"),
                 ("better", "worse"), ("before", "after"), ("earlier", "later"), ("bigger", "smaller"),
                 ("larger", "smaller"), ("longer", "shorter"), ("faster", "slower"), ("up", "down"))
    for a, b in ((x, y), (y, x))
}
_ORDER_FIRST_Q: Final = re.compile(r"\b(?:first|earlier|earliest|before)\b")
_ORDER_LAST_Q: Final = re.compile(r"\b(?:most\s+recently|latest|last|later|more\s+recently|after)\b")
_BEFORE_CUES: Final = frozenset(stem(w) for w in "before prior earlier first then followed preceded".split())
_AFTER_CUES: Final = frozenset(stem(w) for w in "after later following subsequently".split())

_GOLD_ALSO_ACCEPTABLE: Final = re.compile(
    r"(?:^|[.;]\s*)([^.;]*?)\s*(?:\([^)]*\))?\s*(?:is|are)\s+also\s+(?:acceptable|accepted|correct|fine|ok)\.?", re.I
)
_GOLD_PAREN: Final = re.compile(r"\(([^()]*)\)")
_YES_NO_GOLD: Final = re.compile(r"^\s*(yes|no)\b\s*(?:[.,;:!]|$)", re.I)
_SENTENCE_GOLD: Final = re.compile(r"\b(?:you|i|we|my|your|our|user)\b", re.I)
_LOCATIVE_START: Final = re.compile(r"^(?:in|at|on|under|by|near|inside|behind)\b", re.I)
_SENTENCE_END: Final = frozenset({".", "?", "!", "\n", "\n\n", ";"})
_QUESTION_WORDS: Final = frozenset("or which what who whom whose when where why how".split())
_OR_WORD: Final = re.compile(r"\bor\b")


# =============================================================================================
# Gold specification
# =============================================================================================
@dataclass(frozen=True, slots=True)
class _Pattern:
    """One conjunct of a gold alternative: tokens to find, in order, with skippable words."""

    text: str
    required: tuple[Token, ...]
    optional: frozenset[str] = frozenset()  # words a value pattern may skip ("points" in "132 points")
    is_value: bool = False
    fallback: tuple[Token, ...] = ()  # the distinctive head of a long name ("Ford F-150" of "... pickup truck")
    keywords: bool = False  # key words of an explanation gold: found anywhere, enough of them
    min_keywords: int = 0
    must_keywords: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class _Alternative:
    text: str
    parts: tuple[_Pattern, ...]
    ordered: bool = False  # parts must appear in this order ("the order of ...")


@dataclass(frozen=True, slots=True)
class _Choice:
    """An "A or B" question: the option the gold takes and the one it rejects."""

    chosen: _Pattern
    rejected: _Pattern
    asks_first: bool | None  # True: "which happened first", False: "most recently", None: other


@dataclass(frozen=True, slots=True)
class _Gold:
    text: str
    alternatives: tuple[_Alternative, ...]
    polarity: str | None = None  # "yes" / "no" for yes-no golds
    choice: _Choice | None = None

    @property
    def single_value(self) -> Token | None:
        """The gold's value token when every alternative is one single value."""
        if self.alternatives and len(self.alternatives[0].parts) == 1:
            part = self.alternatives[0].parts[0]
            if part.is_value and len(part.required) == 1:
                return part.required[0]
        return None


def _content(tokens: list[Token]) -> list[Token]:
    return [t for t in tokens if t.kind != PUNCT and t.kind != LABEL and not (t.kind == WORD and t.text in _SOFT)]


def _is_capitalised(original: str, t: Token) -> bool:
    surface = original[t.start:t.end]
    return any(ch.isupper() or ch.isdigit() for ch in surface)


def _has_inner_capital(original: str, t: Token) -> bool:
    """"iPhone", "eBay", "McDonald": a brand, not a merely sentence-initial capital."""
    return any(ch.isupper() for ch in original[t.start + 1:t.end]) or original[t.start:t.start + 1].islower() and any(
        ch.isupper() for ch in original[t.start:t.end])


def _pattern(text: str) -> _Pattern | None:
    """A gold (or stale) phrase as a pattern. ``text`` keeps its case to spot names."""
    prepared = prepare(text)
    original = text if len(prepared) == len(text) else prepared
    content = _content(tokenize(prepared))
    if not content:
        return None
    if any(t.kind in VALUE_KINDS for t in content):
        # values are required; a name around them too ("Dark Souls 3", "Chapter 4 of Book 1");
        # descriptors, units and a merely sentence-initial capital ("Level 100") are not
        names = [t for t in content if t.kind == WORD and _is_capitalised(original, t)]
        if len(names) == 1 and names[0].start == content[0].start and not _has_inner_capital(original, names[0]):
            names = []
        required = tuple(t for t in content if t.kind in VALUE_KINDS or (t.kind == WORD and (t.value == "~" or t in names)))
        while required and required[0].kind == WORD and required[0].value == "~":
            required = required[1:]
        while required and required[-1].kind == WORD and required[-1].value == "~":
            required = required[:-1]
        optional = frozenset(t.value for t in content if t.kind == WORD)
        return _Pattern(text, required, optional, True)
    required = tuple(content)
    fallback: tuple[Token, ...] = ()
    if len(required) >= 2:
        # a long name may be given by its distinctive head: trailing descriptors can be dropped
        distinctive = [t for t in required if _is_capitalised(original, t)]
        # the distinctive words must be the name's head, with only trailing words dropped after them
        head_ok = bool(distinctive) and tuple(distinctive) == required[:len(distinctive)]
        strong = len(distinctive) >= 2 or any(ch.isdigit() for t in distinctive for ch in original[t.start:t.end]) or (
            len(distinctive) == 1 and original[distinctive[0].start:distinctive[0].end].isupper()
            and distinctive[0].end - distinctive[0].start >= 3)
        if head_ok and strong and len(distinctive) < len(required):
            fallback = tuple(distinctive)
    return _Pattern(text, required, fallback=fallback)


def _split_conjuncts(text: str) -> list[str]:
    """"jazz and blues" -> ["jazz", "blues"]; "A, B, and C" -> three parts (short phrases only).

    Splits at the token level, so the comma of "$400,000" and the "and" of "25 minutes and 50
    seconds" (both inside one value) never split a gold.
    """
    prepared = prepare(text)
    cuts = [(t.start, t.end) for t in tokenize(prepared)
            if (t.kind == PUNCT and t.text in (",", "&")) or (t.kind == WORD and t.text == "and")]
    if not cuts:
        return [text]
    src = text if len(prepared) == len(text) else prepared
    parts, pos = [], 0
    for a, b in cuts:
        parts.append(src[pos:a].strip())
        pos = b
    parts.append(src[pos:].strip())
    parts = [p for p in parts if p and p.lower() not in ("and", "or")]
    if len(parts) < 2 or any(len(p.split()) > 4 for p in parts):
        return [text]
    return parts


def _strip_detail_parens(text: str) -> tuple[str, list[str]]:
    """Drop parenthetical details; return the rest and the parenthetical *aliases* ("(or X)", "(UCLA)")."""
    aliases: list[str] = []

    def repl(m: re.Match[str]) -> str:
        inner = m.group(1).strip()
        if inner.lower().startswith("or "):
            aliases.append(inner[3:].strip())
        elif re.fullmatch(r"[A-Z][A-Za-z0-9.&-]{1,12}", inner) and inner[1:].upper() == inner[1:]:
            aliases.append(inner)  # an acronym: "(UCLA)"
        return " "

    return _GOLD_PAREN.sub(repl, text), aliases


def _value_groups(tokens: list[Token]) -> list[list[Token]]:
    """Values of an explanation, a range ("8 am - 4 pm") kept as one group."""
    groups: list[list[Token]] = []
    prev_range = False
    for t in tokens:
        if t.kind in VALUE_KINDS:
            if prev_range and groups:
                groups[-1].append(t)
            else:
                groups.append([t])
            prev_range = False
        elif t.kind == WORD and t.value == "~":
            prev_range = bool(groups)
            if groups:
                groups[-1].append(t)
        elif t.kind != PUNCT:
            prev_range = False
    return groups


def _explanation_parts(text: str, question: str | None) -> tuple[_Pattern, ...]:
    """Key facts of an explanation-style gold ("When you started you led 4 engineers. Now you lead 5")."""
    prepared = prepare(text)
    original = text if len(prepared) == len(text) else prepared
    toks = tokenize(prepared)
    groups = _value_groups(toks)
    if groups:
        # one value per question asked ("How many then? How many now?" -> two values)
        k = max(1, question.count("?")) if question else len(groups)
        return tuple(_Pattern(original[g[0].start:g[-1].end], tuple(g), frozenset(), True) for g in groups[:k])
    q_stems = _question_info(question).stems
    keys = [t for t in _content(toks) if t.kind == WORD and t.value not in q_stems and t.value not in _GENERIC
            and len(t.text) > 2 and t.text not in _PRONOUNS]
    if not keys:
        return ()
    must = frozenset(t.value for t in keys if _is_capitalised(original, t) and t.start > 0)
    need = max(len(must), math.ceil(len(keys) / 2))
    return (_Pattern(text, tuple(keys), keywords=True, min_keywords=need, must_keywords=must),)


def _option_words(segment: str) -> list[Token]:
    return [t for t in _content(tokenize(segment)) if t.kind == WORD or t.kind in VALUE_KINDS]


def _or_options(q: str) -> tuple[str, str] | None:
    """"..., A or B?" -> ("A", "B"): the clause before "or" and the rest up to the question mark."""
    for m in _OR_WORD.finditer(q):
        end = q.find("?", m.end())
        if end == -1:
            continue
        left_end = len(q[:m.start()].rstrip().rstrip(","))  # "..., or less?": the comma belongs to "or"
        clause_start = max(q.rfind(ch, 0, left_end) for ch in ",?.;:") + 1
        left = q[clause_start:left_end].strip()
        if left:
            return left, q[m.end():end].strip()
    return None


def _choice(question: str | None, gold_text: str) -> _Choice | None:
    """For "did I increase or decrease ...?" / "which came first, A or B?": the gold's option."""
    if not question:
        return None
    q = prepare(question)
    split = _or_options(q)
    if split is None:
        return None
    left, right = _option_words(split[0]), _option_words(split[1])
    if not left or not right:
        return None
    lset = {t.value for t in left if t.kind == WORD}
    rset = {t.value for t in right if t.kind == WORD}
    # each option's distinguishing words ("charity gala" vs "charity bake sale": "gala", "bake sale")
    lonly: list[Token] = [t for t in left if t.kind != WORD or t.value not in rset]
    ronly = [t for t in right if t.kind != WORD or t.value not in lset]
    if not lonly or not ronly:
        return None
    gold_stems = {t.value for t in tokenize(prepare(gold_text)) if t.kind == WORD}
    # the gold takes the option whose distinguishing words it repeats the most; the other option's
    # word nearest to "or" that the gold does not use is the rival ("more" in "more water, or less?")
    l_in = [t for t in lonly if t.kind == WORD and t.value in gold_stems]
    r_in = [t for t in ronly if t.kind == WORD and t.value in gold_stems]
    lf, rf = len(l_in) / len(lonly), len(r_in) / len(ronly)
    if lf == rf:
        return None
    if rf > lf:
        chosen_toks = tuple(r_in) if len(r_in) < len(ronly) else tuple(t for t in ronly if t.kind == WORD)
        # (a reversed slice, not reversed(): mypyc 2.4 cannot compile reversed() in this generator)
        rejected_word = next((t for t in lonly[::-1] if t.kind == WORD and t.value not in gold_stems), None)
    else:
        chosen_toks = tuple(l_in)
        rejected_word = next((t for t in ronly if t.kind == WORD and t.value not in gold_stems), None)
    if not chosen_toks or rejected_word is None:
        return None
    asks_first = True if _ORDER_FIRST_Q.search(q) else (False if _ORDER_LAST_Q.search(q) else None)
    chosen = _Pattern(" ".join(t.text for t in chosen_toks), chosen_toks, keywords=True,
                      min_keywords=1 if len(chosen_toks) <= 2 else 2)
    rejected = _Pattern(rejected_word.text, (rejected_word,))
    return _Choice(chosen, rejected, asks_first)


@lru_cache(maxsize=8192)
def _parse_gold(gold: str, question: str | None) -> _Gold:
    text = gold.strip()
    m = _YES_NO_GOLD.match(text)
    if m:
        return _Gold(text, (), polarity=m.group(1).lower())
    alt_texts: list[str] = []
    also = list(_GOLD_ALSO_ACCEPTABLE.finditer(text))
    if also:
        alt_texts.append(re.split(r"(?<=[.;])\s+", text)[0])
        alt_texts.extend(a.group(1) for a in also if a.group(1).strip())
    else:
        alt_texts.append(text)
    ordered = question is not None and re.search(r"\border\b", question, re.I) is not None
    alternatives: list[_Alternative] = []
    choice = None
    for raw in alt_texts:
        body, aliases = _strip_detail_parens(raw)
        for variant in (body.strip().rstrip(".").strip(), *aliases):
            if not variant:
                continue
            n_words = len(variant.split())
            explanation = n_words > 6 or (n_words > 2 and _SENTENCE_GOLD.search(variant) is not None
                                          and not _LOCATIVE_START.match(variant))
            if explanation:
                parts = _explanation_parts(variant, question)
                if not any(p.is_value for p in parts):
                    c = _choice(question, variant)
                    if c is not None:
                        choice = c
                        parts = (c.chosen,)
            else:
                parts = tuple(p for p in (_pattern(c) for c in _split_conjuncts(variant)) if p is not None)
                if choice is None:
                    choice = _choice(question, variant)
            if parts:
                alternatives.append(_Alternative(variant, parts, ordered and len(parts) > 1))
    return _Gold(text, tuple(alternatives), choice=choice)


@lru_cache(maxsize=8192)
def _parse_stale(value: str) -> tuple[_Pattern, ...]:
    body, aliases = _strip_detail_parens(value.strip())
    return tuple(p for v in (body.strip().rstrip("."), *aliases) if v and (p := _pattern(v)) is not None)


# =============================================================================================
# Reading an answer
# =============================================================================================
@dataclass(frozen=True, slots=True)
class _QuestionInfo:
    stems: frozenset[str]  # word stems of the question
    content_stems: frozenset[str]  # the same without soft words
    grams: frozenset[tuple]  # 4-grams of question tokens: an answer restating the question
    keys: frozenset  # every question token key (a cheap pre-check for the grams)


def _echo_key(t: Token) -> object:
    return t.value if t.kind == WORD else (t.kind, repr(t.value))


@lru_cache(maxsize=8192)
def _question_info(question: str | None) -> _QuestionInfo:
    if not question:
        return _QuestionInfo(frozenset(), frozenset(), frozenset(), frozenset())
    toks = tokenize(prepare(question))
    q = [_echo_key(t) for t in toks if t.kind != PUNCT]
    return _QuestionInfo(
        frozenset(t.value for t in toks if t.kind == WORD),
        frozenset(t.value for t in _content(toks) if t.kind == WORD),
        frozenset(tuple(q[i:i + 4]) for i in range(len(q) - 3)),
        frozenset(q),
    )


@dataclass(slots=True)
class _Answer:
    """A prepared answer: tokens, where its conclusion starts, and the tokens that may match."""

    text: str  # prepared: lower-cased, typography folded
    source: str  # the answer as written when its offsets agree with ``text`` (else ``text``): for evidence
    tokens: list[Token]
    start: int  # first token of the concluding span
    content: list[int]  # token indices (concluding span) that matching may use: a suffix of all_content
    strong: bool  # the conclusion follows an explicit answer marker
    all_content: list[int]  # matchable token indices of the whole answer
    triggers: list[int]  # indices of words that may start an abstention phrase
    unmasked_content: list[int] | None = None  # all_content with the restated question left in
    # _find's results on this view, by id(pattern) (with the pattern, so that a reused id never
    # matches): one grade looks for a superseded value, and sometimes the gold, more than once
    find_memo: dict[int, tuple[_Pattern, list[Span]]] = field(default_factory=dict)
    # the index of all_content, each half built on first use (see words, values): an abstention item
    # never looks anything up, and a gold of words (or of values) needs only its half
    word_index: dict[str, list[int]] | None = None
    value_index: list[int] | None = None

    @property
    def words(self) -> dict[str, list[int]]:
        """Word stem -> positions in all_content."""
        if self.word_index is None:
            self.word_index = _word_index(self.tokens, self.all_content)
        return self.word_index

    @property
    def values(self) -> list[int]:
        """Positions in all_content of value tokens."""
        if self.value_index is None:
            tokens = self.tokens
            self.value_index = [p for p, i in enumerate(self.all_content) if tokens[i].kind != WORD]
        return self.value_index

    def unmasked(self) -> _Answer | None:
        """The same answer with the restated question kept (a gold taken from the question may be there)."""
        if self.unmasked_content is None:
            return None
        content = self.unmasked_content
        conclusion = content if self.start == 0 else content[bisect_left(content, self.start):]
        return _Answer(self.text, self.source, self.tokens, self.start, conclusion, self.strong, content,
                       self.triggers)

    @property
    def skip(self) -> int:
        """How many entries of all_content precede the conclusion."""
        return len(self.all_content) - len(self.content)

    @property
    def start_char(self) -> int:
        return self.tokens[self.start].start if self.start < len(self.tokens) else len(self.text)

    def widened(self) -> "_Answer":
        """The same answer with the whole text as its conclusion."""
        return _Answer(self.text, self.source, self.tokens, 0, self.all_content, False, self.all_content,
                       self.triggers, word_index=self.word_index, value_index=self.value_index)

    def snippet(self, first: int, last: int) -> str:
        """The answer's own words from token ``first`` to token ``last``."""
        return self.source[self.tokens[first].start:self.tokens[last].end]

    @property
    def conclusion_text(self) -> str:
        return self.source[self.start_char:]


def _candidates(g: Token, a: _Answer) -> list[int]:
    """Positions in ``a.content`` whose token equals gold token ``g``."""
    k = a.skip
    if g.kind == WORD:
        found = a.words.get(g.value)
        if not found:
            return []
        return [p - k for p in found if p >= k] if k else found
    tokens, all_content = a.tokens, a.all_content
    return [p - k for p in a.values if p >= k and values_equal(g, tokens[all_content[p]])]


def _markers(marker: re.Pattern[str], starts: re.Pattern[str], text: str) -> list[re.Match[str]]:
    """The matches of ``marker.finditer(text)``, the marker tried only at the start of the text and where
    ``starts`` finds a place it can begin: the same matches, without sre trying every alternative of the
    marker at every character (which made finding the conclusion of a long answer slow)."""
    found = []
    resume = 0  # like finditer: a match never starts inside the previous one
    for pos in itertools.chain((0,), (s.start() for s in starts.finditer(text))):
        if pos >= resume and (m := marker.match(text, pos)) is not None:
            found.append(m)
            resume = m.end()
    return found


def _strong_offset(text: str) -> int | None:
    """End of the last answer marker ("the answer is", "Answer:", "Step N: Provide the answer"),
    unless more reasoning steps follow it ("Here's the answer: Step 1 ..." is a preamble)."""
    if "answer" not in text and "conclusion" not in text:
        return None
    last_step = -1
    if "step" in text:  # every step heading says "step"
        for step in _markers(_STEP_HEADING, _LINE_STARTS, text):
            last_step = step.start()
    for m in reversed(_markers(_STRONG_MARKER, _STRONG_MARKER_STARTS, text)):
        if last_step >= m.end() or not text[m.end():].strip(" *:#\n\t"):
            continue  # a preamble before more steps, or a trailing "Answer:" with nothing after it
        return m.end()
    return None


def _weak_start(text: str, tokens: list[Token], candidates: list[int]) -> int | None:
    """Token index of the last "therefore"-style marker, checked at its keyword and the words before."""
    for i in reversed(candidates):
        for j in range(max(0, i - 3), i + 1):
            if tokens[j].kind == WORD and _WEAK_MARKER.match(text, tokens[j].start) is not None:
                return j
    return None


def _echoed(tokens: list[Token], run: list[int], keys: list[object], grams: frozenset[tuple], masked: set[int],
            question_echo: set[int]) -> None:
    """Mark the 4-grams of ``run`` (token indices, with their :func:`_echo_key` ``keys``) that restate the
    question. A restatement of the question itself (it holds "or" or a question word) goes to
    ``question_echo`` too: it never counts as an answer, whereas a restated option ("the meeting with
    Rachel happened first") may."""
    out: set[int] = set()
    for k, gram in enumerate(zip(keys, keys[1:], keys[2:], keys[3:])):
        if gram in grams:
            out.update(range(run[k], run[k + 3] + 1))
    masked.update(out)
    for i in out:
        if tokens[i].kind == WORD and tokens[i].text in _QUESTION_WORDS:
            question_echo.update(out)
            break


def _is_enumerator(tokens: list[Token], i: int, text: str) -> bool:
    """A small whole number opening a line and followed by "." or ")" and more text: "2. Lemons"."""
    n = len(tokens)
    if i + 2 >= n or tokens[i + 1].kind != PUNCT or tokens[i + 1].text not in (".", ")"):
        return False
    if i > 0 and not (tokens[i - 1].kind == PUNCT and tokens[i - 1].text in ("\n", "\n\n")):
        return False
    t = tokens[i]
    if t.unit is not None or not text[t.start:t.end].isdigit() or t.value > 99:
        return False
    follower = tokens[i + 2]
    return not (follower.kind == PUNCT and follower.text in ("\n", "\n\n"))


_WORD_FLAGS: Final[dict[str, int]] = {}
_TRIGGER, _SOFT_WORD, _WEAK_KEY = 1, 2, 4
_WEAK_KEYWORDS: Final = frozenset("therefore thus hence overall conclusion conclude summary summarize means based "
                                  "infer say determine".split())


def _word_flags(w: str) -> int:
    flags = _WORD_FLAGS.get(w)
    if flags is None:
        flags = ((_TRIGGER if (w in _ABSTAIN_TRIGGERS or w.endswith("n't")) else 0)
                 | (_SOFT_WORD if w in _SOFT else 0) | (_WEAK_KEY if w in _WEAK_KEYWORDS else 0))
        if len(_WORD_FLAGS) < 100_000:
            _WORD_FLAGS[w] = flags
    return flags


_START_OF = operator.attrgetter("start")  # tokens come in text order: their starts can be bisected


def _read(answer: str, question: str | None) -> _Answer:
    """Tokenise once and index what matching needs, in a single pass over the tokens."""
    text = prepare(answer)
    tokens = tokenize(text)
    info = _question_info(question)
    question_keys = info.keys
    content: list[int] = []
    triggers: list[int] = []
    weak: list[int] = []
    masked: set[int] = set()
    question_echo: set[int] = set()
    run: list[int] = []  # consecutive tokens that all occur in the question (a restatement?)
    run_keys: list[object] = []  # their _echo_key
    known_flags = _WORD_FLAGS
    for i, t in enumerate(tokens):
        kind = t.kind
        if kind == WORD:  # the commonest kind first
            key = t.value  # _echo_key(t)
        elif kind == PUNCT:
            if run and t.text in _SENTENCE_END:  # a restatement does not run across sentences
                if len(run) >= 4:
                    _echoed(tokens, run, run_keys, info.grams, masked, question_echo)
                run, run_keys = [], []
            continue
        else:
            key = (kind, repr(t.value))  # _echo_key(t)
        if question_keys:
            if key in question_keys:
                run.append(i)
                run_keys.append(key)
            elif run:
                if len(run) >= 4:
                    _echoed(tokens, run, run_keys, info.grams, masked, question_echo)
                run, run_keys = [], []
        if kind == WORD:
            flags = known_flags.get(t.text)
            if flags is None:
                flags = _word_flags(t.text)
            if flags:
                if flags & _TRIGGER:
                    triggers.append(i)
                if flags & _WEAK_KEY:
                    weak.append(i)
                if flags & _SOFT_WORD:
                    continue
        elif kind == LABEL:
            continue
        elif kind == NUM and _is_enumerator(tokens, i, text):
            tokens[i] = t._replace(kind=LABEL)  # "1. Oranges" opening a line: list numbering, not a value
            if run and run[-1] == i:
                run_keys[-1] = _echo_key(tokens[i])  # the restatement check sees the label
            continue
        content.append(i)
    if len(run) >= 4:
        _echoed(tokens, run, run_keys, info.grams, masked, question_echo)
    unmasked_content = None
    if masked:  # drop the restated question (kept aside: a gold may be worded like the question)
        unmasked_content = [i for i in content if i not in question_echo] if question_echo else content
        content = [i for i in content if i not in masked]
    # where the conclusion starts: after the last answer marker, else at the last "therefore", else
    # at the last paragraph
    strong = _strong_offset(text)
    if strong is not None:
        start = bisect_left(tokens, strong, key=_START_OF)  # the first token at or after it
    else:
        weak_start = _weak_start(text, tokens, weak) if weak else None
        if weak_start is not None:
            start = weak_start
        else:
            para = text.rfind("\n\n", 0, max(0, len(text.rstrip()) - 1))
            start = 0 if para <= 0 else bisect_left(tokens, para, key=_START_OF)
    conclusion = content if start == 0 else content[bisect_left(content, start):]
    source = answer if len(answer) == len(text) else text
    return _Answer(text, source, tokens, start, conclusion, strong is not None, content, triggers, unmasked_content)


def _word_index(tokens: list[Token], content: list[int]) -> dict[str, list[int]]:
    """Positions in ``content`` of each word stem."""
    words: dict[str, list[int]] = {}
    for p, i in enumerate(content):
        t = tokens[i]
        if t.kind == WORD:
            word_stem = t.value
            found = words.get(word_stem)
            if found is None:
                words[word_stem] = [p]
            else:
                found.append(p)
    return words


def _in_parentheses(text: str, pos: int) -> bool:
    line_start = text.rfind("\n", 0, pos) + 1
    return text.count("(", line_start, pos) > text.count(")", line_start, pos)


def _abstentions(a: _Answer, lo: int, hi: int | None = None) -> list[re.Match[str]]:
    """Abstention phrases overlapping text[lo:hi] (parenthetical asides excluded), in text order.

    Every phrase of :data:`_ABSTAIN` contains a trigger word within its first four words, so the
    pattern is only *matched* at the trigger and the three words before it; scanning whole texts with
    it would dominate the grader's run time.
    """
    hi = len(a.text) if hi is None else hi
    tokens, text = a.tokens, a.text
    found: list[re.Match[str]] = []
    covered_to = -1
    for i in a.triggers:
        t = tokens[i]
        if t.end <= lo or t.start >= hi or t.start < covered_to:
            continue
        starts = [t.start]
        j = i - 1
        while j >= 0 and len(starts) < 4 and tokens[j].kind == WORD:
            starts.append(tokens[j].start)
            j -= 1
        for pos in reversed(starts):  # the widest phrase first
            m = _ABSTAIN.match(text, pos, hi)
            if m is not None and m.end() > lo and not _in_parentheses(text, m.start()):
                found.append(m)
                covered_to = m.end()
                break
    return found


# =============================================================================================
# Finding values and judging how they are stated
# =============================================================================================
def _tok_equal(g: Token, a: Token) -> bool:
    if g.kind == WORD:
        return a.kind == WORD and a.value == g.value
    return a.kind in VALUE_KINDS and values_equal(g, a)


def _find(pattern: _Pattern, a: _Answer) -> list[Span]:
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


def _find_seq(req: tuple[Token, ...], pattern: _Pattern, a: _Answer) -> list[Span]:
    if not req:
        return []
    tokens, content = a.tokens, a.content
    if pattern.keywords:
        hits = {}
        for g in req:
            pos = _candidates(g, a)
            if pos:
                hits[g.value] = content[pos[0]]
        if not hits or len(hits) < pattern.min_keywords or not pattern.must_keywords <= hits.keys():
            return []
        return [(min(hits.values()), max(hits.values()))]
    spans = []
    n = len(content)
    gap_allowed = 1 if (not pattern.is_value and len(req) >= 3) else 0
    for p in _candidates(req[0], a):
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
            spans.append((content[p], content[q - 1]))
    return spans


def _clause_window(tokens: list[Token], i: int, step: int, limit: int, ignore: Set[int] = frozenset()
                   ) -> list[Token]:
    """Up to ``limit`` tokens before (step=-1) or after (step=1) index i, within its clause; tokens in
    ``ignore`` (another candidate's own words: "Last" in the title "North of the Last Road") are skipped."""
    out: list[Token] = []
    j = i + step
    n = len(tokens)
    while 0 <= j < n and len(out) < limit:
        t = tokens[j]
        kind = t.kind
        if kind == PUNCT:
            if t.text in _CLAUSE_BREAK_PUNCT:
                break
        elif kind == WORD and t.text in _CLAUSE_BREAK_WORDS:
            break
        elif j not in ignore:
            out.append(t)
        j += step
    return out


def _negated(before: list[Token], after: list[Token]) -> bool:
    """Negated by one of the 4 clause tokens before the match or the 3 after it (``before`` and ``after``:
    :func:`_clause_window` walks of at least that many)."""
    for t in before[:4]:
        if t.kind == WORD and (t.text in _NEGATORS or t.text.endswith("n't")):
            return True
    after_words = [t.text for t in after[:3] if t.kind == WORD]
    return tuple(after_words[:2]) in _NEGATED_AFTER or (
        bool(after_words) and after_words[0] in ("isn't", "wasn't", "aren't", "anymore"))


_NEGATED_AFTER: Final = frozenset({("is", "not"), ("was", "not"), ("are", "not"), ("no", "longer")})


def _is_negated(tokens: list[Token], first: int, last: int, ignore: Set[int] = frozenset()) -> bool:
    return _negated(_clause_window(tokens, first, -1, 4, ignore), _clause_window(tokens, last, 1, 3, ignore))


def _is_operand_or_bound(tokens: list[Token], first: int, last: int) -> bool:
    prev = tokens[first - 1] if first > 0 else None
    nxt = tokens[last + 1] if last + 1 < len(tokens) else None
    if prev is not None and prev.text in _OPERATORS and prev.text != "=":
        return True
    if nxt is not None and nxt.text in _OPERATORS:
        return True
    j = first - 1
    while j >= 0 and tokens[j].kind == WORD and tokens[j].text in _SOFT:
        j -= 1
    return j >= 0 and tokens[j].kind == WORD and tokens[j].text in _BOUND_BEFORE


def _history(before: list[Token], after: list[Token]) -> bool:
    """History cue among the 6 clause tokens before the match or the 4 after it."""
    for t in before[:6]:
        if t.kind == WORD and t.text in _HISTORY_BEFORE:
            return True
    for t in after[:4]:
        if t.kind == WORD and t.text in _HISTORY_AFTER:
            return True
    return False


def _is_history(tokens: list[Token], first: int, last: int, ignore: Set[int] = frozenset()) -> bool:
    return _history(_clause_window(tokens, first, -1, 6, ignore), _clause_window(tokens, last, 1, 4, ignore))


def _modal_hedge(before: list[Token]) -> bool:
    """"it might be X", "possibly X" (a modal among the 5 clause tokens before): offered, not stated."""
    for t in before[:5]:
        if t.kind == WORD and t.text in _MODAL_HEDGE:
            return True
    return False


@dataclass(slots=True)
class _Hits:
    asserted: list[Span]
    negated: list[Span]
    history: list[Span]
    hedged: list[Span]


def _classify(spans: list[Span], tokens: list[Token], history_applies: bool,
              ignore: Set[int] = frozenset()) -> _Hits:
    hits = _Hits([], [], [], [])
    for first, last in spans:
        # one walk each way serves every check: a window of fewer tokens is a prefix of a longer one
        before = _clause_window(tokens, first, -1, 6, ignore)
        after = _clause_window(tokens, last, 1, 4, ignore)
        if _negated(before, after):
            hits.negated.append((first, last))
        elif tokens[first].kind in VALUE_KINDS and _is_operand_or_bound(tokens, first, last):
            hits.negated.append((first, last))
        elif history_applies and _history(before, after):
            hits.history.append((first, last))
        elif _modal_hedge(before):
            hits.hedged.append((first, last))
        else:
            hits.asserted.append((first, last))
    return hits


def _covered(spans: list[Span]) -> set[int]:
    out: set[int] = set()
    for a, b in spans:
        out.update(range(a, b + 1))
    return out


def _matches_any_alternative(gold: _Gold, t: Token) -> bool:
    return any(p.is_value and len(p.required) == 1 and values_equal(p.required[0], t)
               for alt in gold.alternatives for p in alt.parts)


def _rival_after_connector(tokens: list[Token], j: int, step: int, value_gold: bool, gold_cover: set[int],
                           gold: _Gold) -> str | None:
    """The candidate on the far side of an "or" at index j, if it is a different one."""
    k = j + step
    seen = 0
    while 0 <= k < len(tokens) and seen < 4:
        t = tokens[k]
        if t.kind == PUNCT:
            if t.text in _CLAUSE_BREAK_PUNCT and t.text not in ("(", ")"):
                return None
            k += step
            continue
        if t.kind == WORD and (t.text in _SOFT or t.text in _MODAL_HEDGE or t.text == "even"):
            k += step
            seen += 1
            continue
        if k in gold_cover or (t.kind == WORD and t.text in _NOT_A_RIVAL) or t.kind == LABEL:
            return None
        if value_gold and (t.kind not in VALUE_KINDS or _matches_any_alternative(gold, t)):
            return None  # "25 or more" is fine; "2 or 3 days" when both are accepted is fine
        return t.text or str(t.value)
    return None


def _token_text(t: Token) -> str:
    return t.text or str(t.value)


def _disjunction_rival(tokens: list[Token], span: Span, value_gold: bool, gold_cover: set[int],
                       gold: _Gold) -> str | None:
    """"Denver or Portland", "25 or 27", "either A or B", "25/27", "25-30" around the match."""
    first, last = span
    n = len(tokens)
    for step, edge in ((1, last), (-1, first)):
        j, hops = edge + step, 0
        while 0 <= j < n and hops < 3:
            t = tokens[j]
            kind, text = t.kind, t.text
            if kind == PUNCT and text in _CLAUSE_BREAK_PUNCT and text not in ("(", ")"):
                break
            if (kind == WORD and text in ("or", "either")) or (kind == PUNCT and text == "/"):
                rival = _rival_after_connector(tokens, j, step, value_gold, gold_cover, gold)
                if rival is not None:
                    return rival
                break
            if value_gold and kind == WORD and t.value == "~" and abs(j - edge) == 1:
                # a range with the gold at one end: "2-3 weeks"; but "from 55 to 39" is a change, and
                # the value it changes to is the one stated
                other_i = j + step
                other = tokens[other_i] if 0 <= other_i < len(tokens) else None
                low = min(first, other_i)
                changed_from = low > 0 and tokens[low - 1].kind == WORD and tokens[low - 1].text == "from"
                if changed_from and step == -1:
                    break
                if other is not None and other.kind in VALUE_KINDS and other_i not in gold_cover \
                        and not _matches_any_alternative(gold, other):
                    return f"a range to {_token_text(other)}"
                break
            if kind in VALUE_KINDS or (kind == WORD and text not in _SOFT and text not in _MODAL_HEDGE):
                hops += 1
            j += step
    return None


# value kinds that compete with each other in a list ("25, 27 and 30"; "6 pm or 18:30")
_LISTED_WITH: Final = {NUM: frozenset({NUM, DUR}), DUR: frozenset({NUM, DUR}), TIME: frozenset({TIME, CLOCK}),
                CLOCK: frozenset({TIME, CLOCK})}


def _list_rival(tokens: list[Token], span: Span, gold_tok: Token, gold_cover: set[int], gold: _Gold) -> str | None:
    """Another value of the gold's sort listed next to it: "25, 27 and 30" for a one-value gold."""
    kinds = _LISTED_WITH.get(gold_tok.kind) or {gold_tok.kind}
    for step, edge in ((1, span[1]), (-1, span[0])):
        j, connectors = edge + step, 0
        while 0 <= j < len(tokens):
            t = tokens[j]
            if (t.kind == PUNCT and t.text == ",") or (t.kind == WORD and t.text in ("and", "or", "&")):
                connectors += 1
            elif not (t.kind == WORD and (t.text in _SOFT or t.value == gold_tok.unit)):
                if t.kind in kinds and j not in gold_cover and connectors and not _matches_any_alternative(gold, t) \
                        and not _is_operand_or_bound(tokens, j, j):
                    return t.text or str(t.value)
                break
            j += step
    return None


def _comparable(gold_tok: Token, t: Token) -> bool:
    """Is ``t`` a value of the same sort as the gold (so a rival answer if it differs)?"""
    gk = gold_tok.kind
    if gk in (TIME, CLOCK):
        return t.kind == TIME or (t.kind == CLOCK and bool(t.value[0]))
    if gk in (DATE, FREQ):
        return t.kind == gk
    if gk == DUR:
        return t.kind == DUR and t.value[0] == gold_tok.value[0]
    if gk == NUM and gold_tok.unit is not None:
        return t.kind == NUM and t.unit == gold_tok.unit
    return False


def _kind_rival(a: _Answer, gold_tok: Token, gold_cover: set[int], gold: _Gold) -> str | None:
    """Another asserted value of the gold's sort in the conclusion ("7:00 pm ... maybe 6:00 pm")."""
    tokens = a.tokens
    for i in a.content:
        t = tokens[i]
        if i in gold_cover or t.kind not in VALUE_KINDS or not _comparable(gold_tok, t):
            continue
        if values_equal(gold_tok, t) or _matches_any_alternative(gold, t):
            continue
        if _is_negated(tokens, i, i) or _is_operand_or_bound(tokens, i, i) or _is_history(tokens, i, i):
            continue
        return a.snippet(i, i)
    return None


def _conjunction_rival(tokens: list[Token], span: Span, gold_cover: set[int]) -> str | None:
    """"a yellow dress and a pair of earrings" / "Down Dog and Serenity Yoga" for a gold of one thing:
    another item listed with it."""
    return _conjunct_after(tokens, span, gold_cover) or _conjunct_before(tokens, span, gold_cover)


def _conjunct_before(tokens: list[Token], span: Span, gold_cover: set[int]) -> str | None:
    j = span[0] - 1
    while j >= 0 and tokens[j].kind == WORD and tokens[j].text in _SOFT and tokens[j].text not in ("in", "on", "at", "of"):
        j -= 1  # "and a yellow dress": the article belongs to the gold
    if j < 0 or not (tokens[j].kind == WORD and tokens[j].text == "and"):
        return None
    j -= 1
    words: list[str] = []
    while j >= 0 and len(words) <= 4:
        t = tokens[j]
        if t.kind == PUNCT or (t.kind == WORD and t.text in _SOFT):
            break  # the item starts after a comma, an article or a preposition ("at Down Dog")
        if (t.kind == WORD and t.text in _PRONOUNS | _CLAUSE_BREAK_WORDS) or j in gold_cover:
            return None
        words.append(t.text or str(t.value))
        j -= 1
    if not words or len(words) > 4 or j < 0:
        return None
    return " ".join(reversed(words))


def _conjunct_after(tokens: list[Token], span: Span, gold_cover: set[int]) -> str | None:
    j = span[1] + 1
    while j < len(tokens) and tokens[j].kind == PUNCT and tokens[j].text == ",":
        j += 1
    if j >= len(tokens) or not (tokens[j].kind == WORD and tokens[j].text == "and"):
        return None
    j += 1
    words: list[str] = []
    while j < len(tokens) and len(words) <= 4:
        t = tokens[j]
        if t.kind == PUNCT:
            break
        if t.kind == WORD and t.text in _PRONOUNS | _CLAUSE_BREAK_WORDS:
            return None
        if j in gold_cover:
            return None
        if not (t.kind == WORD and t.text in _SOFT):
            words.append(t.text or str(t.value))
        j += 1
    if not words or len(words) > 4 or (j < len(tokens) and tokens[j].kind != PUNCT):
        return None
    return " ".join(words)


_SOFT_HEDGE: Final = re.compile(r"\bor\s+(?:possibly|perhaps|maybe)\b|\beither\b[^.\n]{0,80}\bor\b")


def _sentence_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    s = max(text.rfind(". ", 0, start) + 1, text.rfind("\n", 0, start) + 1)
    ends = [x for x in (text.find(". ", end), text.find("\n", end)) if x != -1]
    return s, (min(ends) if ends else len(text))


def _sentence_hedge(a: _Answer, span: Span) -> str | None:
    """"A Tesla (or possibly the Ford F-150)": an explicit either/or in the gold's sentence."""
    if "or " not in a.text:
        return None  # nor in any of its sentences (a cheap test first: most answers have none)
    s, e = _sentence_bounds(a.text, a.tokens[span[0]].start, a.tokens[span[1]].end)
    if a.text.find("or ", s, e) == -1:
        return None
    m = _SOFT_HEDGE.search(a.text, s, e)
    return m.group(0) if m else None


# =============================================================================================
# Decisions
# =============================================================================================
def _verdict(label: str, reason: str, extracted: str, *, r_stale: float = 0.0, r_cur: float | None = None) -> Verdict:
    if r_cur is None:
        r_cur = 1.0 if label == "current" else 0.0
    return Verdict(label, r_cur, r_stale, reason, extracted.strip())


@dataclass(slots=True)
class _GoldFound:
    alternative: _Alternative
    spans: list[Span]
    rival: str | None


def _inside(span: Span, outer: Span) -> bool:
    return outer[0] <= span[0] and span[1] <= outer[1] and outer != span


def _find_gold(gold: _Gold, a: _Answer, blocked: Sequence[Span] = (),
               ignore: Set[int] = frozenset()) -> tuple[_GoldFound | None, list[Span]]:
    """The first gold alternative whose every part is asserted in the conclusion, and hedged spans.

    A gold part inside a ``blocked`` span (a superseded value that contains it: "Sundays" in "Fridays
    and Sundays") is not a statement of the gold; words in ``ignore`` (other candidates' own words:
    "Without" in the old title "A Winter Without Wolves") do not negate or hedge it.
    """
    hedged: list[Span] = []
    for alt in gold.alternatives:
        spans: list[Span] = []
        ok = True
        for part in alt.parts:
            found = _find(part, a)
            if not found:
                ok = False
                break
            hits = _classify(found, a.tokens, history_applies=False, ignore=ignore)
            if blocked:
                hits.asserted = [sp for sp in hits.asserted if not any(_inside(sp, b) for b in blocked)]
            hedged.extend(hits.hedged)
            if not hits.asserted:
                ok = False
                break
            spans.append(hits.asserted[0] if alt.ordered else hits.asserted[-1])
            if not alt.ordered:
                spans[-1:] = hits.asserted
        if not ok:
            continue
        if alt.ordered and any(spans[i][0] >= spans[i + 1][0] for i in range(len(spans) - 1)):
            continue
        return _GoldFound(alt, spans, _rival(gold, alt, a, spans)), hedged
    return None, hedged


def _rival(gold: _Gold, alt: _Alternative, a: _Answer, spans: list[Span]) -> str | None:
    """A competing candidate offered alongside the gold, if every statement of the gold has one."""
    tokens = a.tokens
    cover = _covered(spans)
    single = len(alt.parts) == 1
    part = alt.parts[0]
    value_gold = single and part.is_value
    rival = None
    for span in spans:
        r = _disjunction_rival(tokens, span, part.is_value, cover, gold)
        if r is None and value_gold and len(part.required) == 1:
            r = _list_rival(tokens, span, part.required[0], cover, gold)
        if r is None and single and not part.is_value and not part.keywords:
            r = _conjunction_rival(tokens, span, cover)
        if r is None:
            r = _sentence_hedge(a, span)
        if r is None:
            return None  # one clean, committed statement of the gold is enough
        rival = r
    return rival


def _order_choice(a: _Answer, choice: _Choice, gold_span: Span, rival_span: Span) -> bool | None:
    """When both options of "which came first" are named: does the sentence put the gold's first?"""
    if choice.asks_first is None:
        return None
    lo, hi = sorted((gold_span, rival_span))
    between = {t.value for t in a.tokens[lo[1] + 1:hi[0]] if t.kind == WORD}
    after_first = {t.value for t in a.tokens[hi[1] + 1:hi[1] + 4] if t.kind == WORD}
    if between & _BEFORE_CUES or "first" in after_first and not between:
        first_named_first = True
    elif between & _AFTER_CUES:
        first_named_first = False
    else:
        return None
    gold_is_first = (lo == gold_span) == first_named_first
    return gold_is_first == choice.asks_first


def _polarity(a: _Answer, question: str | None) -> str | None:
    """"yes" / "no" stated by the conclusion: explicitly, or by a (non-)negated statement."""
    concl = a.text[a.start_char:]
    found = None
    for found in _YES_NO.finditer(concl):
        pass
    if found is not None:
        return found.group(1)
    q_stems = _question_info(question).content_stems
    for sentence in reversed([s for s in _SENTENCE_SPLIT.split(concl) if s.strip()]):
        toks = tokenize(sentence)
        stems = {t.value for t in toks if t.kind == WORD}
        if q_stems and not (stems & q_stems):
            continue
        negated = any(t.kind == WORD and (t.text in _NEGATORS or t.text.endswith("n't")) for t in toks)
        # "less frequently" answering "more frequently?" says no
        flipped = any(_ANTONYMS.get(s) in q_stems and s not in q_stems for s in stems)
        return "no" if negated != flipped else "yes"
    return None


def _claims_something(a: _Answer, gold: _Gold, question: str | None) -> bool:
    """Does the concluding span state an answer of its own (so reading further back would be wrong)?"""
    tokens = a.tokens
    gold_tok = gold.alternatives[0].parts[0].required[0] if gold.alternatives else None
    if gold_tok is not None and gold.alternatives[0].parts[0].is_value:
        for i in a.content:
            t = tokens[i]
            if (t.kind in VALUE_KINDS and (t.kind != DATE or gold_tok.kind == DATE)) or (
                    t.kind == WORD and t.text in ("none", "zero")):
                return True
        return False
    # a statement about anything but the reasoning itself ("the narrator lost the charger first") is a
    # claim; "I can rely on this information" is not
    return any(tokens[i].kind == WORD and tokens[i].value not in _META_WORDS and len(tokens[i].text) > 2
               for i in a.content)


_META_WORDS: Final = frozenset(
    stem(w) for w in """session sessions information info chat history answer question conversation user
    mention mentioned base based conclude infer note notes extract extracted relevant provide provided
    reason step steps follow therefore thus rely most recent date specific explicit explicitly directly
    state stated available however since there conflicting conflict update updated change changed
    other any no not previous later earlier new data detail details can will would could should may
    might must query asked ask need given above below following accurate accurately definitive correct
    consider considering context appear appears seems seem likely indicate indicates clear clearly
    assume assumption time current currently still remain remains same additional without reasoning
    analysis above this that these those say said""".split()
)


def _grade_yes_no(a: _Answer, gold: _Gold, question: str | None) -> Verdict | None:
    concl = a.conclusion_text
    abst = _abstentions(a, a.start_char)
    if abst:
        return _verdict("abstained", f"abstains: {abst[0].group(0)!r}", concl)
    pol = _polarity(a, question)
    if pol is None:
        return None
    if pol == gold.polarity:
        return _verdict("current", f"answers {pol!r} like the gold", concl)
    return _verdict("wrong", f"answers {pol!r}, gold is {gold.polarity!r}", concl)


@dataclass(slots=True)
class _StaleFound:
    asserted: list[tuple[str, Span]]  # (pattern text, span) stated as an answer (or hedged)
    mentioned: list[str]  # pattern texts stated, hedged or given as history


def _locate_gold(gold: _Gold, a: _Answer, others: list[_Pattern]
                 ) -> tuple[_GoldFound | None, list[Span], _Answer]:
    """The gold in the conclusion (and the view of the answer it was found in)."""
    other_words = _covered([sp for pat in others for sp in _find(pat, a)]) if others else frozenset()
    found, hedged = _find_gold(gold, a, ignore=other_words)
    if found is None and (whole := a.unmasked()) is not None:
        # the gold may be worded like the question ("the meeting with Rachel happened first"): read the
        # restated options too (not a restated question), for the gold and for its rivals alike
        found, hedged = _find_gold(gold, whole, ignore=other_words)
        if found is not None:
            a = whole
    return found, hedged, a


def _locate_stale(gold: _Gold, a: _Answer, found: _GoldFound | None, others: list[_Pattern]
                  ) -> tuple[_StaleFound, _GoldFound | None]:
    """Superseded values (and a choice question's other option) stated in the conclusion."""
    result = _StaleFound([], [])
    if not others:
        return result, found
    gold_spans = found.spans if found else []
    gold_words = _covered(gold_spans)
    for pat in others:
        # a superseded value inside a statement of the gold is part of it ("Kia" in "Kia Sorento"), and
        # a list that holds more than the superseded value is not it ("Thursdays, Fridays and Saturdays"
        # is not the old "Thursdays and Saturdays")
        own = {t.value for t in pat.required}
        spans = [sp for sp in _find(pat, a)
                 if not any(_inside(sp, g) or sp == g for g in gold_spans)
                 and not any(_inside(g, sp) and any(a.tokens[k].value not in own for k in range(g[0], g[1] + 1)
                                                    if a.tokens[k].kind != PUNCT)
                             for g in gold_spans)]
        hits = _classify(spans, a.tokens, history_applies=found is not None, ignore=gold_words)
        result.asserted.extend((pat.text, sp) for sp in hits.asserted + hits.hedged)
        if hits.asserted or hits.history or hits.hedged:
            result.mentioned.append(pat.text)
    if found is not None and result.asserted:
        # ... and the gold inside a superseded value is part of *it* ("Sundays" in "Fridays and Sundays")
        refound, _ = _find_gold(gold, a, [sp for _, sp in result.asserted])
        if refound is None or refound.spans != found.spans:
            found = refound
    return result, found


def _grade_value(a: _Answer, gold: _Gold, stale: Sequence[str], widened: bool) -> Verdict | None:
    """Grade an answerable item's conclusion; None when it says nothing gradable."""
    concl = a.conclusion_text
    stale_pats = [p for s in stale for p in _parse_stale(str(s))]
    stale_texts = {p.text for p in stale_pats}
    others = stale_pats + ([gold.choice.rejected] if gold.choice is not None else [])
    found, hedged_spans, a = _locate_gold(gold, a, others)
    stale_found, found = _locate_stale(gold, a, found, others)
    stale_asserted, stale_mentioned = stale_found.asserted, stale_found.mentioned
    cover = _covered(found.spans) if found else set()
    abst = _abstentions(a, a.start_char)

    if found is not None:
        where = a.snippet(*found.spans[0])
        if stale_asserted:
            name, span = stale_asserted[0]
            is_real_stale = name in stale_texts
            if not is_real_stale and gold.choice is not None:
                order = _order_choice(a, gold.choice, found.spans[0], span)
                if order is True:
                    return _verdict("current", f"puts {where!r} in the asked order", concl)
                if order is False:
                    return _verdict("wrong", f"puts {name!r} in the asked order", concl)
            return _verdict("hedged", f"gives {where!r} and also {name!r}", concl,
                            r_stale=-1.0 if is_real_stale else 0.0)
        rival = found.rival
        single = gold.single_value
        if rival is None and single is not None:
            rival = _kind_rival(a, single, cover, gold)
        if rival is not None:
            return _verdict("hedged", f"offers {where!r} alongside {rival!r}", concl)
        if not widened and abst:
            first_gold = a.tokens[found.spans[0][0]].start
            before = [m for m in abst if m.start() < first_gold]
            if before and _COMMIT.search(a.text, before[-1].end(), first_gold) is None:
                return _verdict("abstained", f"abstains ({before[0].group(0)!r}) before mentioning {where!r}", concl)
        return _verdict("current", f"states {where!r}", concl)
    real = [name for name, _ in stale_asserted if name in stale_texts] or [n for n in stale_mentioned if n in stale_texts]
    if real:
        return _verdict("stale", f"states superseded {real[0]!r}", concl, r_stale=-1.0)
    if abst:
        return _verdict("abstained", f"abstains: {abst[0].group(0)!r}", concl)
    if hedged_spans:
        first, last = hedged_spans[0]
        return _verdict("hedged", f"only suggests {a.snippet(first, last)!r}", concl)
    return None


def _grade_abstention_item(a: _Answer) -> Verdict:
    """On an abstention item the right answer says the information is not available."""
    concl = a.conclusion_text
    in_conclusion = _abstentions(a, a.start_char)
    if not in_conclusion:
        if _abstentions(a, 0):
            return _verdict("wrong", "reasons that the information is missing but concludes with an answer", concl)
        return _verdict("wrong", "gives an answer where the information is not available", concl)
    last = in_conclusion[-1]
    commit = _COMMIT.search(a.text, last.end())
    if commit is not None:
        return _verdict("wrong", f"says {last.group(0)!r} but then commits ({commit.group(0)!r})", concl)
    return _verdict("abstained", f"abstains: {last.group(0)!r}", concl, r_cur=1.0)


def grade(
    answer: str,
    gold: object,  # read as str(gold): LongMemEval stores some golds as JSON numbers
    *,
    stale: Sequence[str] = (),
    abstention: object = False,  # read as its truth value: a numpy or pandas boolean is fine
    question: str | None = None,
    mode: str = "official",
) -> Verdict:
    """Grade ``answer`` against the current value ``gold`` and the superseded values ``stale``.

    ``abstention=True`` marks an item whose information was never given (LongMemEval ``_abs``
    ids; ``gold`` is then an explanation): abstaining is right and any concrete answer is wrong.
    ``question`` lets the grader ignore restatements of the question, read choice questions ("A or
    B?") and count the values a multi-part explanation gold asks for.

    >>> grade("You moved from Denver to Portland.", "Portland", stale=["Denver"]).label
    'current'
    >>> grade("Either Denver or Portland.", "Portland", stale=["Denver"]).label
    'hedged'
    >>> grade("7:00 pm", "6:00 pm").label
    'wrong'
    >>> grade("I don't know.", "no").label
    'abstained'
    """
    if not isinstance(answer, str):
        raise TypeError(f"answer must be a str, not {type(answer).__name__}")
    if isinstance(stale, str):
        raise TypeError("stale must be a sequence of values, not a single str")
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
    if not answer.strip():
        return _verdict("wrong", "empty answer", "")
    if abstention:
        # judged by its abstention phrases alone: no need to find the restated question
        return _grade_abstention_item(_read(answer, None))
    a = _read(answer, question)
    parsed = _parse_gold(str(gold), question)
    grade_span = _grade_yes_no if parsed.polarity is not None else None

    def attempt(view: _Answer, widened: bool) -> Verdict | None:
        if grade_span is not None:
            return grade_span(view, parsed, question)
        return _grade_value(view, parsed, stale, widened)

    verdict = attempt(a, False)
    if verdict is None and a.start > 0 and not _claims_something(a, parsed, question):
        # the conclusion said nothing gradable ("I can rely on this information"): read it all
        verdict = attempt(a.widened(), True)
        if verdict is not None:
            verdict = Verdict(verdict.label, verdict.r_cur, verdict.r_stale,
                              verdict.reason + " (no explicit conclusion; whole answer read)", verdict.extracted)
    if verdict is None:
        return _verdict("wrong", "does not state the gold value", a.conclusion_text)
    return verdict


def grade_episode(answer: str, episode: Episode, *, mode: str = "official") -> Verdict:
    """:func:`grade` against an episode: its current value, superseded values, abstention flag and
    question (what every reward and report grades)."""
    return grade(answer, episode.answer, stale=episode.stale_values, abstention=episode.abstention,
                 question=episode.question, mode=mode)

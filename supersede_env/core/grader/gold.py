"""The gold side: what the current value is, as patterns to find in an answer.

A gold string follows LongMemEval's conventions: alternates (``"25:50 (or 25 minutes and 50
seconds)"``, ``"7 days. 8 days (including the last day) is also acceptable."``), conjunctions
(``"jazz and blues"`` needs both), yes/no golds, explanation sentences (``"When you started you led 4
engineers. Now you lead 5"``: the key values) and choice questions ("did I increase or decrease
...?": the option the gold takes). Superseded and decoy values are parsed into the same patterns
(:func:`parse_value`), so that every candidate is found by the same rules.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from functools import lru_cache

from supersede_env.core.grader.lex_quantities import MEASURE_UNITS
from supersede_env.core.grader.lexicon import GENERIC, LIST_WORD_JOINERS, PRONOUNS, RATE_PERIODS, RATE_WORDS
from supersede_env.core.grader.question import content_tokens, question_info
from supersede_env.core.grader.tokens import (
    NUM,
    PUNCT,
    VALUE_KINDS,
    WORD,
    Token,
    normalise_text,
    tokenize,
    values_equal,
)

__all__ = ["Pattern", "Alternative", "Choice", "Gold", "parse_gold", "parse_value", "answer_form"]


@dataclass(frozen=True, slots=True)
class Pattern:
    """One conjunct of a candidate value: tokens to find, in order, with skippable words."""

    text: str
    required: tuple[Token, ...]
    optional: frozenset[str] = frozenset()  # words a value pattern may skip ("points" in "132 points")
    is_value: bool = False
    fallback: tuple[Token, ...] = ()  # the distinctive head of a long name ("Ford F-150" of "... pickup truck")
    keywords: bool = False  # key words of an explanation gold: found anywhere, enough of them
    min_keywords: int = 0
    must_keywords: frozenset[str] = frozenset()
    # the value token when the pattern is one value ("25", "6:00 pm"); read on every mention, so stored
    single_value: Token | None = field(init=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "single_value",
                           self.required[0] if self.is_value and len(self.required) == 1 else None)

    @property
    def value_range(self) -> tuple[Token, Token] | None:
        """The two value tokens when the pattern is a range of values ("10-12 hours", "5-2")."""
        req = self.required
        if self.is_value and len(req) == 3 and req[1].kind == WORD and req[1].value == "~" \
                and req[0].kind in VALUE_KINDS and req[2].kind in VALUE_KINDS:
            return req[0], req[2]
        return None


@dataclass(frozen=True, slots=True)
class Alternative:
    text: str
    parts: tuple[Pattern, ...]
    ordered: bool = False  # parts must appear in this order ("the order of ...")
    timeline: bool = False  # the parts are a value then and a value now: history is what it asks


@dataclass(frozen=True, slots=True)
class Choice:
    """An "A or B" question: the option the gold takes and the one it rejects."""

    chosen: Pattern
    rejected: Pattern
    asks_first: bool | None  # True: "which happened first", False: "most recently", None: other


@dataclass(frozen=True, slots=True)
class Gold:
    text: str
    alternatives: tuple[Alternative, ...]
    polarity: str | None = None  # "yes" / "no" for yes-no golds
    choice: Choice | None = None
    per: str | None = None  # the period a count is asked per ("How many times a week ...?": "week")
    # the gold's value token when its first alternative is one single value; every rival finder asks
    single_value: Token | None = field(init=False, compare=False)

    def __post_init__(self) -> None:
        first = self.alternatives[0].parts if self.alternatives else ()
        object.__setattr__(self, "single_value", first[0].single_value if len(first) == 1 else None)

    @property
    def value_range(self) -> tuple[Token, Token] | None:
        """The two values of the gold when its first alternative is one range of values."""
        if self.alternatives and len(self.alternatives[0].parts) == 1:
            return self.alternatives[0].parts[0].value_range
        return None

    def accepts(self, t: Token) -> bool:
        """Is value token ``t`` one of the gold's single values (any alternative)?"""
        return any(p.is_value and len(p.required) == 1 and values_equal(p.required[0], t)
                   for alt in self.alternatives for p in alt.parts)


_GOLD_ALSO_ACCEPTABLE = re.compile(
    r"(?:^|[.;]\s*)([^.;]*?)\s*(?:\([^)]*\))?\s*(?:is|are)\s+also\s+(?:acceptable|accepted|correct|fine|ok)\.?", re.I
)
_GOLD_PAREN = re.compile(r"\(([^()]*)\)")
_YES_NO_GOLD = re.compile(r"^\s*(yes|no)\b\s*(?:[.,;:!]|$)", re.I)
_SENTENCE_GOLD = re.compile(r"\b(?:you|i|we|my|your|our|user)\b", re.I)
_LOCATIVE_START = re.compile(r"^(?:in|at|on|under|by|near|inside|behind)\b", re.I)
_OR_WORD = re.compile(r"\bor\b")
_ORDER_FIRST_Q = re.compile(r"\b(?:first|earlier|earliest|before)\b")
_ORDER_LAST_Q = re.compile(r"\b(?:most\s+recently|latest|last|later|more\s+recently|after)\b")




def _is_capitalised(original: str, t: Token) -> bool:
    surface = original[t.start:t.end]
    return any(ch.isupper() or ch.isdigit() for ch in surface)


def _has_inner_capital(original: str, t: Token) -> bool:
    """"iPhone", "eBay", "McDonald": a brand, not a merely sentence-initial capital."""
    return any(ch.isupper() for ch in original[t.start + 1:t.end]) or original[t.start:t.start + 1].islower() and any(
        ch.isupper() for ch in original[t.start:t.end])


def _original(text: str, normalised: str) -> str:
    """The text with its case, when its offsets agree with the normalised text (else the normalised)."""
    return text if len(normalised) == len(text) else normalised


def _pattern(text: str) -> Pattern | None:
    """A candidate phrase as a pattern. ``text`` keeps its case to spot names."""
    normalised = normalise_text(text)
    original = _original(text, normalised)
    content = content_tokens(tokenize(normalised))
    if not content:
        return None
    if any(t.kind in VALUE_KINDS for t in content):
        # values are required; a name around them too ("Dark Souls 3", "Chapter 4 of Book 1");
        # descriptors, units and a merely sentence-initial capital ("Level 100") are not
        names = [t for t in content if t.kind == WORD and _is_capitalised(original, t)]
        if len(names) == 1 and names[0].start == content[0].start and not _has_inner_capital(original, names[0]):
            names = []
        # a named thing's words after its number name a variant of it ("iPhone 13 mini", "Dark Souls 3
        # remastered"): without them an answer names another thing
        first_value = next(k for k, t in enumerate(content) if t.kind in VALUE_KINDS)
        variant = [t for t in content[first_value + 1:] if t.kind == WORD and t.text not in MEASURE_UNITS] if names else []
        required = tuple(t for t in content if t.kind in VALUE_KINDS or (t.kind == WORD and (
            t.value == "~" or t in names or t in variant)))
        while required and required[0].kind == WORD and required[0].value == "~":
            required = required[1:]
        while required and required[-1].kind == WORD and required[-1].value == "~":
            required = required[:-1]
        optional = frozenset(t.value for t in content if t.kind == WORD)
        return Pattern(text, required, optional, True)
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
    return Pattern(text, required, fallback=fallback)


def _split_conjuncts(text: str) -> list[str]:
    """"jazz and blues" -> ["jazz", "blues"]; "A, B, and C" -> three parts (short phrases only).

    Splits at the token level, so the comma of "$400,000" and the "and" of "25 minutes and 50
    seconds" (both inside one value) never split a gold.
    """
    normalised = normalise_text(text)
    cuts = [(t.start, t.end) for t in tokenize(normalised)
            if (t.kind == PUNCT and t.text in (",", "&")) or (t.kind == WORD and t.text == "and")]
    if not cuts:
        return [text]
    src = _original(text, normalised)
    parts, pos = [], 0
    for a, b in cuts:
        parts.append(src[pos:a].strip())
        pos = b
    parts.append(src[pos:].strip())
    parts = [p for p in parts if p and p.lower() not in LIST_WORD_JOINERS]
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


_ASKS_A_VALUE = re.compile(r"\bhow (?:many|much|long|often|old)\b")


def _explanation_parts(text: str, question: str | None) -> tuple[Pattern, ...]:
    """Key facts of an explanation-style gold ("When you started you led 4 engineers. Now you lead 5")."""
    normalised = normalise_text(text)
    original = _original(text, normalised)
    toks = tokenize(normalised)
    groups = _value_groups(toks)
    if groups:
        # one value per question asked ("How many then? How many now?", "how many when I started, and
        # how many now?" -> two values)
        k = max(1, question.count("?"), len(_ASKS_A_VALUE.findall(question.lower()))) if question else len(groups)
        return tuple(Pattern(original[g[0].start:g[-1].end], tuple(g), frozenset(), True) for g in groups[:k])
    q_stems = question_info(question).stems
    keys = [t for t in content_tokens(toks) if t.kind == WORD and t.value not in q_stems and t.value not in GENERIC
            and len(t.text) > 2 and t.text not in PRONOUNS]
    if not keys:
        return ()
    must = frozenset(t.value for t in keys if _is_capitalised(original, t) and t.start > 0)
    need = max(len(must), math.ceil(len(keys) / 2))
    return (Pattern(text, tuple(keys), keywords=True, min_keywords=need, must_keywords=must),)


def _option_words(segment: str) -> list[Token]:
    return [t for t in content_tokens(tokenize(segment)) if t.kind == WORD or t.kind in VALUE_KINDS]


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


def _choice(question: str | None, gold_text: str) -> Choice | None:
    """For "did I increase or decrease ...?" / "which came first, A or B?": the gold's option."""
    if not question:
        return None
    q = normalise_text(question)
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
    gold_stems = {t.value for t in tokenize(normalise_text(gold_text)) if t.kind == WORD}
    # the gold takes the option whose distinguishing words it repeats the most; the other option's
    # word nearest to "or" that the gold does not use is the rival ("more" in "more water, or less?")
    l_in = [t for t in lonly if t.kind == WORD and t.value in gold_stems]
    r_in = [t for t in ronly if t.kind == WORD and t.value in gold_stems]
    lf, rf = len(l_in) / len(lonly), len(r_in) / len(ronly)
    if lf == rf:
        return None
    if rf > lf:
        chosen_toks = tuple(r_in) if len(r_in) < len(ronly) else tuple(t for t in ronly if t.kind == WORD)
        rejected_word = next((t for t in reversed(lonly) if t.kind == WORD and t.value not in gold_stems), None)
    else:
        chosen_toks = tuple(l_in)
        rejected_word = next((t for t in ronly if t.kind == WORD and t.value not in gold_stems), None)
    if not chosen_toks or rejected_word is None:
        return None
    asks_first = True if _ORDER_FIRST_Q.search(q) else (False if _ORDER_LAST_Q.search(q) else None)
    chosen = Pattern(" ".join(t.text for t in chosen_toks), chosen_toks, keywords=True,
                     min_keywords=1 if len(chosen_toks) <= 2 else 2)
    rejected = Pattern(rejected_word.text, (rejected_word,))
    return Choice(chosen, rejected, asks_first)


@lru_cache(maxsize=8192)
def parse_gold(gold: str, question: str | None) -> Gold:
    """The gold string as alternatives of patterns (see the module docstring)."""
    text = gold.strip()
    m = _YES_NO_GOLD.match(text)
    if m:
        return Gold(text, (), polarity=m.group(1).lower())
    alt_texts: list[str] = []
    also = list(_GOLD_ALSO_ACCEPTABLE.finditer(text))
    if also:
        alt_texts.append(re.split(r"(?<=[.;])\s+", text)[0])
        alt_texts.extend(a.group(1) for a in also if a.group(1).strip())
    else:
        alt_texts.append(text)
    ordered = question is not None and re.search(r"\border\b", question, re.I) is not None
    alternatives: list[Alternative] = []
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
                timeline = explanation and len(parts) > 1 and all(p.is_value for p in parts)
                alternatives.append(Alternative(variant, parts, ordered and len(parts) > 1, timeline))
    per = _asked_per(question)
    rates = tuple(Alternative(alt.text, (rate,)) for alt in alternatives if len(alt.parts) == 1
                  and (rate := _as_rate(alt.parts[0], per)) is not None)
    return Gold(text, (*alternatives, *rates), choice=choice, per=per)


_TIMES_PER = re.compile(rf"\btimes\s+(?:{'|'.join(RATE_WORDS)})\s+({'|'.join(RATE_PERIODS)})\b", re.I)


def _asked_per(question: str | None) -> str | None:
    """The period a question asks a count per: "How many times a week do I go?" -> "week"."""
    m = _TIMES_PER.search(question or "")
    return m.group(1).lower() if m else None


def _as_rate(pattern: Pattern, per: str | None) -> Pattern | None:
    """A bare count asked per period, as that rate: 3 asked per week is also "3 times a week"."""
    v = pattern.single_value
    if per is None or v is None or v.kind != NUM or v.unit is not None:
        return None
    return _pattern(f"{pattern.text} times a {per}")


_FIRST_SENTENCE = re.compile(r"^.*?[.!?](?=\s|$)", re.S)


def answer_form(gold: str, question: str | None, abstention: bool = False) -> str:
    """The gold as a terse answer would give it, the form every reward must pay: its first
    alternative without the gold's own notes ("25:50 (or 25 minutes and 50 seconds)" -> "25:50";
    "Yes. (You ...)" -> "Yes"); on an abstention item, the explanation's first sentence ("The
    information provided is not enough. You mentioned ..." -> its first sentence)."""
    if abstention:
        m = _FIRST_SENTENCE.match(gold.strip())
        return m.group(0) if m else gold.strip()
    parsed = parse_gold(gold, question)
    if parsed.polarity is not None:
        return parsed.polarity.capitalize()
    return parsed.alternatives[0].text if parsed.alternatives else gold


@lru_cache(maxsize=8192)
def parse_value(value: str, per: str | None = None) -> tuple[Pattern, ...]:
    """A superseded or decoy value as patterns (its body, and any alias in parentheses; a count asked
    ``per`` a period, :attr:`Gold.per`, as that rate too)."""
    body, aliases = _strip_detail_parens(value.strip())
    patterns = tuple(p for v in (body.strip().rstrip("."), *aliases) if v and (p := _pattern(v)) is not None)
    return (*patterns, *(rate for p in patterns if (rate := _as_rate(p, per)) is not None))

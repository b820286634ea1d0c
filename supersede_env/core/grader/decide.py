"""The decision: from the mentions and their roles to a :class:`~supersede_env.core.verdict.Verdict`.

One principle: an answer earns r_cur = 1 only when it **commits** to the current value, that is, the
gold is stated with the role ``current`` and no other candidate is put forward (``current``,
``hedged`` or ``hypothetical``). r_stale = -1 when a superseded value is put forward, never for
naming it as history. The two modes differ only in how much else the answer may say:

- ``official`` (evaluation; LongMemEval's judge rule): history, negations and explanations may sit
  beside the answer, as long as the updated value is the one given. Long answers are judged by
  their conclusion.
- ``strict`` (the training reward): the answer place asserts the current value and names no other
  candidate at all, in any role, and nothing in it hedges or abstains. The cheapest way to be paid
  is to answer the current value plainly.

Abstention items are right when the answer abstains and puts no value forward ("I don't know;
maybe Taipei" is a guess, not an abstention).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from functools import lru_cache

from supersede_env.core.grader.abstention import COMMIT, abstentions
from supersede_env.core.grader.accounting import unaccounted
from supersede_env.core.grader.answer import SHORT_REPLY, START_OF, Answer
from supersede_env.core.grader.gold import Alternative, Gold, Pattern, question_info
from supersede_env.core.grader.lexicon import (
    AFTER_A_BARE_NO, AFTER_WORDS, ANTONYMS, AUXILIARIES, BEFORE_WORDS, DISCOURSE, FUNCTION_STEMS, GUESS_WORDS,
    GUESSING_PAST, JOINERS, META_WORDS, NEGATORS, SENTENCE_END, SOFT, YES_NO_WORDS,
)
from supersede_env.core.grader.candidates import find_mentions
from supersede_env.core.grader.mention import OFFERED, Mention
from supersede_env.core.grader.rivals import is_bare_item
from supersede_env.core.grader.roles import BOUND_CUE, CueReading, assign_roles
from supersede_env.core.grader.names import name_runs, namelike
from supersede_env.core.grader.passes import _tense_decides
from supersede_env.core.grader.text import normalise_text
from supersede_env.core.grader.tokens import PUNCT, VALUE_KINDS, WORD, Token, tokenize, values_equal
from supersede_env.core.verdict import Verdict

__all__ = ["grade_value", "grade_yes_no", "grade_abstention_item", "verdict"]


def verdict(label: str, reason: str, extracted: str, mode: str, *, r_stale: float = 0.0,
            r_cur: float | None = None) -> Verdict:
    if r_cur is None:
        r_cur = 1.0 if label == "current" else 0.0
    return Verdict(label, r_cur, r_stale, reason, extracted.strip(), mode)


# ---------------------------------------------------------------------------------------------
# Answerable items with a value gold
# ---------------------------------------------------------------------------------------------
def _committed(gold: Gold, gold_mentions: list[Mention]) -> tuple[int, list[Mention]] | None:
    """The first gold alternative whose every part has a mention stated as current (in order when
    the alternative is ordered), and those mentions."""
    for ai, alt in enumerate(gold.alternatives):
        chosen: list[Mention] = []
        stated = ("current", "past") if alt.timeline else ("current",)
        for pi in range(len(alt.parts)):
            current = [m for m in gold_mentions if m.part == (ai, pi) and m.role in stated]
            if not current:
                break
            chosen.append(current[0])
        else:
            if alt.ordered and any(x.first >= y.first for x, y in zip(chosen, chosen[1:])):
                continue
            if alt.timeline and not _in_time_order(chosen):
                continue
            return ai, chosen
    return None


def _in_time_order(chosen: list[Mention]) -> bool:
    """A then-and-now gold ("4 engineers when you started; 5 now"): the answer's own marks put the values
    in that order ("5 now; 4 when you started"), or, unmarked, it names them in that order ("4 and 5")."""
    then, now = chosen[0], chosen[-1]
    if (now.role == "past" and then.role != "past") or then.marked == "now":
        return False
    marked = then.role == "past" or now.marked in ("now", "next")
    return marked or then.first < now.first


_DOUBT_REACH = 80  # characters: "Portland. But I'm not sure." doubts the value right before it
_DOUBT = re.compile(r"\b(?:not|n't)\s+(?:\w+\s+){0,2}?(?:sure|certain|confident)\b|\bi\s+(?:do\s+not|don't)\s+know\b"
                    r"|\bno\s+idea\b|\bunsure\b|\buncertain\b|\bcan(?:not|'t)\s+be\s+(?:sure|certain)\b")

# a confidence under certainty given after the value ('{"answer": "X", "confidence": 0.4}', "confidence: 60%")
_LOW_CONFIDENCE = re.compile(r"\bconfidence\s*[:=]?\s*(?:0?\.\d+|0\b|[1-9]\d?(?:\.\d+)?\s*(?:%|percent\b))")

# "Lexington; unknown", "Lexington (not mentioned)": the value, then a bare abstention beside it
_UNKNOWN_AFTER = re.compile(r"[ \t]*[;,/(\n-]?[ \t]*(?:or[ \t]+)?(?:unknown|not[ \t]+(?:mentioned|stated|given|known)|n/a)\b")


@lru_cache(maxsize=4096)
def _gold_terms(gold_text: str) -> tuple[frozenset[str], tuple[Token, ...]]:
    """The gold's own word stems and values: an answer may repeat them ("less water (5 ounces)")."""
    tokens = tokenize(normalise_text(gold_text))
    return frozenset(t.value for t in tokens if t.kind == WORD), tuple(t for t in tokens if t.kind in VALUE_KINDS)


@lru_cache(maxsize=4096)
def _frame(question: str | None, gold_text: str) -> frozenset[str]:
    """The words whose cues are what is asked about, not roles the answer gives: the question's (as
    written and as stems) and the gold's own ("No, you did not visit with a friend")."""
    info = question_info(question)
    return info.words | info.stems | frozenset(t.text for t in tokenize(normalise_text(gold_text)) if t.kind == WORD)


def _order_says_gold_first(a: Answer, gold: Gold, g: Mention, o: Mention) -> bool | None:
    """A "which came first, A or B" answer that names both: does it put the gold's option in the asked place?"""
    choice = gold.choice
    if choice is None or choice.asks_first is None:
        return None
    lo, hi = sorted(((g.first, g.last), (o.first, o.last)))
    between = {t.value for t in a.tokens[lo[1] + 1:hi[0]] if t.kind == WORD}
    after_first = {t.value for t in a.tokens[hi[1] + 1:hi[1] + 4] if t.kind == WORD}
    if between & BEFORE_WORDS or "first" in after_first and not between:
        first_named_first = True
    elif between & AFTER_WORDS:
        first_named_first = False
    else:
        return None
    gold_is_first = (lo == (g.first, g.last)) == first_named_first
    return gold_is_first == choice.asks_first




def _mentions(a: Answer, gold: Gold, stale: tuple[str, ...], decoys: tuple[str, ...], strict: bool,
              question: str | None) -> tuple[list[Mention], Answer, CueReading]:
    stems = question_info(question).stems
    mentions = find_mentions(a, gold, stale, decoys, strict, stems)
    if not any(m.kind == "gold" for m in mentions) and (whole := a.unmasked()) is not None \
            and _gold_in_masked(a, whole, gold):
        # the gold may be worded like the question ("the meeting with Rachel happened first"): read
        # the restated options too (never a restated question), for the gold and its rivals alike
        again = find_mentions(whole, gold, stale, decoys, strict, stems)
        if any(m.kind == "gold" for m in again):
            mentions, a = again, whole
    # in "which came first" questions, order words ("before", "then") are the answer, not history
    info = question_info(question)
    cues = assign_roles(a, mentions, ordering=gold.choice is not None, frame=_frame(question, gold.text),
                        strict=strict,
                        dated_question=info.dated)
    _tense_decides(a, mentions)
    return mentions, a, cues


def _gold_in_masked(a: Answer, whole: Answer, gold: Gold) -> bool:
    """Does the restated part of the answer hold a word or value the gold starts with? (else no retry)"""
    masked = set(whole.all_content).difference(a.all_content)
    firsts = [p.required[0] for alt in gold.alternatives for p in alt.parts if p.required]
    for i in masked:
        t = a.tokens[i]
        for g in firsts:
            if (g.kind == WORD and t.kind == WORD and g.value == t.value) or (
                    g.kind != WORD and t.kind != WORD and values_equal(g, t)):
                return True
    return False


def _name(m: Mention) -> str:
    return m.text if m.kind != "rival" else m.text.strip()


def grade_value(a: Answer, gold: Gold, stale: tuple[str, ...], decoys: tuple[str, ...], question: str | None,
                mode: str, widened: bool) -> Verdict | None:
    """Grade an answerable item; None when the conclusion says nothing gradable."""
    mentions, a, cues = _mentions(a, gold, stale, decoys, mode == "strict", question)
    return _decide(a, gold, mentions, mode, widened, cues, question)


def _decide(a: Answer, gold: Gold, mentions: list[Mention], mode: str, widened: bool, cues: CueReading,
            question: str | None) -> Verdict | None:
    """The verdict from the mentions and their roles (see the module docstring)."""
    strict = mode == "strict"
    concl = a.conclusion_text
    gold_mentions = [m for m in mentions if m.kind == "gold"]
    others = [m for m in mentions if m.kind != "gold"]
    if not strict:
        # an unknown item found beside one statement of the gold ("Thrive Market and Walmart") does not
        # undo another, clean statement of it ("... so: Thrive Market")
        anchors = {m.anchor for m in others if m.anchor is not None}
        if any((m.first, m.last) not in anchors for m in gold_mentions if m.role == "current"):
            others = [m for m in others if m.anchor is None]
    offered = [m for m in others if m.role in OFFERED]
    stale_offered = [m for m in offered if m.kind == "stale"]
    r_stale = -1.0 if stale_offered else 0.0
    committed = _committed(gold, gold_mentions)
    abst = abstentions(a, a.start_char)

    if committed is not None:
        _, chosen = committed
        where = a.snippet(chosen[0].first, chosen[0].last)
        if offered:
            rival = stale_offered[0] if stale_offered else offered[0]
            if rival.kind == "option" and not stale_offered:
                order = _order_says_gold_first(a, gold, chosen[0], rival)
                if order is True:
                    return verdict("current", f"puts {where!r} in the asked order", concl, mode)
                if order is False:
                    return verdict("wrong", f"puts {_name(rival)!r} in the asked order", concl, mode)
            how = f" ({rival.role}: {rival.cue!r})" if rival.role != "current" and rival.cue else ""
            return verdict("hedged", f"gives {where!r} and also puts forward {_name(rival)!r}{how}", concl, mode,
                           r_stale=r_stale)
        if strict:
            named = [m for m in others if m.kind != "option" or m.role != "negated"]
            if named:
                m = named[0]
                return verdict("hedged", f"strict: states {where!r} but also names {_name(m)!r} ({m.role})",
                               concl, mode)
            hedge = _uncommitted_gold(gold_mentions)
            if hedge is not None:
                return verdict("hedged", f"strict: states {where!r} but also {hedge}", concl, mode)
            if abst:
                return verdict("hedged", f"strict: states {where!r} but also abstains ({abst[0].group(0)!r})",
                               concl, mode)
        elif len(a.text) <= SHORT_REPLY and (denied := _denied_gold(gold_mentions)) is not None:
            # "Lexington, not Lexington": a short reply that also denies the gold commits to nothing
            return verdict("hedged", f"states {where!r} and also denies it ({denied.cue!r})", concl, mode)
        if not widened and abst:
            first_gold = a.tokens[chosen[0].first].start
            before = [m for m in abst if m.start() < first_gold]
            if before and COMMIT.search(a.text, before[-1].end(), first_gold) is None:
                return verdict("abstained", f"abstains ({before[0].group(0)!r}) before mentioning {where!r}",
                               concl, mode)
        gold_end = a.tokens[chosen[-1].last].end
        doubt = _DOUBT.search(a.text, gold_end, gold_end + _DOUBT_REACH) or _UNKNOWN_AFTER.match(a.text, gold_end) or (
            _LOW_CONFIDENCE.search(a.text, gold_end, gold_end + _DOUBT_REACH))
        if doubt is not None:
            return verdict("hedged", f"states {where!r}, then doubts it ({doubt.group(0)!r})", concl, mode)
        info = question_info(question)
        gold_words, gold_values = _gold_terms(gold.text)
        word = unaccounted(a, chosen[0].first, chosen[-1].last, [(m.first, m.last) for m in mentions if not m.loose],
                           cues, gold.single_value, info.stems, info.values + gold_values, gold_words)
        if word is not None:
            return verdict("hedged", f"states {where!r}, but {word!r} beside it is not accounted for", concl, mode)
        return verdict("current", f"states {where!r}", concl, mode)

    if stale_offered:
        m = stale_offered[0]
        if m.role == "current" and not any(x.role in OFFERED for x in gold_mentions):
            return verdict("stale", f"states superseded {_name(m)!r}", concl, mode, r_stale=-1.0)
        return verdict("hedged", f"puts forward superseded {_name(m)!r} ({m.role})", concl, mode, r_stale=-1.0)
    offered_gold = [m for m in gold_mentions if m.role in ("hedged", "hypothetical")]
    if offered_gold:
        m = offered_gold[0]
        return verdict("hedged", f"only {m.role} {a.snippet(m.first, m.last)!r} ({m.cue!r})", concl, mode)
    if abst:
        return verdict("abstained", f"abstains: {abst[0].group(0)!r}", concl, mode)
    if offered:
        m = offered[0]
        return verdict("wrong", f"states {_name(m)!r}, not the gold", concl, mode)
    partial = [m for m in gold_mentions if m.role == "current"]
    if partial:
        return verdict("wrong", f"gives only part of the gold ({a.snippet(partial[0].first, partial[0].last)!r})",
                       concl, mode)
    if gold_mentions or others:
        m = (gold_mentions or others)[0]
        return verdict("wrong", f"commits to no value: {_name(m)!r} is {m.role} ({m.cue!r})", concl, mode)
    return None


def _denied_gold(gold_mentions: list[Mention]) -> Mention | None:
    """A statement of the gold that denies it, beside another that states it (official mode)."""
    return next((m for m in gold_mentions if m.role == "negated" and not m.loose and m.cue != BOUND_CUE), None)


def _uncommitted_gold(gold_mentions: list[Mention]) -> str | None:
    """Strict: a second statement of the gold that hedges or denies it ("Portland. Maybe Portland.")."""
    for m in gold_mentions:
        if m.role != "current" and not m.loose:
            return f"{m.role} ({m.cue!r})"
    return None


# ---------------------------------------------------------------------------------------------
# Yes / no golds
# ---------------------------------------------------------------------------------------------
_YES_NO = re.compile(
    r"(?:^|[\n:.!?*\"(]\s*|\banswer\s+(?:is|would\s+be)\s*:?\s*\**\s*)(yes|no)\b(?=\s*[,.!;:*)\n\"]|\s*$|\s+-)"
)
_SENTENCE_SPLIT = re.compile(r"(?<=[.!?])\s+|\n+")


def _polarity(a: Answer, question: str | None) -> str | None:
    """"yes" / "no" stated by the conclusion: explicitly, or by a (non-)negated statement."""
    concl = a.text[a.start_char:]
    found = None
    for found in _YES_NO.finditer(concl):
        pass
    if found is not None:
        return found.group(1)
    q_stems = question_info(question).content_stems
    for sentence in reversed([s for s in _SENTENCE_SPLIT.split(concl) if s.strip()]):
        if sentence.rstrip().endswith("?"):
            continue  # a question (the restated one) answers nothing
        toks = tokenize(sentence)
        stems = {t.value for t in toks if t.kind == WORD}
        if q_stems and not (stems & q_stems):
            continue
        negated = any(t.kind == WORD and (t.text in NEGATORS or t.text.endswith("n't")) for t in toks)
        # "less frequently" answering "more frequently?" says no
        flipped = any(ANTONYMS.get(s) in q_stems and s not in q_stems for s in stems)
        return "no" if negated != flipped else "yes"
    return None


def grade_yes_no(a: Answer, gold: Gold, question: str | None, mode: str, stale: tuple[str, ...] = ()) -> Verdict | None:
    """A yes/no gold. An explicit "yes" / "no" is a value like any other (hedged, denied, offered
    beside its opposite: by the same roles); without one, the conclusion's statement decides."""
    concl = a.conclusion_text
    abst = abstentions(a, a.start_char)
    if abst:
        return verdict("abstained", f"abstains: {abst[0].group(0)!r}", concl, mode)
    stale_polarity = {m.group(1).lower() for s in stale if (m := _YES_NO_VALUE.match(s))}
    explicit = _explicit_yes_no(a)
    if explicit:
        mentions = [Mention(word, "gold" if word == gold.polarity else ("stale" if word in stale_polarity else "rival"),
                            i, i, part=(0, 0) if word == gold.polarity else None) for i, word in explicit]
        cues = assign_roles(a, mentions, frame=_frame(question, gold.text),
                            strict=mode == "strict")
        _tense_decides(a, mentions)
        polar = Gold(gold.text, (Alternative(gold.polarity or "", (Pattern(gold.polarity or "", ()),)),))
        return _decide(a, polar, mentions, mode, True, cues, question)
    pol = _polarity(a, question)
    if pol is None:
        return None
    if pol == gold.polarity:
        return verdict("current", f"answers {pol!r} like the gold", concl, mode)
    if pol in stale_polarity:
        return verdict("stale", f"answers {pol!r}, the superseded answer", concl, mode, r_stale=-1.0)
    return verdict("wrong", f"answers {pol!r}, gold is {gold.polarity!r}", concl, mode)


_YES_NO_VALUE = re.compile(r"^\s*(yes|no)\b", re.I)


def _explicit_yes_no(a: Answer) -> list[tuple[int, str]]:
    """Token index and word of every explicit "yes" / "no" in the conclusion: every "yes", and every
    "no" that stands alone ("No.", "it used to be no", "Yes; No"), not one that qualifies a noun ("no
    information", "no longer")."""
    tokens = a.tokens
    found = []
    for i in range(a.start, len(tokens)):
        t = tokens[i]
        word = YES_NO_WORDS.get(t.text, t.text) if t.kind == WORD else ""
        if word not in ("yes", "no"):
            continue
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        if word == "yes" or t.text != "no" or nxt is None or nxt.kind == PUNCT or nxt.text in AFTER_A_BARE_NO:
            found.append((i, word))
    return found






# ---------------------------------------------------------------------------------------------
# Abstention items
# ---------------------------------------------------------------------------------------------
def _value_like(a: Answer, question: str | None) -> list[Mention]:
    """Things an abstaining answer might put forward: values (not the question's own) and names."""
    tokens = a.tokens
    q_values = [t for t in tokenize(normalise_text(question or "")) if t.kind in VALUE_KINDS]
    out = [Mention(a.snippet(i, i), "rival", i, i) for i in range(a.start, len(tokens))
           if tokens[i].kind in VALUE_KINDS and not any(values_equal(q, tokens[i]) for q in q_values)]
    out += [Mention(a.snippet(i, j), "rival", i, j)
            for i, j in name_runs(a, question_info(question).stems, beside_abstention=True)]
    return sorted(out, key=lambda m: (m.first, m.last))






def _joined_to_abstention(a: Answer, found: list[re.Match[str]]) -> str | None:
    """A word offered as the other side of an "or" with the abstention, in any case ("luna or unknown",
    "not sure / luna"), alone in parentheses beside it ("unknown (taipei)"), or after a hedge word that
    follows it ("Not mentioned. Perhaps taipei."): a guess. Read in short replies only (a reasoned one
    says "more context or details")."""
    tokens = a.tokens
    n = len(tokens)
    for m in found:
        first = bisect_left(tokens, m.start(), key=START_OF)
        last = bisect_left(tokens, m.end(), key=START_OF) - 1
        for joiner, other in ((first - 1, first - 2), (last + 1, last + 2)):
            if 0 <= other < n and 0 <= joiner and tokens[joiner].text in JOINERS and _a_guess(tokens[other]):
                return a.snippet(other, other)
        # "N/A (Taipei)", "unknown (tomasz nowak?)": a guess alone in parentheses right after it
        if last + 2 < n and tokens[last + 1].text == "(" and (end := _guess_run(tokens, last + 2)) is not None:
            return a.snippet(last + 2, end)
    # "Not mentioned. Perhaps taipei." (a guess that ends its sentence), not "Maybe check your notes."
    after = found[-1].end()
    for i in range(bisect_left(tokens, after, key=START_OF), n - 1):
        if tokens[i].kind == WORD and tokens[i].text in GUESS_WORDS and (end := _guess_run(tokens, i + 1)) is not None:
            return a.snippet(i, end)
    return None


def _guess_run(tokens: list[Token], k: int) -> int | None:
    """The last index of one to three guess-like tokens from k that end their sentence or parenthesis."""
    j = k
    while j < len(tokens) and j - k < 3 and _a_guess(tokens[j]):
        j += 1
    if j == k:
        return None
    return j - 1 if j >= len(tokens) or tokens[j].text in SENTENCE_END or tokens[j].text in (",", ")") else None




def _a_guess(t: Token) -> bool:
    """Could token ``t`` be a guessed value: a value, or a word that may name one (not a pronoun, cue,
    discourse, auxiliary or soft word)?"""
    return t.kind in VALUE_KINDS or (t.kind == WORD and namelike(t, frozenset()) and t.text not in DISCOURSE
                                     and t.text not in AUXILIARIES and t.text not in SOFT and t.value not in META_WORDS)


def _about_the_asked(a: Answer, m: Mention, question: str | None, found: list[re.Match[str]]) -> bool:
    """Is ``m`` stated in a clause about what the question asks (the clause shares a content word of the
    question, and holds no abstention)? "your dog is Rex" beside "no cat was mentioned" is not."""
    asked = question_info(question).content_stems - FUNCTION_STEMS
    if not asked:
        return False
    tokens = a.tokens
    lo = m.first
    while lo > 0 and not _breaks_clause(tokens[lo - 1]):
        lo -= 1
    hi = m.last
    while hi + 1 < len(tokens) and not _breaks_clause(tokens[hi + 1]):
        hi += 1
    start, end = tokens[lo].start, tokens[hi].end
    if any(f.start() < end and f.end() > start for f in found):
        return False
    return any(tokens[k].kind == WORD and tokens[k].value in asked for k in range(lo, hi + 1) if not m.first <= k <= m.last)


def _breaks_clause(t: Token) -> bool:
    return t.kind == PUNCT and (t.text in SENTENCE_END or t.text in (";", ",", "\n", "\n\n", "(", ")")) or (
        t.kind == WORD and t.text in ("or", "but", "and"))




def grade_abstention_item(a: Answer, stale: tuple[str, ...], decoys: tuple[str, ...], gold: Gold,
                          question: str | None, mode: str) -> Verdict:
    """On an abstention item the right answer says the information is not available, and guesses nothing."""
    concl = a.conclusion_text
    in_conclusion = abstentions(a, a.start_char)
    if not in_conclusion:
        if abstentions(a, 0):
            return verdict("wrong", "reasons that the information is missing but concludes with an answer", concl,
                           mode)
        return verdict("wrong", "gives an answer where the information is not available", concl, mode)
    last = in_conclusion[-1]
    if len(a.text) <= SHORT_REPLY and (joined := _joined_to_abstention(a, in_conclusion)) is not None:
        return verdict("wrong", f"offers {joined!r} beside the abstention", concl, mode)
    commit = COMMIT.search(a.text, last.end())
    if commit is not None:
        return verdict("wrong", f"says {last.group(0)!r} but then commits ({commit.group(0)!r})", concl, mode)
    strict = mode == "strict"
    known = find_mentions(a, Gold("", ()), stale, decoys, strict) if (stale or decoys) else []
    candidates = sorted([*known, *_value_like(a, question)], key=lambda m: (m.first, m.last))
    assign_roles(a, candidates, frame=_frame(question, ""), strict=strict)
    for m in candidates:
        # put forward: by a guess or history cue, or standing alone as an item ("I don't know - Taipei")
        guessed = m.role in ("hedged", "hypothetical") or (m.role == "past" and m.cue in GUESSING_PAST) or (
            m.marked in ("now", "next")) or (m.role == "current" and is_bare_item(a.tokens, m.first, m.last, frozenset()))
        if strict:  # the strict reward: an abstention names no candidate and no value at all
            # nor states a name of the asked thing ("The cat is called Luna, or it was never mentioned");
            # official mode lets a reasoned abstention tell what was said about related things, as the judge does
            guessed = guessed or (m.role == "current" and _about_the_asked(a, m, question, in_conclusion))
            guessed = guessed or (m.kind != "rival" and m.role != "negated") or a.tokens[m.first].kind in VALUE_KINDS
        if guessed:
            return verdict("wrong", f"says {last.group(0)!r} but puts forward {m.text!r} ({m.role}"
                           f"{', ' + repr(m.cue) if m.cue else ''})", concl, mode)
    return verdict("abstained", f"abstains: {last.group(0)!r}", concl, mode, r_cur=1.0)

"""The decision: from the mentions and their roles to a :class:`~supersede_env.core.verdict.Verdict`.

One principle: an answer earns r_cur = 1 only when it **commits** to the current value, that is, the
gold is stated with the role ``current`` and no other candidate is put forward (``current``,
``hedged`` or ``hypothetical``). r_stale = -1 when a superseded value is put forward, never for
naming it as history. The two modes differ only in how much else the answer may say:

- ``official`` (evaluation; LongMemEval's judge rule): history, negations and explanations may sit
  beside the answer, as long as the updated value is the one given. Long answers are judged by
  their conclusion. A statement of the gold whose sentence holds a word the accounting cannot read
  (:mod:`.accounting`) is ``unsure``: not decided, for the judge.
- ``strict`` (the training reward): the answer place asserts the current value and names no other
  candidate at all, in any role, and nothing in it hedges or abstains. The cheapest way to be paid
  is to answer the current value plainly.

Abstention items are right when the answer abstains and puts no value forward ("I don't know;
maybe Taipei" is a guess, not an abstention).


Yes/no golds are :mod:`.yes_no`'s: an explicit "yes" or "no" is decided here like any other value."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from supersede_env.core.grader.abstention import COMMIT, abstentions, doubt_after, self_doubt
from supersede_env.core.grader.accounting import unaccounted
from supersede_env.core.grader.answer import SHORT_REPLY, Answer
from supersede_env.core.grader.candidates import find_mentions
from supersede_env.core.grader.gold import Gold
from supersede_env.core.grader.lexicon import (
    AFTER_WORDS,
    BEFORE_WORDS,
)
from supersede_env.core.grader.mention import OFFERED, RANGE_CUE, Mention
from supersede_env.core.grader.passes import tense_decides
from supersede_env.core.grader.question import question_info
from supersede_env.core.grader.roles import BOUND_CUE, CueReading, assign_roles
from supersede_env.core.grader.tokens import (
    VALUE_KINDS,
    WORD,
    Token,
    normalise_text,
    tokenize,
    values_equal,
)
from supersede_env.core.verdict import Verdict

__all__ = ["candidate_terms", "decide", "frame_words", "grade_value", "part_of_gold", "verdict"]


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


@lru_cache(maxsize=4096)
def candidate_terms(text: str) -> tuple[frozenset[str], tuple[Token, ...]]:
    """A candidate's own word stems and values (cached: one item is graded many times). An answer may
    repeat the gold's ("less water (5 ounces)"); a contract's EVIDENCE may cite any candidate's."""
    tokens = tokenize(normalise_text(text))
    return frozenset(t.value for t in tokens if t.kind == WORD), tuple(t for t in tokens if t.kind in VALUE_KINDS)


@lru_cache(maxsize=4096)
def frame_words(question: str | None, gold_text: str) -> frozenset[str]:
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




def read_mentions(a: Answer, gold: Gold, stale: tuple[str, ...], decoys: tuple[str, ...],
                  question: str | None) -> tuple[list[Mention], Answer, CueReading]:
    """Official mode's mentions of every candidate, each with the role its cues give it (``supersede grade
    --explain`` prints them); the answer they were read in (the question's words unmasked when the gold is
    worded like them); the cue reading the accounting uses."""
    stems = question_info(question).stems
    mentions = find_mentions(a, gold, stale, decoys, stems)
    if not any(m.kind == "gold" for m in mentions) and (whole := a.unmasked()) is not None \
            and _gold_in_masked(a, whole, gold):
        # the gold may be worded like the question ("the meeting with Rachel happened first"): read
        # the restated options too (never a restated question), for the gold and its rivals alike
        again = find_mentions(whole, gold, stale, decoys, stems)
        if any(m.kind == "gold" for m in again):
            mentions, a = again, whole
    # in "which came first" questions, order words ("before", "then") are the answer, not history
    info = question_info(question)
    cues = assign_roles(a, mentions, ordering=gold.choice is not None, frame=frame_words(question, gold.text),
                        dated_question=info.dated, timeline=any(alt.timeline for alt in gold.alternatives))
    tense_decides(a, mentions)
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
    mentions, a, cues = read_mentions(a, gold, stale, decoys, question)
    return decide(a, gold, mentions, mode, widened, cues, question)


@dataclass(frozen=True)
class _Case:
    """One answer's mentions sorted for the decision."""

    a: Answer
    gold: Gold
    mentions: list[Mention]
    gold_mentions: list[Mention]
    others: list[Mention]  # every other candidate
    offered: list[Mention]  # others put forward (current, hedged, hypothetical)
    stale_offered: list[Mention]
    abst: list[re.Match[str]]  # abstention phrases in the conclusion
    mode: str

    def verdict(self, label: str, reason: str, **kw: float) -> Verdict:
        return verdict(label, reason, self.a.conclusion_text, self.mode, **kw)


def decide(a: Answer, gold: Gold, mentions: list[Mention], mode: str, widened: bool, cues: CueReading,
           question: str | None) -> Verdict | None:
    """The verdict from the mentions and their roles (see the module docstring)."""
    gold_mentions = [m for m in mentions if m.kind == "gold"]
    others = [m for m in mentions if m.kind != "gold"]
    # an unknown item found beside one statement of the gold ("Thrive Market and Walmart") does not
    # undo another, clean statement of it ("... so: Thrive Market")
    anchors = {m.anchor for m in others if m.anchor is not None}
    if any((m.first, m.last) not in anchors for m in gold_mentions if m.role == "current"):
        others = [m for m in others if m.anchor is None]
    offered = [m for m in others if m.role in OFFERED]
    case = _Case(a, gold, mentions, gold_mentions, others, offered, [m for m in offered if m.kind == "stale"],
                 abstentions(a, a.start_char), mode)
    committed = _committed(gold, gold_mentions)
    if committed is not None:
        return _judge_commitment(case, committed[1], widened, cues, question)
    return _judge_without_commitment(case)


def _judge_commitment(c: _Case, chosen: list[Mention], widened: bool, cues: CueReading,
                      question: str | None) -> Verdict:
    """The answer states the gold as current: paid unless it also puts another value forward,
    denies or doubts the gold, abstains first, or says something beside it the accounting cannot read."""
    a, gold = c.a, c.gold
    where = a.snippet(chosen[0].first, chosen[0].last)
    if c.offered:
        rival = c.stale_offered[0] if c.stale_offered else c.offered[0]
        if all(m.cue == RANGE_CUE for m in c.offered) and not c.stale_offered:
            # "2-3" for gold 2, like a bound: whether a range holding the gold answers is the judge's call
            # (only official mode decides here; strict reads its own closed world in strict.py)
            return c.verdict("unsure", f"gives {where!r} as one end of a range (to {_name(rival)!r})")
        if rival.kind == "option" and not c.stale_offered:
            order = _order_says_gold_first(a, gold, chosen[0], rival)
            if order is True:
                return c.verdict("current", f"puts {where!r} in the asked order")
            if order is False:
                return c.verdict("wrong", f"puts {_name(rival)!r} in the asked order")
        how = f" ({rival.role}: {rival.cue!r})" if rival.role != "current" and rival.cue else ""
        return c.verdict("hedged", f"gives {where!r} and also puts forward {_name(rival)!r}{how}",
                         r_stale=-1.0 if c.stale_offered else 0.0)
    doubted = next((m for m in c.gold_mentions if m.role in ("hedged", "hypothetical") and not m.loose), None)
    if doubted is not None:  # "I think it's Busan (Busan).": which statement stands is the judge's call
        return c.verdict("unsure", f"states {where!r} but also gives it {doubted.role} ({doubted.cue!r})")
    if len(a.text) <= SHORT_REPLY and (denied := _denied_gold(c.gold_mentions)) is not None:
        # "Lexington, not Lexington": a short reply that also denies the gold commits to nothing
        return c.verdict("hedged", f"states {where!r} and also denies it ({denied.cue!r})")
    if not widened and c.abst:
        first_gold = a.tokens[chosen[0].first].start
        before = [m for m in c.abst if m.start() < first_gold]
        if before and COMMIT.search(a.text, before[-1].end(), first_gold) is None:
            return c.verdict("abstained", f"abstains ({before[0].group(0)!r}) before mentioning {where!r}")
    if (doubt := doubt_after(a.text, a.tokens[chosen[-1].last].end)) is not None:
        return c.verdict("hedged", f"states {where!r}, then doubts it ({doubt.group(0)!r})")
    if (doubt := self_doubt(a.text)) is not None:
        return c.verdict("unsure", f"states {where!r}, but the reply also doubts ({doubt.group(0)!r})")
    info = question_info(question)
    gold_words, gold_values = candidate_terms(gold.text)
    word = unaccounted(a, chosen[0].first, chosen[-1].last, [(m.first, m.last) for m in c.mentions if not m.loose],
                       cues, gold.single_value, info.stems, info.values + gold_values, gold_words, info.past)
    if word is not None:  # closed-world: a statement it cannot read whole is not decided either way
        return c.verdict("unsure", f"states {where!r}, but {word!r} in its sentence is not accounted for")
    return c.verdict("current", f"states {where!r}")


def _judge_without_commitment(c: _Case) -> Verdict | None:
    """No statement of the gold as current: stale, hedged, abstained or wrong, by what it does say;
    None when it says nothing gradable."""
    if c.stale_offered:
        m = c.stale_offered[0]
        if m.role == "current" and not any(x.role in OFFERED for x in c.gold_mentions):
            return c.verdict("stale", f"states superseded {_name(m)!r}", r_stale=-1.0)
        return c.verdict("hedged", f"puts forward superseded {_name(m)!r} ({m.role})", r_stale=-1.0)
    offered_gold = [m for m in c.gold_mentions if m.role in ("hedged", "hypothetical")]
    if offered_gold:
        m = offered_gold[0]
        return c.verdict("hedged", f"only {m.role} {c.a.snippet(m.first, m.last)!r} ({m.cue!r})")
    if c.abst:
        return c.verdict("abstained", f"abstains: {c.abst[0].group(0)!r}")
    if c.offered:
        return c.verdict("wrong", f"states {_name(c.offered[0])!r}, not the gold")
    partial = [m for m in c.gold_mentions if m.role == "current"]
    if partial:
        return c.verdict("wrong", f"gives only part of the gold ({c.a.snippet(partial[0].first, partial[0].last)!r})")
    if c.gold_mentions or c.others:
        m = (c.gold_mentions or c.others)[0]
        return c.verdict("wrong", f"commits to no value: {_name(m)!r} is {m.role} ({m.cue!r})")
    return None


def _denied_gold(gold_mentions: list[Mention]) -> Mention | None:
    """A statement of the gold that denies it, beside another that states it (official mode)."""
    return next((m for m in gold_mentions if m.role == "negated" and not m.loose and m.cue != BOUND_CUE), None)


def part_of_gold(a: Answer, gold: Gold, question: str | None) -> str | None:
    """The gold's own words (not the question's) that a concluding span without any statement of the
    gold names, when they are at least half of them and end where the gold ends ("Rhythm Central on
    Main St." for "The music shop on Main St."): whether the rest names the same thing is beyond a
    string reader, so official leaves such an answer unsure. "Ford Mustang" for "Ford F-150 pickup
    truck" or "Premier Gold" for "Premier Silver" replace the gold's end: a different thing, wrong."""
    asked = question_info(question).stems
    said = {a.tokens[i].value for i in a.content if a.tokens[i].kind == WORD}
    for alt in gold.alternatives:
        words = [t.value for p in alt.parts if not p.is_value for t in p.required if t.kind == WORD]
        own = [w for w in dict.fromkeys(words) if w not in asked]
        named = [w for w in own if w in said]
        if named and words[-1] in said and 2 * len(named) >= len(own):
            return " ".join(named)
    return None

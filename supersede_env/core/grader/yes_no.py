"""Yes/no golds: an explicit "yes" or "no" is a value like any other (hedged, denied, offered beside its
opposite: read by the same roles as any value); without one, the conclusion's last statement about
the asked thing decides, by its negation."""

from __future__ import annotations

import re
from functools import lru_cache

from supersede_env.core.grader.abstention import abstentions
from supersede_env.core.grader.answer import Answer
from supersede_env.core.grader.decide import decide, frame_words, verdict
from supersede_env.core.grader.gold import Alternative, Gold, Pattern
from supersede_env.core.grader.lexicon import AFTER_A_BARE_NO, ANTONYMS, NEGATORS, YES_NO_WORDS
from supersede_env.core.grader.mention import Mention
from supersede_env.core.grader.passes import tense_decides
from supersede_env.core.grader.question import question_info
from supersede_env.core.grader.roles import assign_roles
from supersede_env.core.grader.text import normalise_text
from supersede_env.core.grader.tokens import PUNCT, WORD, tokenize
from supersede_env.core.verdict import Verdict

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
    # the question's names ("Nightingale") are its topic: a sentence that only restates them says nothing
    topic = _names_of(question or "")
    for sentence in reversed([s for s in _SENTENCE_SPLIT.split(concl) if s.strip()]):
        if sentence.rstrip().endswith("?"):
            continue  # a question (the restated one) answers nothing
        toks = tokenize(sentence)
        stems = {t.value for t in toks if t.kind == WORD}
        if q_stems and not (stems & q_stems) - topic:
            continue
        negated = any(t.kind == WORD and (t.text in NEGATORS or t.text.endswith("n't")) for t in toks)
        # "less frequently" answering "more frequently?" says no
        flipped = any(ANTONYMS.get(s) in q_stems and s not in q_stems for s in stems)
        return "no" if negated != flipped else "yes"
    return None


@lru_cache(maxsize=4096)
def _names_of(question: str) -> frozenset[str]:
    """Stems of the question's capitalised words after its first ("Did I finish reading Nightingale?")."""
    normalised = normalise_text(question)
    if len(normalised) != len(question):
        return frozenset()  # the casing cannot be read back
    return frozenset(t.value for t in tokenize(normalised)[1:] if t.kind == WORD and t.text != "i"
                     and question[t.start:t.start + 1].isupper())


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
        cues = assign_roles(a, mentions, frame=frame_words(question, gold.text))
        tense_decides(a, mentions)
        polar = Gold(gold.text, (Alternative(gold.polarity or "", (Pattern(gold.polarity or "", ()),)),))
        return decide(a, polar, mentions, mode, True, cues, question)
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
        if word not in YES_NO_WORDS.values():
            continue
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        if word == "yes" or t.text != "no" or nxt is None or nxt.kind == PUNCT or nxt.text in AFTER_A_BARE_NO:
            found.append((i, word))
    return found

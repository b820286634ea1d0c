"""Yes/no golds. An explicit "yes" or "no" is a value like any other (hedged, denied, offered beside its
opposite: read by the same roles, then :func:`~.decide.decide`); without one, the conclusion's last
statement about the asked thing answers, by its negation, unless a hedge, a vague past telling or a
doubting question frames it."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

from supersede_env.core.grader.abstention import abstentions, self_doubt
from supersede_env.core.grader.accounting import courtesy, known_token
from supersede_env.core.grader.answer import TERSE_REPLY, Answer
from supersede_env.core.grader.decide import decide, frame_words, verdict
from supersede_env.core.grader.gold import Alternative, Gold, Pattern
from supersede_env.core.grader.lexicon import (
    AFTER_A_BARE_NO,
    ANTONYMS,
    CONCLUDING_WORDS,
    CONTRAST_WORDS,
    FUNCTION_WORDS,
    NEGATION_TAILS,
    NEGATORS,
    TELLING_VERBS,
    VAGUE_PAST_TIMES,
    YES_NO_WORDS,
)
from supersede_env.core.grader.mention import Mention
from supersede_env.core.grader.passes import tense_decides
from supersede_env.core.grader.question import question_info
from supersede_env.core.grader.roles import assign_roles, cues_in
from supersede_env.core.grader.tokens import PUNCT, WORD, Token, normalise_text, tokenize
from supersede_env.core.verdict import Verdict

__all__ = ["grade_yes_no"]


_YES_NO = re.compile(
    r"(?:^|[\n:.!?*\"(]\s*|\banswer\s+(?:is|would\s+be)\s*:?\s*\**\s*)(yes|no)\b(?=\s*[,.!;:*)\n\"]|\s*$|\s+-)"
)
_SENTENCE_SPLIT = re.compile(r"(?<=[.!?])\s+|\n+")


class _Statement(NamedTuple):
    """What the conclusion says to a yes/no question: the polarity, the tokens of the statement that says
    it (none for an explicit word), the questions the reply asks after it (read only when the polarity
    is the gold's) and its other sentences after it."""

    polarity: str
    tokens: list[Token]
    questions_after: list[str]
    sentences_after: tuple[list[Token], ...] = ()


def _polarity(a: Answer, question: str | None) -> _Statement | None:
    """"yes" / "no" stated by the conclusion: explicitly, or by a (non-)negated statement."""
    concl = a.text[a.start_char:]
    found = None
    for found in _YES_NO.finditer(concl):
        pass
    if found is not None:
        return _Statement(found.group(1), [], [])
    q_stems = question_info(question).content_stems
    # the question's names ("Nightingale") are its topic: a sentence that only restates them says nothing
    topic = _names_of(question or "")
    questions: list[str] = []
    after: list[list[Token]] = []
    for sentence in reversed([s for s in _SENTENCE_SPLIT.split(concl) if s.strip()]):
        if sentence.rstrip().endswith("?"):
            questions.append(sentence)  # a question (the restated one) answers nothing
            continue
        whole = tokenize(sentence)
        toks = _concluding_clause(whole, q_stems, topic)
        stems = {t.value for t in toks if t.kind == WORD}
        if q_stems and not (stems & q_stems) - topic:
            after.append(whole)
            continue
        negated = any(t.kind == WORD and (t.text in NEGATORS or t.text.endswith("n't")) for t in toks)
        # "less frequently" answering "more frequently?" says no
        flipped = any(ANTONYMS.get(s) in q_stems and s not in q_stems for s in stems)
        return _Statement("no" if negated != flipped else "yes", toks, questions, tuple(reversed(after)))
    return None


def _concluding_clause(tokens: list[Token], q_stems: frozenset[str], topic: frozenset[str]) -> list[Token]:
    """The clause a sentence concludes with, when it speaks of the asked thing ("You sold it, so you don't
    own a car now."): the reasons before it are not the answer's statement; else the whole sentence."""
    for k in range(len(tokens) - 1, 0, -1):
        if tokens[k].text in CONCLUDING_WORDS and tokens[k - 1].text == ",":
            clause = tokens[k + 1:]
            if ({t.value for t in clause if t.kind == WORD} & q_stems) - topic:
                return clause
    return tokens


def _unread_word(said: _Statement, question: str | None, gold_text: str, terse: bool) -> str | None:
    """The first word of the statement the official reader cannot account for, or None: the statement is
    read closed-world, as a value's is (:func:`~.accounting.unaccounted`). Known are the question's and
    the gold's words, the reader's known words (:data:`~.lexicon.OFFICIAL_KNOWN`), the words that give
    the polarity (a negation, the antonym of a question's word: "less" for "more often?"), the words of
    a time cue ("earlier you owned one", "these days"), courtesy ("Good question - ...") and values (the
    evidence's details: "four times a week"). "You mentioned wanting a dog.", "Your neighbour has a
    dog.", "You no longer own a car, to my knowledge." are left to the judge. A terse reply's sentences
    after the statement are read the same way ("You don't own a car. Actually, you do."), and a question
    after it must be courtesy ("Anything else?"; not "Or do you?")."""
    info = question_info(question)
    known = frame_words(question, gold_text)
    for tokens in (said.tokens, *(said.sentences_after if terse else ())):
        timed = {k for hit in cues_in(tokens) if hit.cue.kind in _TIME_CUES for k in range(hit.first, hit.last + 1)}
        polite = courtesy(tokens)
        for k, t in enumerate(tokens):
            if k in timed or k in polite:
                continue
            if tokens is said.tokens and t.kind == WORD and (t.text in NEGATORS or t.text in NEGATION_TAILS
                                                             or t.text.endswith("n't")
                                                             or ANTONYMS.get(t.value) in info.stems):
                continue  # the statement's polarity; after it a negation denies it ("You have a dog. Not.")
            if not known_token(t, None, known, info.values, evidence=True):
                return t.text
    for asked in said.questions_after if terse else ():
        tokens = tokenize(asked)
        if len(courtesy(tokens)) < len(tokens):
            return "?"  # a question of its own after it ("Or do you?"), not courtesy ("Anything else?")
    return None


def _vague_time(tokens: list[Token]) -> str | None:
    """A past moment no session pins down ("at one point", "a while ago"), in a statement."""
    words = [t.text for t in tokens]
    for i in range(len(words)):
        for phrase in VAGUE_PAST_TIMES:
            if tuple(words[i:i + len(phrase)]) == phrase:
                return " ".join(phrase)
    return None


def _statement_frame(a: Answer, said: _Statement) -> str | None:
    """What makes a yes/no statement other than an answer: a hedge anywhere in the conclusion ("Chances are
    you no longer own a car.", "You have a dog... possibly."), a past telling it is reported from ("You told
    me at one point that ..."), or a question after it that doubts it ("... or is that outdated?")."""
    hedge = next((h for h in cues_in(a.tokens[a.start:]) if h.cue.kind in _STATEMENT_HEDGES), None)
    if hedge is not None:
        return f"{hedge.cue.kind} {' '.join(hedge.cue.words)!r}"
    told = next((t.text for t in said.tokens if t.text in TELLING_VERBS), None)
    if told is not None and (when := _vague_time(said.tokens)) is not None:
        return f"a telling at a vague past time ({told!r}, {when!r})"
    for asked in said.questions_after:
        if doubt := next((h for h in cues_in(tokenize(asked)) if h.cue.kind in _QUESTION_DOUBTS), None):
            return f"a question that doubts it ({' '.join(doubt.cue.words)!r})"
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
        asked = question_info(question).stems
        for m in mentions:
            if m.role == "current" or (end := _role_from_restatement(a, m)) is None:
                continue
            if m.text == "no" and m.role == "negated":
                m.role, m.cue = "current", ""  # "No, you no longer own a car.": the restatement's negation agrees
            elif m.text == "yes" and m.role in ("past", "negated") and _of_another_predicate(a, end, asked):
                m.role, m.cue = "current", ""  # "Yes - you used to eat meat": the cue speaks of eating meat
        polar = Gold(gold.text, (Alternative(gold.polarity or "", (Pattern(gold.polarity or "", ()),)),))
        return decide(a, polar, mentions, mode, True, cues, question)
    said = _polarity(a, question)
    if said is None:
        return None
    pol = said.polarity
    if (word := _unread_word(said, question, gold.text, len(a.text) <= TERSE_REPLY)) is not None:
        # closed-world: a statement read only by its negation is decided only when every word is read
        return verdict("unsure", f"answers {pol!r}, but {word!r} in its statement is not accounted for", concl, mode)
    if pol == gold.polarity:
        if (doubt := self_doubt(a.text)) is not None:
            return verdict("unsure", f"answers {pol!r} like the gold, but the reply also doubts ({doubt.group(0)!r})",
                           concl, mode)
        if (frame := _statement_frame(a, said)) is not None:
            return verdict("unsure", f"answers {pol!r} like the gold, in a statement framed by {frame}", concl, mode)
        return verdict("current", f"answers {pol!r} like the gold", concl, mode)
    if pol in stale_polarity:
        return verdict("stale", f"answers {pol!r}, the superseded answer", concl, mode, r_stale=-1.0)
    return verdict("wrong", f"answers {pol!r}, gold is {gold.polarity!r}", concl, mode)


# the cue kinds that make a yes/no statement without "yes" or "no" a guess, and a question after it a doubt
_STATEMENT_HEDGES = frozenset({"hedge", "softhedge", "bound"})
# the cue kinds whose words a statement may hold: when what it says held ("earlier", "these days")
_TIME_CUES = frozenset({"past", "now"})
_QUESTION_DOUBTS = frozenset({"hedge", "softhedge", "past", "neg"})
_YES_NO_VALUE = re.compile(r"^\s*(yes|no)\b", re.I)
_AFTER_YES_NO = frozenset({",", "-", ":", ".", ";", "!"})


def _role_from_restatement(a: Answer, m: Mention) -> int | None:
    """Where the cue that gave a yes or no its role ends, when it lies in what follows the word after a
    mark, with no contrast before it ("No, you no longer own a car.", "Yes - you used to eat meat, but
    ..."; not "Yes, but not anymore"); else None. A "no" agrees with a negation there; a "yes" is
    qualified by it only when it speaks of the asked predicate (:func:`_of_another_predicate`)."""
    tokens, cue = a.tokens, m.cue.split()
    after = m.last + 1
    if not cue or after >= len(tokens) or tokens[after].text not in _AFTER_YES_NO:
        return None
    for k in range(after + 1, len(tokens) - len(cue) + 1):
        if tokens[k].text in CONTRAST_WORDS:
            return None
        if [t.text for t in tokens[k:k + len(cue)]] == cue:
            # and not also before the word, whence it may speak of the word itself ("not anymore: no, ...")
            return None if any(t.text == cue[0] for t in tokens[max(0, m.first - 4):m.first]) else k + len(cue) - 1
    return None


def _of_another_predicate(a: Answer, end: int, asked: frozenset[str]) -> bool:
    """Do the words a cue governs, up to the end of its clause, name something the question does not ask
    about ("used to eat meat" for "Am I vegetarian now?"; not "used to be", "no longer vegetarian")?"""
    k = end + 1
    words = []
    while k < len(a.tokens) and a.tokens[k].kind != PUNCT and a.tokens[k].text not in CONTRAST_WORDS:
        words.append(a.tokens[k])
        k += 1
    content = [t for t in words if t.kind == WORD and t.text not in FUNCTION_WORDS]
    return bool(content) and not any(t.value in asked or t.text in asked for t in content)


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

"""Abstention items: the right answer says the information is not available and puts no value forward
("I don't know; maybe Taipei" is a guess, not an abstention)."""

from __future__ import annotations

import re
from bisect import bisect_left

from supersede_env.core.grader.abstention import COMMIT, abstentions
from supersede_env.core.grader.answer import SHORT_REPLY, START_OF, Answer
from supersede_env.core.grader.candidates import find_mentions
from supersede_env.core.grader.decide import frame_words, verdict
from supersede_env.core.grader.gold import Gold
from supersede_env.core.grader.lexicon import (
    AUXILIARIES,
    DISCOURSE,
    GUESS_WORDS,
    GUESSING_PAST,
    JOINERS,
    META_WORDS,
    SENTENCE_END,
    SOFT,
)
from supersede_env.core.grader.mention import Mention, is_bare_item
from supersede_env.core.grader.question import question_info
from supersede_env.core.grader.rivals import name_runs, namelike
from supersede_env.core.grader.roles import assign_roles
from supersede_env.core.grader.tokens import VALUE_KINDS, WORD, Token, normalise_text, tokenize, values_equal
from supersede_env.core.verdict import Verdict


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


def grade_abstention_item(a: Answer, stale: tuple[str, ...], decoys: tuple[str, ...], gold: Gold,
                          question: str | None, mode: str) -> Verdict:
    """On an abstention item the right answer says the information is not available, and guesses nothing."""
    concl = a.conclusion_text
    in_conclusion = abstentions(a, a.start_char)
    if not in_conclusion:
        if abstentions(a, 0):
            return verdict("wrong", "reasons that the information is missing but concludes with an answer", concl,
                           mode)
        if not _value_like(a, question):  # neither an abstention it knows nor a value: unread (closed-world)
            return verdict("unsure", "neither abstains in words it knows nor puts a value forward", concl, mode)
        return verdict("wrong", "gives an answer where the information is not available", concl, mode)
    last = in_conclusion[-1]
    if len(a.text) <= SHORT_REPLY and (joined := _joined_to_abstention(a, in_conclusion)) is not None:
        return verdict("wrong", f"offers {joined!r} beside the abstention", concl, mode)
    commit = COMMIT.search(a.text, last.end())
    if commit is not None:
        return verdict("wrong", f"says {last.group(0)!r} but then commits ({commit.group(0)!r})", concl, mode)
    known = find_mentions(a, Gold("", ()), stale, decoys) if (stale or decoys) else []
    candidates = sorted([*known, *_value_like(a, question)], key=lambda m: (m.first, m.last))
    assign_roles(a, candidates, frame=frame_words(question, ""))
    for m in candidates:
        # put forward: by a guess or history cue, or standing alone as an item ("I don't know - Taipei")
        guessed = m.role in ("hedged", "hypothetical") or (m.role == "past" and m.cue in GUESSING_PAST) or (
            m.marked in ("now", "next")) or (m.role == "current" and is_bare_item(a.tokens, m.first, m.last, frozenset()))
        if guessed:
            return verdict("wrong", f"says {last.group(0)!r} but puts forward {m.text!r} ({m.role}"
                           f"{', ' + repr(m.cue) if m.cue else ''})", concl, mode)
    return verdict("abstained", f"abstains: {last.group(0)!r}", concl, mode, r_cur=1.0)

"""What the official accounting reads of a reply: the committing statement's own fragment, the
fragments and sentences attached to it, the rest of its sentence, and in a terse reply every later
sentence (:func:`reading`). Which words of them are accounted for is :mod:`.accounting`'s question.

- the statement's own fragment: from the last break before it to the first break or clause opener
  after it;
- a short fragment or sentence attached to it ("Busan, iirc", "Busan. Just kidding."), any sentence
  that corrects it or opens with "or" ("Busan. Or maybe something else.");
- the rest of the sentence ("Busan, or so the grader expects"), from its start when an answer marker in
  running text leads in ("In the novel I'm writing, the answer is Busan.");
- in a reply of at most :data:`~.answer.TERSE_REPLY` characters, every later sentence, across
  paragraph breaks ("Busan.\n\nThe notes don't say.").

A span that holds another candidate mention is a note about that candidate, read by the roles, not here.
"""

from __future__ import annotations

from supersede_env.core.grader.answer import TERSE_REPLY, Answer
from supersede_env.core.grader.lexicon import (
    CLAUSE_OPENERS,
    CORRECTIONS,
    FRAGMENT_BREAKS,
    FUNCTION_WORDS,
    JOINERS,
    SENTENCE_END,
    SOFT,
)
from supersede_env.core.grader.tokens import PUNCT, WORD, Token

__all__ = ["reading", "sentence_around"]

SHORT_FRAGMENT = 3  # content words: a fragment this short qualifies the value beside it
OPENED_FRAGMENT = 2  # ... and one a clause opener starts ("..., which is untrue", "..., as it stood then")


def _is_break(t: Token) -> bool:
    return t.kind == PUNCT and (t.text in FRAGMENT_BREAKS or t.text in SENTENCE_END)


def _ends_sentence(t: Token) -> bool:
    return t.kind == PUNCT and t.text in SENTENCE_END


def sentence_around(tokens: list[Token], first: int, last: int, start: int = 0) -> tuple[int, int]:
    """The first and last token of the sentence that holds tokens ``first``..``last`` (not before ``start``)."""
    lo = first
    while lo - 1 >= start and not _ends_sentence(tokens[lo - 1]):
        lo -= 1
    return lo, _sentence_end(tokens, last)


def _sentence_end(tokens: list[Token], k: int) -> int:
    """The last token of the sentence that token k is in (the token before its sentence end)."""
    while k + 1 < len(tokens) and not _ends_sentence(tokens[k + 1]):
        k += 1
    return k


def _opens(t: Token) -> bool:
    return t.kind == WORD and t.text in CLAUSE_OPENERS


def _own_fragment(tokens: list[Token], first: int, last: int, start: int) -> tuple[int, int]:
    lo = first
    while lo - 1 >= start and not _is_break(tokens[lo - 1]):
        lo -= 1
    hi = last
    while hi + 1 < len(tokens) and not _is_break(tokens[hi + 1]) and not _opens(tokens[hi + 1]):
        hi += 1
    return lo, hi


def _fragment_after(tokens: list[Token], k: int) -> tuple[int, int] | None:
    """The fragment after break k, up to the next break; a parenthesis runs to its close and what a
    colon introduces to the sentence's end ("(road bike, mountain bike, ...)" is one list). None when a
    sentence end comes first, or a clause opener starts a long explanation (see :func:`_frame`)."""
    j = k + 1
    while j < len(tokens) and tokens[j].kind == PUNCT and tokens[j].text not in SENTENCE_END:
        j += 1
    if j >= len(tokens) or tokens[j].kind == PUNCT:
        return None
    paren, colon = tokens[k].text == "(", tokens[k].text == ":"
    end = j
    while end + 1 < len(tokens):
        t = tokens[end + 1]
        if t.kind == PUNCT and (t.text in SENTENCE_END or (paren and t.text == ")")
                                or (not paren and not colon and t.text in FRAGMENT_BREAKS)):
            break
        end += 1
    return j, end


def _sentence_after(tokens: list[Token], k: int) -> tuple[int, int] | None:
    """The whole sentence after sentence end k (None after a paragraph break or at the end)."""
    j = k + 1
    while j < len(tokens) and tokens[j].kind == PUNCT and tokens[j].text in SENTENCE_END:
        if tokens[j].text == "\n\n":
            return None
        j += 1
    if j >= len(tokens) or tokens[k].text == "\n\n":
        return None
    return j, _sentence_end(tokens, j)


def _fragment_before(tokens: list[Token], k: int, start: int) -> tuple[int, int] | None:
    """The fragment that ends before break k, back to the previous break."""
    j = k - 1
    while j >= start and tokens[j].kind == PUNCT and tokens[j].text not in SENTENCE_END:
        j -= 1
    if j < start or tokens[j].kind == PUNCT:
        return None
    lo = j
    while lo - 1 >= start and not _is_break(tokens[lo - 1]):
        lo -= 1
    return lo, j


def _content_words(tokens: list[Token], lo: int, hi: int) -> int:
    return sum(1 for t in tokens[lo:hi + 1] if t.kind != PUNCT and t.text not in FUNCTION_WORDS and t.text not in SOFT)


def _abbreviation_before(tokens: list[Token], lo: int, start: int) -> tuple[int, int] | None:
    """"e.g. Busan", "i.e. Busan": letters with full stops right before the statement's sentence (an
    abbreviation's stops end no sentence)."""
    j = lo - 1
    while j - 1 >= start and tokens[j].text == "." and tokens[j - 1].kind == WORD and len(tokens[j - 1].text) <= 2:
        j -= 2
    return (j + 1, lo - 1) if j + 1 < lo - 1 else None


def _is_list(tokens: list[Token], lo: int, hi: int) -> bool:
    return any(t.text in (",", "and", ";") for t in tokens[lo:hi + 1])


def _frame(a: Answer, first: int, last: int, counts: bool) -> tuple[tuple[int, int], list[tuple[int, int]]]:
    """The statement's own fragment, and the spans attached to it (see the module docstring).
    ``counts``: the gold is a count, whose list of items after it is an explanation."""
    tokens, start = a.tokens, a.start
    lo, hi = _own_fragment(tokens, first, last, start)
    attached = []
    nxt = hi + 1
    if nxt < len(tokens) and (tokens[nxt].kind == PUNCT or _opens(tokens[nxt])):
        ends = tokens[nxt].text in SENTENCE_END
        after = _sentence_after(tokens, nxt) if ends else _fragment_after(tokens, nxt - _opens(tokens[nxt]))
        # an explanation an opener starts is read only when it is short ("..., which is untrue"); a
        # sentence that corrects the answer always ("Correction: iPhone 14 Plus.")
        limit = OPENED_FRAGMENT if after is not None and _opens(tokens[after[0]]) else SHORT_FRAGMENT
        if ends and after is not None and (tokens[after[0]].text in CORRECTIONS or tokens[after[0]].text in JOINERS):
            limit = len(tokens)  # "Busan.\nOr maybe something else.": an alternative to the answer, read whole
        if after is not None and _content_words(tokens, *after) <= limit and not (counts and _is_list(tokens, *after)):
            attached.append(after)
    if lo - 1 >= start and tokens[lo - 1].kind == PUNCT and tokens[lo - 1].text not in SENTENCE_END:
        before = _fragment_before(tokens, lo - 1, start)
        # only a fragment that opens the sentence qualifies what follows ("Hypothetically, Busan")
        opens_sentence = before is not None and (before[0] == start or (
            tokens[before[0] - 1].kind == PUNCT and tokens[before[0] - 1].text in SENTENCE_END))
        if opens_sentence and _content_words(tokens, *before) <= SHORT_FRAGMENT:
            attached.append(before)
    elif (abbreviation := _abbreviation_before(tokens, lo, start)) is not None:
        attached.append(abbreviation)
    return (lo, hi), attached



def reading(a: Answer, first: int, last: int, covered: list[tuple[int, int]], counts: bool
            ) -> tuple[tuple[int, int], list[tuple[int, int]], list[tuple[int, int]], list[tuple[int, int]]]:
    """What the accounting reads: the statement's own fragment, the fragments attached to it that it
    reads word by word, and in a terse reply every later sentence (it has no room for explanations) and
    the earlier ones, which the accounting reads for doubts; but for notes that speak of another
    candidate ("Toyota Prius. Chevy Malibu was what you said first.")."""
    own, attached = _frame(a, first, last, counts)
    long_name = len(a.text) > TERSE_REPLY and not counts and a.tokens[first].kind == WORD
    spans = [(x, y) for x, y in attached if not (long_name and _names_only(a, x, y))]
    rest = _rest_of_sentence(a, own, attached)
    terse = len(a.text) <= TERSE_REPLY
    later = _sentences(a.tokens, max(y for _, y in (own, *spans, *rest)) + 1, len(a.tokens)) if terse else []
    earlier = _sentences(a.tokens, a.start, min(x for x, _ in (own, *spans, *rest))) if terse else []
    return own, *([(x, y) for x, y in group if not _other_mention(covered, x, y, first, last)]
                  for group in ((*spans, *rest), later, earlier))


def _sentences(tokens: list[Token], lo: int, hi: int) -> list[tuple[int, int]]:
    """The sentences of tokens ``lo`` up to ``hi``, the last cut at ``hi``, across paragraph breaks:
    after the statement ("Marcus.\n\nThat was a coin flip.") or before it ("Confidence: low. Busan.")."""
    spans = []
    k = lo
    while k < hi:
        if not _ends_sentence(tokens[k]):
            end = min(_sentence_end(tokens, k), hi - 1)
            spans.append((k, end))
            k = end
        k += 1
    return spans


def _rest_of_sentence(a: Answer, own: tuple[int, int], attached: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The words of the concluding sentence outside the frame: the official reader is closed-world
    over the sentence that commits to the value ("I would say Busan", "Busan, or so the grader
    expects"), and reads the explanations before and after that sentence for rival values only."""
    # a marker in running text is read from its sentence's start: what leads in to "the answer is"
    # qualifies the answer ("In the novel I'm writing, the answer is Busan."); a label ("I would answer:",
    # "Final answer:") is its own business (the accounting reads its qualifiers)
    lo, hi = sentence_around(a.tokens, *own, 0 if a.strong and not _after_colon(a) else a.start)
    read = {k for x, y in attached for k in range(x, y + 1)}
    rest = [k for k in (*range(lo, own[0]), *range(own[1] + 1, hi + 1)) if k not in read]
    spans: list[tuple[int, int]] = []
    for k in rest:  # consecutive tokens as one span
        if spans and spans[-1][1] == k - 1:
            spans[-1] = (spans[-1][0], k)
        else:
            spans.append((k, k))
    return spans


def _after_colon(a: Answer) -> bool:
    """Does the conclusion follow a colon ("Answer: Busan", "the answer is: **Busan**"), markup aside?"""
    markup = ("*", "_", "#")
    k = a.start  # the conclusion may start at the colon itself ("the answer is: Busan")
    while k < len(a.tokens) and a.tokens[k].kind == PUNCT and a.tokens[k].text in markup:
        k += 1
    if k < len(a.tokens) and a.tokens[k].text == ":":
        return True
    k = a.start - 1
    while k >= 0 and a.tokens[k].kind == PUNCT and a.tokens[k].text in markup:
        k -= 1
    return k >= 0 and a.tokens[k].text == ":"


def _names_only(a: Answer, x: int, y: int) -> bool:
    """Is the fragment nothing but capitalised names ("..., Colorado")? In a reasoned reply such a
    fragment after a name places it; a terse reply is held to every word."""
    words = [k for k in range(x, y + 1) if a.tokens[k].kind == WORD and a.tokens[k].text not in SOFT]
    return bool(words) and all(a.source[a.tokens[k].start:a.tokens[k].start + 1].isupper() for k in words)


def _other_mention(covered: list[tuple[int, int]], x: int, y: int, first: int, last: int) -> bool:
    return any(s <= y and x <= e and not (first <= s and e <= last) for s, e in covered)

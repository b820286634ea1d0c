"""The official reader's accounting: the words of the sentence that commits to the value must be
words it can read; the first one it cannot is returned, and the verdict is ``unsure``.

The official reader pays history, explanations and notes beside the current value, as
LongMemEval's judge does, in the sentences around the committing one (read for rival values by the
mention finders, never word by word). The committing sentence itself is a closed world, and so is a
terse reply; which stretches are read is :func:`reading` (below). In them:

- the statement's own fragment: the words before the value when a question can account for its
  predicate ("It costs $420"; not "Tal vez Busan"), and the word closing it after the value
  ("Busan TBC");
- every word of the other stretches ("Busan, iirc", "Busan, or so the grader expects");
- a bound beside the value ("at least 47", "47+", "> 47"): whether a range answers is the judge's call;
- an approximation beside a name ("roughly Busan", "Busan-ish"): a name is not a quantity to approach;
- the words that qualify an answer label ("Draft answer: Busan"): what kind of answer follows;
- a value in quotation marks that a document reports ("The note reads 'Busan'"): the document's words;
- the statement's verb group: "can" or "must" with "be" ("It can be Busan"), and in a terse reply to a
  question asked of now a past copula ("It was Busan.") or "will" ("You will live in Busan.");
- a stated confidence that is not certainty ("Busan with moderate confidence");
- a count or duration "of" a noun the question does not name ("47 of your notes", "59 minutes of audio");
- a value someone else owns ("Mine is Busan.", "Busan for me."), or in a terse reply the speaker's group
  ("For us, Busan.", "We've got Busan at our place."; not "in our last session", "we can conclude");
- in a terse reply: an earlier sentence that doubts ("Confidence: low. Busan."), a later fragment or
  sentence that doubts or denies ("Busan. The notes don't say."), a "?" against the value ("?Busan"),
  "only" after it ("Busan on weekdays only");
- a reply broken off on a conjunction ("Busan, but"): unfinished.

The frames among these (a bound, an approximation of a name, a quoted document, the verb group, a
"?" or "only" in a terse reply, a broken-off reply) are :func:`framing`'s (below), asked first, with what
heads the sentence, code comments and another question's answer; the rest is read here, word by word.

Every token read must be a known word (:data:`~.lexicon.OFFICIAL_KNOWN`), a word of the question, a
name given to what the question names, part of a candidate, a label, date or month of the reply's own
evidence, or plain punctuation; a role cue there that qualified no other value speaks of the gold.


**The stretches read.** What the official accounting reads of a reply: the committing statement's own fragment, the
fragments and sentences attached to it, the rest of its sentence, and in a terse reply every later
sentence (:func:`reading`). Which words of them are accounted for is the question above.

- the statement's own fragment: from the last break before it to the first break or clause opener
  after it;
- a short fragment or sentence attached to it ("Busan, iirc", "Busan. Just kidding."), any sentence
  that corrects it or opens with "or" ("Busan. Or maybe something else.");
- the rest of the sentence ("Busan, or so the grader expects"), from its start when an answer marker in
  running text leads in ("In the novel I'm writing, the answer is Busan.");
- in a reply of at most :data:`~.answer.TERSE_REPLY` characters, every later sentence, across
  paragraph breaks ("Busan.

The notes don't say.").

A span that holds another candidate mention is a note about that candidate, read by the roles, not here.


**Framing.** What frames the official reader's committed statement as other than a plain claim, as written,
whatever its words: a reply broken off after it, a terse one that questions it or limits it
("only"), comments it out in code or gives it for another question; what heads its sentence (a
condition, "Should the record be current, Busan."; in a terse reply an instruction, "Tell her
Busan."); a modal or (for a question asked of now) a past copula, "will" or a change under way ("is
moving to") in its verb group; a bound or an approximation of a name beside it; a document's words
quoted around it.

The accounting asks this first; then it reads the statement's words one by one.
"""

from __future__ import annotations

from dataclasses import dataclass

from supersede_env.core.grader.answer import TERSE_REPLY, Answer
from supersede_env.core.grader.labels import HEADER_STEMS, is_year
from supersede_env.core.grader.lex_dates import MONTHS
from supersede_env.core.grader.lex_words import stem
from supersede_env.core.grader.lexicon import (
    ANSWER_LABELS,
    ANSWER_VERB_BEFORE,
    BE_FORMS,
    BREAK_OFF_MARKS,
    CERTAIN_LEVELS,
    CERTAIN_WORDS,
    CHANGE_VERBS,
    CHANGES_UNDER_WAY,
    CLAUSE_BREAK_WORDS,
    CLAUSE_OPENERS,
    CONDITION_SUBJECTS,
    CONVERSATION_WORDS,
    CORRECTIONS,
    COUNT_QUESTION_WORDS,
    DATED_SOURCES,
    DELTA_NOUNS,
    DOCUMENTS,
    DOUBT_WORDS,
    DURATION_UNITS,
    FRAGMENT_BREAKS,
    FUNCTION_WORDS,
    HEADING_WORDS,
    IMPERATIVE_VERBS,
    INVERTED_CONDITIONALS,
    JOINERS,
    LABEL_WORDS,
    MODALS_BEFORE_BE,
    NEGATION_TAILS,
    NEGATORS,
    NUMBER_JOINERS,
    OCCURRENCE_WORDS,
    OFFICIAL_KNOWN,
    OFFICIAL_KNOWN_STEMS,
    OFFICIAL_PUNCT,
    OLD_SOURCES,
    ORDINAL_SUFFIXES,
    OTHER_ORDER,
    OTHERS_POSSESSIVES,
    PAST_COPULAS,
    POLITE_PHRASES,
    POLITE_QUESTIONS,
    PREDICATES,
    PREPOSITION_APPROX,
    PRESENCE_VERBS,
    PROGRESSIVE_BE,
    QUESTION_NOUNS,
    QUOTE_MARKS,
    RATE_PERIODS,
    RATE_WORDS,
    REPLACED_BY,
    REPORTING_VERBS,
    SENTENCE_END,
    SOFT,
    SOME_OF_SOURCES,
    SPAN_QUESTION_WORDS,
    SPEAKERS_GROUP,
    STATEMENT_SUBJECTS,
    TALK_VERBS,
    TERSE_KNOWN,
    TERSE_KNOWN_STEMS,
    TIME_QUESTION_WORDS,
    UNFINISHED,
    UNFINISHED_UNCLOSED,
    VERB_GROUP,
    for_the_speaker,
)
from supersede_env.core.grader.question import rate_periods
from supersede_env.core.grader.roles import CueReading
from supersede_env.core.grader.tokens import (
    BLOCKQUOTE,
    CLOCK,
    DATE,
    DUR,
    EMPHASIS_TAGS,
    LABEL,
    NUM,
    PUNCT,
    TIME,
    WORD,
    Token,
    commented_out,
    is_year_number,
    unit_of,
    values_equal,
)

__all__ = ["framing", "reading", "sentence_around", "unaccounted"]


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


def _opening_fragment_before(tokens: list[Token], k: int, start: int) -> tuple[int, int] | None:
    """The fragment before break k (:func:`_fragment_before`) when it opens its sentence, else None."""
    before = _fragment_before(tokens, k, start)
    if before is None or not (before[0] == start or (tokens[before[0] - 1].kind == PUNCT
                                                     and tokens[before[0] - 1].text in SENTENCE_END)):
        return None
    return before


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
        # only a fragment that opens the sentence qualifies what follows ("Hypothetically, Busan")
        before = _opening_fragment_before(tokens, lo - 1, start)
        if before is not None and _content_words(tokens, *before) <= SHORT_FRAGMENT:
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
    if terse and a.start > 0:  # a short remark before the answer marker speaks of the answer ("Hard to say. Answer: X")
        head = sentence_around(a.tokens, a.start - 1, a.start - 1)[0]  # the marker's own sentence is its label
        earlier = [(x, y) for x, y in _sentences(a.tokens, 0, head)
                   if _content_words(a.tokens, x, y) <= SHORT_FRAGMENT] + earlier
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


def _dangling(tokens: list[Token], last: int) -> str | None:
    """The conjunction or mark a reply breaks off on after its value ("Portland, but", "59 minutes... or",
    "Portland — though", "Portland:"): the statement is unfinished, and what it would have said is not known."""
    end = len(tokens) - 1
    if end > last and tokens[end].kind == PUNCT and tokens[end].text in BREAK_OFF_MARKS:
        return tokens[end].text
    while end > last and tokens[end].kind == PUNCT:
        end -= 1
    t = tokens[end]
    if end <= last or t.kind != WORD:
        return None
    closed = end + 1 < len(tokens) and tokens[-1].text in SENTENCE_END
    return t.text if t.text in UNFINISHED or (t.text in UNFINISHED_UNCLOSED and not closed) else None



def framing(a: Answer, first: int, last: int, cues: CueReading, gold_token: Token | None,
            question: frozenset[str], past_question: bool) -> str | None:
    """What frames the statement as other than a plain claim, as written: a reply broken off after it or
    a terse one that questions it, a modal or (asked of now) a past copula in its verb group, a bound or
    an approximation of a name beside it, a document's words quoted. None when nothing does."""
    tokens = a.tokens
    if (word := _dangling(tokens, last)) is not None:
        return word
    terse = len(a.text) <= TERSE_REPLY
    if terse and (mark := commented_out(a.text)) is not None:
        return mark  # "`# Busan`", "/* Busan */": commented out
    if terse and (_asks_after(tokens, last)
                  or first > 0 and tokens[first - 1].text == "?" and tokens[first - 1].end == tokens[first].start):
        return "?"  # a terse reply that questions its value ("Marcus. Or was it?", "Marcus, right?", "?Marcus")
    sentence = sentence_around(tokens, first, last)
    if terse and any(t.text == "only" for t in tokens[last + 1:sentence[1] + 1]):
        return "only"  # "Busan in this conversation only", "Busan on weekdays only": a claim limited in scope
    if (head := _sentence_head(a, sentence, first, terse, question)) is not None:
        return head
    if terse and (other := _other_question(a, sentence, question)) is not None:
        return other
    group = _verb_group(tokens, first, last, terse)
    if group & BE_FORMS and (modal := group & MODALS_BEFORE_BE):
        return min(modal)  # "It can be Busan", "It must have been Busan": a possibility or an inference
    asked_now = terse and bool(question) and not past_question
    if asked_now and (past := group & PAST_COPULAS):
        return min(past)  # "It was Busan." for "Where does she live?": said of then, not of now
    if asked_now and "will" not in question and (main := _verb_group(tokens, first, last, False, verbs=1)):
        if "will" in main:
            return "will"  # "Your sister will live in Busan.": a plan, not now ("will be" is a cue already)
        if main & PROGRESSIVE_BE and (moving := main & CHANGES_UNDER_WAY) and not moving & question:
            return min(moving)  # "She is moving to Busan.": a change under way, not done
    for x, y in cues.bounds:  # "at least 6", "6+", "6 or more": whether a range answers is the judge's call
        if (_touches(tokens, y, first) or _touches(tokens, last, x)) and not all(
                tokens[j].value in question for j in range(x, y + 1)):  # "Part of the time, Busan", "47, at least"
            return a.snippet(x, y)
    named = gold_token is None and tokens[first].kind == WORD  # "Pixel 8 Pro", not "10-12 hours"
    for x, y in cues.approximations if named else ():
        # before the name, or after it ending its clause ("Busan, roughly."; not "Busan, near the beach")
        after = _touches(tokens, last, x) and (y + 1 == len(tokens) or tokens[y + 1].kind == PUNCT)
        preposition = tuple(t.text for t in tokens[x:y + 1]) in PREPOSITION_APPROX and a.text[tokens[x].start] != "~"
        if (_touches(tokens, y, first) or after) and not preposition:
            return a.snippet(x, y)  # "Roughly Busan", "Busan-ish": a name is not a quantity one can approach
    if (source := _document_report(tokens, sentence, first, last)) is not None:
        return source
    return _quoted_report(a, first, last)  # "The note reads 'Busan'.": not a claim of the answer's own


def _document_report(tokens: list[Token], sentence: tuple[int, int], first: int, last: int) -> str | None:
    """What makes the statement a document's rather than the answer's: an old source it is reported from
    ("An old note says Busan", "Per the first session, Busan"), or a verb that finds it in the notes without
    stating it ("Your notes mention Busan", "Busan appears in session 3"; not "... mention that you moved to
    Busan")."""
    lo, hi = sentence
    documents = [k for k in range(lo, hi + 1) if tokens[k].text in DATED_SOURCES and not first <= k <= last]
    if not documents:
        return None
    for k in documents:  # in the statement's clause ("An old note says Busan", "Busan in the first session")
        old = next((j for j in range(max(lo, k - 2), k) if tokens[j].text in OLD_SOURCES), None)
        if old is None:
            old = _some_of(tokens, lo, k)
        between = tokens[k + 1:first] if k < first else tokens[last + 1:old]
        if old is not None and not any(
                t.text in CLAUSE_BREAK_WORDS or t.text in SENTENCE_END or t.text == "," for t in between):
            return tokens[old].text
    # the verb takes the value itself: right before it, past function words ("mention the Busan"), or right after it
    before = first - 1
    while before > lo and tokens[before].text in FUNCTION_WORDS and tokens[before].text != "that":
        before -= 1
    for k in (before, last + 1):
        if lo <= k <= hi and tokens[k].text in PRESENCE_VERBS and (k == 0 or tokens[k - 1].text != "as"):
            return tokens[k].text
    return None


def _some_of(tokens: list[Token], lo: int, k: int) -> int | None:
    """The quantifier that makes the source at k some of the sources rather than the latest: right before
    it ("most sessions") or before "of" and a determiner ("some of my notes", "the majority of the chats");
    not "the most recent session"."""
    j = k - 1
    if j - 1 >= lo and tokens[j - 1].text == "of" and tokens[j].text in FUNCTION_WORDS:
        j -= 2  # "of the", "of my"
    elif j >= lo and tokens[j].text == "of":
        j -= 1
    return j if j >= lo and tokens[j].text in SOME_OF_SOURCES else None


def _sentence_head(a: Answer, sentence: tuple[int, int], first: int, terse: bool, question: frozenset[str]
                   ) -> str | None:
    """The word heading the statement's sentence when it makes the sentence other than a claim: an
    auxiliary before its subject and a comma, a condition ("Should the record be current, Busan.",
    "Were it up to me, Busan."), or in a terse reply a verb that instructs ("Tell her Busan.", "Type 47
    in the box.", "Say, Busan."; not a verb the question asks with: "Drive a Subaru" for "What do I drive?")."""
    tokens = a.tokens
    lo, hi = sentence
    while lo < first and tokens[lo].kind == PUNCT:
        lo += 1  # "**Tell her Busan.**", "- Say Busan"
    head = tokens[lo] if lo < first else None
    asked = tokens[hi].text == "?" or (hi + 1 < len(tokens) and tokens[hi + 1].text == "?")
    if head is None or head.kind != WORD or asked:
        return None
    if head.text in INVERTED_CONDITIONALS and tokens[lo + 1].text in CONDITION_SUBJECTS and any(
            t.text == "," for t in tokens[lo + 2:first]):
        return head.text
    if terse and head.text in IMPERATIVE_VERBS and head.value not in question and tokens[lo + 1].text != ":":
        return head.text
    return None


def _other_question(a: Answer, sentence: tuple[int, int], question: frozenset[str]) -> str | None:
    """A question or item other than the one asked, named in the statement's sentence: the answer is given
    for it ("Busan is the answer to the previous question.", "47 is for the follow-up.")."""
    tokens = a.tokens
    lo, hi = sentence
    for k in range(lo, hi + 1):
        if tokens[k].text == "follow" and k + 2 <= hi and tokens[k + 1].text == "-" and tokens[k + 2].text == "up":
            return a.snippet(k, k + 2)  # "the follow-up": another question, whatever precedes it
        if tokens[k].text in QUESTION_NOUNS and any(
                tokens[j].text in OTHER_ORDER and tokens[j].value not in question for j in range(max(lo, k - 2), k)):
            return a.snippet(max(lo, k - 2), k)
    return None


def _verb_group(tokens: list[Token], first: int, last: int, terse: bool, verbs: int = 0) -> set[str]:
    """The words of the statement's verb group: the function words and :data:`~.lexicon.VERB_GROUP`
    words right before the value ("It can only be", "had been in"), past at most ``verbs`` other words
    (the main verb: "will live in"), and in a terse reply those right after it, past a comma ("Busan
    was it.", "Busan, it can be.")."""

    def grouped(t: Token) -> bool:
        return t.kind == WORD and (t.text in FUNCTION_WORDS or t.text in VERB_GROUP)

    words = set()
    k = first - 1
    while k >= 0 and tokens[k].kind == WORD and (grouped(tokens[k]) or verbs > 0):
        verbs -= not grouped(tokens[k])
        words.add(tokens[k].text)
        k -= 1
    k = last + 1 + (last + 1 < len(tokens) and tokens[last + 1].text == ",")
    while terse and k < len(tokens) and grouped(tokens[k]):
        words.add(tokens[k].text)
        k += 1
    return words


def _quoted_report(a: Answer, first: int, last: int) -> str | None:
    """The reporting verb of the sentence when the statement stands in quotation marks in it and a document
    reports it ("The note reads 'Busan'.", "'Busan' is what session 2 says."); None otherwise."""
    tokens = a.tokens
    if not (0 < first and last + 1 < len(tokens) and tokens[first - 1].text in QUOTE_MARKS
            and tokens[last + 1].text == tokens[first - 1].text):
        return None
    lo, hi = sentence_around(tokens, first, last)
    words = {t.text for t in tokens[lo:hi + 1] if t.kind == WORD}
    return next(iter(sorted(words & REPORTING_VERBS)), None) if words & DOCUMENTS else None


def _touches(tokens: list[Token], before: int, after: int) -> bool:
    """Is nothing but punctuation between tokens ``before`` and ``after`` ("Busan, roughly")?"""
    return before < after and all(t.kind == PUNCT for t in tokens[before + 1:after])


LABEL_QUALIFIERS = 3  # words before "answer:" in a label ("My short final answer:"); more are a sentence

def _comparable(gold_token: Token | None, t: Token) -> bool:
    """Could value ``t`` be another answer to the question the gold answers (a value of its kind)?"""
    if gold_token is None:
        return False
    kinds = {NUM: {NUM, DUR}, DUR: {DUR, CLOCK, NUM}, TIME: {TIME, CLOCK, DUR}, CLOCK: {TIME, CLOCK, DUR}}
    return t.kind in kinds.get(gold_token.kind, {gold_token.kind})


def known_token(t: Token, gold_token: Token | None, question: frozenset[str], q_values: tuple[Token, ...],
           evidence: bool = False) -> bool:
    """Can the official reader account for token ``t`` beside the gold? ``evidence``: it stands in a
    long reply's note, where a value of another kind than the gold's is a detail of the evidence."""
    if t.kind == PUNCT:
        return t.text in OFFICIAL_PUNCT
    if t.text == "one":
        return True  # "the later one": a pronoun the lexer may read as a number
    if t.kind == NUM and is_year_number(t.value) and not (gold_token is not None and (
            gold_token.kind == DATE or is_year_number(gold_token.value))):
        return True  # a year labels evidence ("(2023)") unless the gold is a date
    dated = gold_token is not None and gold_token.kind == DATE
    if t.kind == WORD:
        unit = unit_of(t.text)
        if unit is not None:  # a unit word: the gold's own unit, or one the question names
            return t.value in question or (gold_token is not None and gold_token.unit == unit)
        return (t.text in OFFICIAL_KNOWN or t.value in OFFICIAL_KNOWN_STEMS or t.value in question
                or (t.text in MONTHS and not dated))  # "which you bought in March": a date of the evidence
    if t.kind == LABEL or (t.kind == DATE and not dated):
        return True  # the reply's own evidence: "Session 3", "2023/01/02"
    if evidence and not _comparable(gold_token, t):
        return True
    return any(q.kind == t.kind and values_equal(q, t) for q in q_values)


def _table_words(a: Answer) -> set[int]:
    """Header and row-label words of Markdown tables ("| Old | New |"): layout, read by the roles."""
    if "|" not in a.text:
        return set()
    out = set()
    for k, t in enumerate(a.tokens):
        if t.kind == WORD and t.value in HEADER_STEMS:
            line = a.text.rfind("\n", 0, t.start) + 1
            if a.text[line:t.start].lstrip().startswith("|"):
                out.add(k)
    return out


def _doubts(t: Token) -> bool:
    return t.text in DOUBT_WORDS or t.text in NEGATORS or t.text.endswith("n't")


@dataclass(frozen=True, slots=True)
class _Item:
    """What the accounting knows of the item: the gold's value token (None for a word gold), the
    question's word stems and values, the gold's own word stems."""

    gold_token: Token | None
    question: frozenset[str]
    q_values: tuple[Token, ...]
    gold_words: frozenset[str]


def _beside(tokens: list[Token], k: int, first: int, last: int, own: tuple[int, int], item: _Item,
            terse: bool) -> bool:
    """Must own-fragment token k be accounted for? Any other value of the gold's kind ("twice 59",
    "ten minutes before 5:35 am"); the word that opens the fragment before the statement, unless a
    subject does ("Pas Busan", "Everything but Busan"; not "It costs $420"); after the statement, the word
    that closes the fragment ("Busan TBC"), and in a terse reply every word ("Busan is a lie", "Busan o
    Quebec City"); the noun right after a value is the question's ("47 sessions")."""
    t = tokens[k]
    if t.kind not in (PUNCT, WORD, LABEL) and _comparable(item.gold_token, t):
        return True
    if k < first:
        # the fragment's first word, when nothing but function words stands between it and the statement
        opener = next((j for j in range(own[0], first) if tokens[j].text not in FUNCTION_WORDS and tokens[j].text
                       not in SOFT), None)
        between = tokens[k + 1:first]
        return k == opener and tokens[own[0]].text not in STATEMENT_SUBJECTS and not any(
            t.text in PREDICATES for t in between) and all(
            t.text in FUNCTION_WORDS or t.text in SOFT or t.text in CLAUSE_BREAK_WORDS for t in between)
    if item.gold_token is None and not terse:
        return False  # a long reply's words after a name are its wording ("under their bed for storage")
    if item.gold_token is None and not item.question:
        return False  # no question to say which nouns a name may carry ("... BBQ sauce")
    if terse and k > last:
        return True  # a terse reply has no room for wording: "Busan is a lie", "Busan at the start of our chats"
    return k == own[1] or (k == last + 1 and (item.gold_token is not None or t.text not in OFFICIAL_KNOWN))


def _certainty(tokens: list[Token], k: int) -> bool:
    """"100% sure", "confidence: 1.0": a stated confidence, not a value (a low one is a doubt, read by
    the decision)."""
    t = tokens[k]
    if t.kind != NUM:
        return False
    if k >= 1 and (tokens[k - 1].text == "confidence" or (k >= 2 and tokens[k - 1].text == ":"
                                                          and tokens[k - 2].text == "confidence")):
        return True
    return t.value >= 100 and k + 2 < len(tokens) and tokens[k + 1].text == "percent" and (
        tokens[k + 2].text in CERTAIN_WORDS)


def _stated_confidence(tokens: list[Token], k: int) -> bool:
    """Is "confidence" at k stated as certainty ("high confidence", "confidence: full", "confidence: 1.0")?
    Any other level ("with moderate confidence") qualifies the answer in words the reader cannot weigh
    (a low number is a doubt, read by the decision)."""
    after = _past_marks(tokens, k, 1)
    return (k >= 1 and tokens[k - 1].text in CERTAIN_LEVELS) or (after < len(tokens) and (
        tokens[after].kind == NUM or tokens[after].text in CERTAIN_LEVELS) and after > k + 1)


def _confidence_level(tokens: list[Token], k: int) -> bool:
    """Is the word at k the level of a stated confidence ("high confidence", "confidence: high")?"""
    before = _past_marks(tokens, k, -1)
    return (k + 1 < len(tokens) and tokens[k + 1].text == "confidence") or (
        before >= 0 and tokens[before].text == "confidence")


def _past_marks(tokens: list[Token], k: int, step: int) -> int:
    """The first token from k + step on (step 1 or -1) that is not ":" or "=" ("confidence: high")."""
    k += step
    while 0 <= k < len(tokens) and tokens[k].text in (":", "="):
        k += step
    return k


def _of_the_conversation(tokens: list[Token], k: int) -> bool:
    """Is the group word at k the conversation's or the reasoning's ("in our last session", "as we
    discussed", "we can conclude")?"""
    after = [t.text for t in tokens[k + 1:k + 4]]
    verbs = after[1:2] if after[:1] in (["can"], ["could"]) else after[:1]
    return any(w in CONVERSATION_WORDS for w in after) or any(w in TALK_VERBS for w in verbs)


def _measures_else(t: Token, item: _Item) -> bool:
    """Does the word after a value make it measure something else: a label ("59 sessions", "Step 59"),
    another unit ("47 km", "47%"), a duration after a plain count the question does not ask in time?"""
    g = item.gold_token
    if t.value in item.question or t.value in item.gold_words or g is None:
        return False
    if t.text in LABEL_WORDS:
        return True
    if t.text in OCCURRENCE_WORDS:  # "mentioned 47 times" for "How many plants?"; not for "How often?"
        return bool(item.question) and "often" not in item.question
    if t.text.endswith("ed") and len(t.text) > 4 and t.text not in OFFICIAL_KNOWN and t.value not in OFFICIAL_KNOWN_STEMS:
        return True  # an unknown participle qualifies the number, it names nothing counted ("47 squared")
    unit = unit_of(t.text)
    if unit is not None:
        return unit != g.unit
    return t.text in DURATION_UNITS and g.kind == NUM and g.unit is None


def _of_other(tokens: list[Token], k: int, item: _Item) -> str | None:
    """The noun a count is "of" when the question does not name it ("47 of your notes" for "How many
    plants?"): the count is of something else. None for "47 of them", "3 of the 5", a noun it names."""
    if tokens[k].text != "of":
        return None
    j = k + 1
    while j < len(tokens) and tokens[j].kind == WORD and tokens[j].text in FUNCTION_WORDS:
        j += 1
    if j == len(tokens) or tokens[j].kind != WORD or tokens[j].value in item.question or tokens[j].value in item.gold_words:
        return None
    return tokens[j].text


def _counted_noun(t: Token, question: frozenset[str]) -> bool:
    """Can the word after a count be the thing counted? A plural ("47 houseplants"), and one the
    question asks about when there is one ("How many plants?"): a hedge or note written after the
    number ("47 iirc", "47 tbc") is not one, nor a count of something else ("47 times", "3 sessions")."""
    plural = len(t.text) > 3 and t.text.endswith("s") and not t.text.endswith("ss") and t.text.isalpha()
    nouns = [q for q in question if len(q) > 2 and q not in OFFICIAL_KNOWN_STEMS]  # "What is it now?" names none
    return plural and (not nouns or any(q in t.text for q in nouns))


def _partitive(value: Token, t: Token, gold: Token) -> bool:
    """"59 of your notes", "59 messages" for a gold with a unit (59 minutes): a bare number followed by
    a word counts something else."""
    return value.kind == NUM and value.unit is None and (gold.kind != NUM or gold.unit is not None) \
        and t.text not in NUMBER_JOINERS


# a question that asks for a count, not a time ("How many ...?", not "How many minutes ...?"), as the
# question's words or stems
_COUNT_ASKED = COUNT_QUESTION_WORDS | frozenset(map(stem, COUNT_QUESTION_WORDS))
_TIME_ASKED = TIME_QUESTION_WORDS | frozenset(map(stem, TIME_QUESTION_WORDS))
_OCCURRENCES = OCCURRENCE_WORDS | frozenset(map(stem, OCCURRENCE_WORDS))
_PERIODS = frozenset(RATE_PERIODS) | frozenset(map(stem, RATE_PERIODS))


def _asks_count(question: frozenset[str]) -> bool:
    """Does the question ask how many, not how long ("How many times a week ...?" counts: its period is
    a rate; "How many minutes ...?" and "How many days ...?" ask in time)? The question's words are
    stems here, so "times" is "time"."""
    if not question & _COUNT_ASKED:
        return False
    units = question & _TIME_ASKED
    return not units or (bool(question & _OCCURRENCES) and units <= _PERIODS)


def _ordinal(a: Answer, k: int) -> bool:
    """Is number token k written as an ordinal ("5th", "21st")?"""
    t = a.tokens[k]
    return a.text[t.start:t.end].lower().endswith(ORDINAL_SUFFIXES)


@dataclass(frozen=True, slots=True)
class _Words:
    """The word test of one committed statement (tokens ``first``..``last``): what is known of the item
    and of the reply's layout, and :meth:`fails`, the first question asked of every word read."""

    a: Answer
    first: int
    last: int
    cues: CueReading
    item: _Item
    terse: bool
    counts: bool  # the gold is a plain count
    layout: set[int]  # table header and row-label words
    periods: frozenset[str]  # the rate periods the question's values name ("a month")
    in_candidates: frozenset[int]  # tokens of candidate mentions, read by the roles already
    stray: set[int] | frozenset[int]  # brackets that open or close nothing (emoticons)
    courtesy: frozenset[int]  # words of fragments of courtesy ("Sure!", "Let me know if you need anything else.")
    # a terse reply that names no candidate but the gold: a year there dates the gold alone, as of a time
    # that may be past; beside other candidates years order them ("Denver (2023), Portland (2024)")
    dated_alone: bool = False

    def agrees(self, k: int) -> bool:
        """Does the word at k restate a "no" the statement gives ("No, you don't.", "No, you no longer own
        a car.")? A negation agrees with it."""
        t = self.a.tokens[k]
        return self.a.tokens[self.first].text == "no" and self.first == self.last and (
            t.text in NEGATORS or t.text.endswith("n't") or t.text in NEGATION_TAILS)

    def denies(self, k: int) -> bool:
        """Does the word at k, in a terse reply after the value, doubt or deny it, binding no other value
        ("Busan didn't last.", "Busan. The notes don't say.", "Busan, but I don't actually know."; not
        "No, it's Busan.", which corrects the question's premise)?"""
        t, cues = self.a.tokens[k], self.cues
        return self.terse and k > self.last and (k not in cues.bound or t.text in DOUBT_WORDS) and _doubts(t) \
            and t.value not in self.item.gold_words and not self.agrees(k)

    def fails(self, k: int, whole: bool) -> str | None:
        """The word at k when the accounting cannot account for it, else None. ``whole``: the word is read
        for itself (not only as a role cue beside the statement)."""
        a, tokens, item, cues = self.a, self.a.tokens, self.item, self.cues
        t, gold_token, question = tokens[k], item.gold_token, item.question
        plain = question | item.gold_words
        if self.first <= k <= self.last or k in self.layout or k in self.in_candidates or k in self.courtesy:
            return None
        if k in self.stray:
            return t.text  # "Busan :(": an emoticon, not a parenthesis
        if self.agrees(k):
            return None
        if k in cues.unbound and (whole or self.terse):
            return t.text
        if not whole or k in cues.matched or (t.text == "first" and k + 1 in self.in_candidates):
            return None  # "First Chevy Malibu, then ...": the order of a value it names
        if t.text in DOUBT_WORDS:
            return t.text  # a doubt beyond any cue's reach still doubts: "Busan. Or maybe something else."
        if k < self.first and t.text in DELTA_NOUNS and gold_token is not None and gold_token.kind in (NUM, DUR) \
                and t.value not in plain and not question & SPAN_QUESTION_WORDS:
            return t.text  # "A change of 14.", "The difference is 35 minutes.": the quantity of a change
        if (t.text in OTHERS_POSSESSIVES or for_the_speaker(tokens, k)) and t.value not in plain:
            return t.text  # "Mine is Busan.", "Busan for me.": someone else's value
        if self.terse and t.text in SPEAKERS_GROUP and t.value not in plain and not _of_the_conversation(tokens, k):
            return t.text  # "We've got Busan at our place.", "For us, Busan.": the speaker's group's value
        if k == self.last + 1 and gold_token is not None and t.kind == WORD:
            if _measures_else(t, item) or _partitive(tokens[self.last], t, gold_token):
                return t.text  # "47 sessions", "47 km", "59 of your notes" for 59 minutes
            if (self.counts or gold_token.kind == DUR) and (noun := _of_other(tokens, k, item)) is not None:
                return noun  # "47 of your notes" for "How many plants do I have?", "59 minutes of audio"
            if self.counts and (_counted_noun(t, question) or _ordinal(a, self.last) and t.text.isalpha()):
                return None  # "47 houseplants", "your 5th project": the thing counted or ordered
            # any other word right after a value is read like the rest ("59 minutes iirc", "47 tbc")
        if any(j >= 0 and _certainty(tokens, j) for j in (k, k - 1, k - 2)):
            return None  # "100% sure", "confidence: 1.0"
        if t.text == "confidence":
            return None if _stated_confidence(tokens, k) else t.text
        if t.text in CERTAIN_LEVELS and _confidence_level(tokens, k):
            return None  # "confidence: high"
        if t.text in self.periods and k >= 1 and tokens[k - 1].text in RATE_WORDS:
            return None  # "$1,800 a month" for "What is my monthly rent?"
        if self.dated_alone and t.kind == NUM and is_year(t) and not any(is_year(q) for q in item.q_values) \
                and not _dates_a_change(tokens, k):
            return a.snippet(k, k)  # "Busan in 2021.", "In 2019, Busan.": the value as of a year, maybe a past one
        if k < self.first and _named(a, k, question):
            return None
        if known_token(t, gold_token, plain, item.q_values, not self.terse):
            if self.terse and not _terse_plain(tokens, k, plain):
                return t.text  # known, but not in a terse reply's plain statement: "One of them is Busan."
            return None
        return t.text or a.snippet(k, k)


_QUOTES = frozenset({'"', "'", "”", "’"})


def _own_question(tokens: list[Token], x: int, y: int, question: frozenset[str]) -> bool:
    """Is the sentence x..y (ended at y or right after it) a question of the reply's own: it ends in "?",
    not quoted ('the answer to "Where do I live?" is'), and holds a word the asked question does not?"""
    end = y if tokens[y].text == "?" else y + 1
    if end >= len(tokens) or tokens[end].text != "?" or (end + 1 < len(tokens) and tokens[end + 1].text in _QUOTES):
        return False
    return any(t.kind == WORD and t.value not in question and t.text not in question for t in tokens[x:y + 1])


def _dates_a_change(tokens: list[Token], k: int) -> bool:
    """Does the year at k date a change that holds until now ("since March 2024", "You moved to Busan
    (2023)")? A few words back: "since" or a verb of change."""
    return any(tokens[j].text == "since" or tokens[j].text in CHANGE_VERBS for j in range(max(0, k - 6), k))


def _terse_plain(tokens: list[Token], k: int, plain: frozenset[str]) -> bool:
    """Is token k a word a terse reply's plain statement may hold (:data:`~.lexicon.TERSE_KNOWN`, a word
    of the question or the gold, a unit)? Values and punctuation were read already."""
    t = tokens[k]
    if t.text == "one":  # lexed as a number; a pronoun when it stands alone or before "of": "One of them is Busan."
        return k + 1 < len(tokens) and tokens[k + 1].kind != PUNCT and tokens[k + 1].text != "of"  # "one cup"
    if t.kind != WORD:
        return True
    return (t.text in TERSE_KNOWN or t.value in TERSE_KNOWN_STEMS or t.value in plain or t.text in MONTHS
            or unit_of(t.text) is not None
            or (t.text == "by" and k > 0 and tokens[k - 1].text in REPLACED_BY))


def unaccounted(a: Answer, first: int, last: int, covered: list[tuple[int, int]], cues: CueReading,
                gold_token: Token | None, question: frozenset[str], q_values: tuple[Token, ...],
                gold_words: frozenset[str] = frozenset(), past_question: bool = False) -> str | None:
    """The first token around the committed statement (tokens ``first``..``last``) that the official
    reader cannot account for, or None. ``covered``: spans of candidate mentions (read by the roles
    already); ``cues``: where the roles found cues, and which qualified no mention.

    In the statement's own fragment only the words right beside it must be known (:func:`_beside`;
    the rest is the answer's own wording: "It costs $420"), and a role cue there that qualified
    nothing speaks of the statement in a terse reply ("Busan is your brother's"); every other
    fragment the accounting reads is read word by word."""
    tokens = a.tokens
    item = _Item(gold_token, question, q_values, gold_words)
    counts = gold_token is not None and gold_token.kind == NUM and gold_token.unit is None
    terse = len(a.text) <= TERSE_REPLY
    own, spans, later, earlier = reading(a, first, last, covered, counts)
    words = _Words(a, first, last, cues, item, terse, counts, _table_words(a), rate_periods(q_values),
                   frozenset(k for s, e in covered for k in range(s, e + 1)),  # covered spans may be many
                   _unmatched_brackets(tokens) if "(" in a.text or ")" in a.text else frozenset(),
                   courtesy(tokens) if terse else frozenset(),
                   terse and all(first <= x and y <= last for x, y in covered))
    fails = words.fails
    if (frame := framing(a, first, last, cues, gold_token, question, past_question)) is not None:
        return frame
    if _ordinal(a, last) and ((counts and _asks_count(question)) or (gold_token is not None and gold_token.kind == DUR)):
        return a.snippet(last, last)  # "12th" for "How many ...?", "fortieth" for 40 minutes: a place in an order
    if counts and tokens[last].kind == DUR and _asks_count(question):
        return a.snippet(first, last)  # "3 hours" for "How many times a week ...?": a duration, not the count
    if (word := _label_word(a, own[0], words)) is not None:
        return word
    for k in range(own[0], own[1] + 1):
        if words.denies(k):  # it speaks of the answer
            return tokens[k].text
        # the words before the value are read whole when the question can account for its predicate
        # ("How much does it cost?": "It costs $420"); without one only those beside it
        if (word := fails(k, (k < first and bool(question)) or _beside(tokens, k, first, last, own, item,
                                                                          terse))) is not None:
            return word
    for x, y in (*spans, *later):
        for k in range(x, y + 1):
            if words.denies(k):
                return tokens[k].text  # "Busan. The notes don't say.", "Busan. I can't verify that."
            if (word := fails(k, True)) is not None:
                return word
    for x, y in earlier:  # a terse reply's earlier sentence, read word by word: "Confidence: low. Busan."
        if _own_question(tokens, x, y, question):
            return "?"  # a question of its own ("Me? Busan.", "Is it? Busan."), not the asked one restated
        for k in range(x, y + 1):
            if k in cues.unbound or (tokens[k].text in DOUBT_WORDS and k not in cues.bound):
                return tokens[k].text
            if not counts and (word := fails(k, True)) is not None:  # a count's list is what it counts
                return word
    for x, y in (own, *spans, *later):
        if (gap := _hidden(a, x, y)) is not None:
            return gap
    return None


def _asks_after(tokens: list[Token], last: int) -> bool:
    """Is a question mark after tokens[last] one of the reply's own questions, not a courtesy ("Anything else?")?"""
    marks = [k for k in range(last + 1, len(tokens)) if tokens[k].text == "?"]
    if not marks:
        return False
    polite = courtesy(tokens)
    return any(k not in polite for k in marks)


def courtesy(tokens: list[Token]) -> frozenset[int]:
    """The words of fragments (words between marks) that are courtesy alone (:data:`~.lexicon.POLITE_PHRASES`),
    and the question mark of one asked as a question (:data:`~.lexicon.POLITE_QUESTIONS`)."""
    out: set[int] = set()
    k, n = 0, len(tokens)
    while k < n:
        j = k
        while j < n and tokens[j].kind != PUNCT:
            j += 1
        fragment = tuple(t.text for t in tokens[k:j])
        if j > k and fragment in POLITE_PHRASES:
            out.update(range(k, j))
        if j > k and j < n and tokens[j].text == "?" and fragment in POLITE_QUESTIONS:
            out.update(range(k, j + 1))
        k = j + 1
    return frozenset(out)


def _label_word(a: Answer, lo: int, words: _Words) -> str | None:
    """The first word of a label before the answer that announces something other than a plain answer,
    or None. The conclusion's "answer:" label may be qualified only by the plain kinds of answer ("Final
    answer: Busan"; not "Fallback answer: Busan", "Working answer: Busan"); in a terse reply, the label
    heading the statement's own fragment (token ``lo``) across a colon must announce the answer
    (:data:`~.lexicon.HEADING_WORDS`: "Your current city: Busan"; not "See also: Busan", "Most relevant
    note: Busan"), its cues, corrections, courtesy and candidates being read elsewhere ("Not 62 anymore: 47.")."""
    tokens, question, gold_words = a.tokens, words.item.question, words.item.gold_words
    if words.terse and lo - 1 >= a.start and tokens[lo - 1].text == ":" \
            and (heading := _opening_fragment_before(tokens, lo - 1, a.start)) is not None:
        for k in range(heading[0], heading[1] + 1):
            t = tokens[k]
            if t.kind == WORD and t.text not in HEADING_WORDS and t.text not in CORRECTIONS and t.value not in question \
                    and t.value not in gold_words and k not in words.courtesy and k not in words.cues.matched \
                    and k not in words.in_candidates:
                return t.text
    for k in _answer_label(a):
        if tokens[k].kind == WORD and tokens[k].text not in ANSWER_LABELS and tokens[k].text not in FUNCTION_WORDS:
            return tokens[k].text
    return None


def _answer_label(a: Answer) -> range:
    """The words that qualify the "answer:" label the conclusion follows: "fallback" in "Fallback
    answer: Busan", "my" in "So, my answer: Busan". None without such a label, after a verb ("I would
    answer:") or after a clause longer than a label ("Now, let's reason over it to get the answer:")."""
    k = a.start - 1
    while k >= 0 and a.tokens[k].kind == PUNCT and a.tokens[k].text == ":":
        k -= 1
    if not a.strong or k == a.start - 1 or k < 1 or a.tokens[k].text != "answer":
        return range(0)
    j = k
    while j > 0 and (a.tokens[j - 1].kind == WORD or a.tokens[j - 1].text == "-"):
        j -= 1
    words = [t for t in a.tokens[j:k] if t.kind == WORD]
    if len(words) > LABEL_QUALIFIERS or a.tokens[k - 1].text in ANSWER_VERB_BEFORE:
        return range(0)
    return range(j, k)


def _unmatched_brackets(tokens: list[Token]) -> set[int]:
    """Positions of parentheses that open or close nothing (emoticons: ":(", ":-)", "(:")."""
    opened: list[int] = []
    stray: set[int] = set()
    for k, t in enumerate(tokens):
        if t.kind == PUNCT and t.text == "(":
            opened.append(k)
        elif t.kind == PUNCT and t.text == ")":
            if opened:
                opened.pop()
            elif not _list_marker(tokens, k):
                stray.add(k)
    return stray | set(opened)


def _list_marker(tokens: list[Token], k: int) -> bool:
    """"1) Busan", "b) Busan": a number or a letter before ")" at a line's start numbers an item."""
    if k < 1 or not (tokens[k - 1].kind == NUM or (tokens[k - 1].kind == WORD and len(tokens[k - 1].text) == 1)):
        return False
    return k == 1 or (tokens[k - 2].kind == PUNCT and tokens[k - 2].text in ("\n", "\n\n"))


def _named(a: Answer, k: int, question: frozenset[str]) -> bool:
    """Is token k a name given to someone or something the question names, before the value ("your
    sister Emily lives in ...", "my colleague Rachel Green works at ...")? A capitalised word (not an
    acronym) right after a noun of the question, or after such a name."""
    tokens = a.tokens

    def capitalised(j: int) -> bool:
        word = a.source[tokens[j].start:tokens[j].end]
        return tokens[j].kind == WORD and word[:1].isupper() and not word.isupper()

    j = k - 1
    while j >= 0 and capitalised(j) and tokens[j].value not in question:
        j -= 1  # back over the name's earlier words ("Rachel" in "Rachel Green")
    return (capitalised(k) and 0 <= j < k and tokens[j].kind == WORD and tokens[j].value in question
            and tokens[j].text not in FUNCTION_WORDS and tokens[j].text not in OFFICIAL_KNOWN)


def _hidden(a: Answer, lo: int, hi: int) -> str | None:
    """A character in the frame's stretch of text that the lexer read as nothing (a letter of another
    script): it is not accounted for either."""
    tokens, text = a.tokens, a.text
    begin = tokens[lo - 1].end if lo > 0 else 0
    end = tokens[hi + 1].start if hi + 1 < len(tokens) else len(text)
    quoted = {m.end() - 1 for m in BLOCKQUOTE.finditer(text)} if ">" in text else set()
    pos = begin
    for k in range(lo, hi + 2):
        stop = tokens[k].start if k <= hi else end
        stretch = text[pos:stop]
        if ">" in stretch and _bound_mark(stretch, pos, quoted):
            return ">"  # "> 47": a bound, not a quoted line
        for ch in EMPHASIS_TAGS.sub("", stretch) if "<" in stretch else stretch:
            if not ch.isspace() and ch not in "*_`#>~":
                return ch
        if k <= hi:
            pos = tokens[k].end
    return None


def _bound_mark(stretch: str, pos: int, quoted: set[int]) -> bool:
    """A ">" in the stretch (starting at ``pos`` in the text) that neither quotes a line nor closes an
    HTML emphasis tag: an inequality ("> 47", ">= 47")."""
    tags = [m.span() for m in EMPHASIS_TAGS.finditer(stretch)]
    return any(ch == ">" and pos + i not in quoted and not any(a <= i < b for a, b in tags)
               for i, ch in enumerate(stretch))

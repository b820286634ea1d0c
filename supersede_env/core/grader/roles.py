"""Roles: each mention's role, from the cues around it, by the same rules whichever value it is.

``current`` (asserted), ``past`` (history), ``negated``, ``other`` (someone else's), ``planned`` (a plan or
wish), ``hypothetical``, ``hedged``. :func:`assign_roles` finds the cues near the mentions
(:mod:`.cue_hits`), sets aside the ones a named rule (:data:`SKIP_RULES`) says give no role, binds each
of the others to the mention it reaches (:mod:`.cue_reach`), and records the role cues that bound
nothing, for the accounting. Sentence-level passes (:mod:`.passes`) follow: sequences ("then Y", "->
Y") turn the unmarked mentions before them into history. Every step is linear in the answer's length:
cues bind only within a few tokens.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field

from supersede_env.core.grader.answer import Answer
from supersede_env.core.grader.conclusion import SHORT_REPLY
from supersede_env.core.grader.cue_hits import CueHit, cue_hits_near
from supersede_env.core.grader.cue_reach import (
    BACK_REACH,
    afterthought,
    ends_fragment,
    has_own_subject,
    is_interjection,
    opens_clause,
    operand_or_bound,
    reaches,
    trails_a_mention,
)
from supersede_env.core.grader.lexicon import (
    CHANGE_STEMS,
    CHANGE_VERBS,
    CLAUSE_BREAK_PUNCT,
    CLAUSE_BREAK_WORDS,
    COMPARATIVES,
    CROSSING_WORDS,
    CUE_REACH,
    FUNCTION_WORDS,
    NEXT_CLAUSE,
    PARTICLES,
    RISE_FALL,
    SOFT,
    TO_WORDS,
    VALUE_NOUNS,
)
from supersede_env.core.grader.mention import Mention, is_capitalised_name
from supersede_env.core.grader.passes import (
    disjunctions,
    labelled_history,
    questions,
    sentence_alternatives,
    sequences,
    struck_through,
)
from supersede_env.core.grader.tokens import PUNCT, VALUE_KINDS, WORD, Token

_ROLE_OF_CUE = {"neg": "negated", "past": "past", "other": "other", "hypo": "hypothetical", "hedge": "hedged",
                "softhedge": "hedged", "approx": "hedged", "bound": "hedged"}


_RANGES = frozenset({"approx", "bound"})  # cues that widen a value into a range, for the accounting to read
_FRAME_KINDS = frozenset({"past", "hypo", "other"})


@dataclass(slots=True)
class CueReading:
    """Where the roles found cues in an answer (token positions), and which of them qualified no
    mention: the official reader's accounting reads those as speaking of the value beside them."""

    matched: set[int]
    unbound: set[int]
    governed: set[int] = field(default_factory=set)  # words a cue governs ("not Hawaii", "thinking about a Kia")
    bound: set[int] = field(default_factory=set)  # cues that gave a mention its role
    # bounds ("at least 6", "6+", "6 or more"): the official reader knows them, but whether a range
    # answers the question is the judge's call, not a rule's (the accounting's unsure)
    bounds: list[tuple[int, int]] = field(default_factory=list)
    # approximations ("roughly 47", "Busan-ish"): known beside a quantity, not beside a name
    approximations: list[tuple[int, int]] = field(default_factory=list)


def _qualifies(a: Answer, hit: CueHit) -> bool:
    """Does a role cue that bound no mention qualify the value it stands beside? Not a tight cue ("from"
    binds only the value right after it), nor a forward cue with words of its own after it ("the previous
    conversation", "not Hawaii"), unless it offers a condition or fallback ("assuming no change", "if not,
    Quebec City"), gives the value to someone else ("your brother's"), or calls it an old value ("(prior
    record)"). A sequence word closing its clause does too ("Lexington (then)")."""
    tokens, cue = a.tokens, hit.cue
    if cue.kind == "next":
        return ends_fragment(tokens, hit)
    if cue.kind not in _ROLE_OF_CUE or cue.kind in _RANGES or cue.tight:
        return False
    if cue.kind == "other":
        return not _governed(a, hit)  # "your friend Sam's car": the cue introduces someone, named
    if (cue.kind == "hypo" and not cue.governs) or cue.side != "fwd" or ends_fragment(tokens, hit):
        return True
    nxt = hit.last + 1
    return cue.kind == "past" and nxt < len(tokens) and tokens[nxt].text in VALUE_NOUNS


def _in_frame(t: Token, frame: frozenset[str]) -> bool:
    """Is the cue word one the question (or gold) itself uses, in any form ("previous" for "previously")?
    Not "used" for "use": "used to" marks history, the verb "use" asks about the present."""
    return t.text in frame or (t.value in frame and t.text != "used")


def _governed(a: Answer, hit: CueHit) -> range:
    """The name or value a forward cue speaks of when it found no mention ("not Hawaii", "from H&M",
    "you'd like a Kia", "from Session 40"), up to the end of its fragment; empty when what follows is
    no name or value ("from memory", "assuming no change" still need accounting)."""
    tokens, cue, nxt = a.tokens, hit.cue, hit.last + 1
    history = cue.kind == "past" and cue.side != "bwd"  # "You used to have Chevy Malibu": history of a name
    if not history and (cue.side != "fwd" or not (cue.governs or cue.tight)):
        return range(0)
    end = nxt
    while end < len(tokens) and tokens[end].kind != PUNCT and end - nxt < 6:
        end += 1
    named = any(tokens[k].kind != WORD or is_capitalised_name(a, k, k) for k in range(nxt, end)
                if tokens[k].text not in SOFT)
    return range(nxt, end) if named else range(0)


def _from_is_change(tokens: list[Token], hit: CueHit, target: Mention, firsts: list[int],
                    mentions: list[Mention]) -> Mention | None | bool:
    """"from X" is history in a change: after a change verb, or with "to <value>" after X. Returns
    the mention after "to" (it is the new value), True for a change without one, False for none."""
    k = target.last + 1
    while k < len(tokens) and k <= target.last + 3:
        t = tokens[k]
        if (t.kind == WORD and t.text in TO_WORDS) or (t.kind == PUNCT and t.text in ("-", "->")) or (
                t.kind == WORD and t.value == "~"):
            nxt = bisect_left(firsts, k + 1)
            if nxt < len(mentions) and mentions[nxt].first <= k + 3:
                return mentions[nxt]
            break
        if t.kind != PUNCT and not (t.kind == WORD and t.text in SOFT):
            break
        k += 1
    for k in range(hit.first - 1, max(-1, hit.first - 9), -1):
        t = tokens[k]
        if (t.kind == PUNCT and t.text in CLAUSE_BREAK_PUNCT) or (t.kind == WORD and t.text in CLAUSE_BREAK_WORDS):
            break
        if t.kind == WORD and (t.text in CHANGE_VERBS or (k == hit.first - 1 and t.text in PARTICLES)
                               or (t.text in RISE_FALL and k + 1 < len(tokens) and tokens[k + 1].text == "to")):
            return True  # "moved from X", "up from X", "down to 47 from 52"
    return False


_ORDER_KINDS = frozenset({"past", "now", "next", "pasttense", "presenttense"})


_CROSSING_KINDS = frozenset({"hedge", "softhedge", "approx", "bound", "past", "neg"})  # "X, but not anymore", "X - not sure"


_AFTERTHOUGHT_KINDS = frozenset({"hedge", "softhedge", "approx", "bound", "past", "neg", "hypo"})


@dataclass(slots=True)
class _Binding:
    """One answer's mentions, indexed for binding cues to them."""

    a: Answer
    mentions: list[Mention]
    ordering: bool
    frame: frozenset[str]
    firsts: list[int] = field(default_factory=list)
    by_last: list[int] = field(default_factory=list)  # mention indexes in order of their last token
    lasts: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.firsts = [m.first for m in self.mentions]
        self.by_last = sorted(range(len(self.mentions)), key=lambda k: self.mentions[k].last)
        self.lasts = [self.mentions[k].last for k in self.by_last]

    def after(self, index: int) -> Mention | None:
        """The first mention starting at or after token ``index``."""
        k = bisect_left(self.firsts, index)
        return self.mentions[k] if k < len(self.mentions) else None

    def before(self, index: int) -> Mention | None:
        """The mention ending last at or before token ``index``."""
        k = bisect_right(self.lasts, index) - 1
        return self.mentions[self.by_last[k]] if k >= 0 else None


def _in_question_frame(b: _Binding, hit: CueHit) -> bool:
    """A history, hypothetical or someone-else cue the question itself uses is what it asks about
    ("where did I *initially* keep ...", "my *former* manager"), not a role the answer gives."""
    tokens = b.a.tokens
    return bool(b.frame) and hit.cue.kind in _FRAME_KINDS and not hit.cue.tight and all(
        _in_frame(tokens[k], b.frame) for k in range(hit.first, hit.last + 1)
        if tokens[k].text not in SOFT and tokens[k].text not in FUNCTION_WORDS)


# Cues found but given no role, each rule named for what it keeps apart
SKIP_RULES: tuple[tuple[str, Callable[[_Binding, CueHit], bool]], ...] = (
    ("an interjection ('No, it's Portland')", lambda b, hit: is_interjection(b.a.tokens, hit)),
    ("order words answer an order question", lambda b, hit: b.ordering and hit.cue.kind in _ORDER_KINDS),
    ("approximations and bounds are the accounting's business", lambda b, hit: hit.cue.kind in _RANGES),
    ("a mild hedge counts in a short reply only",
     lambda b, hit: hit.cue.kind == "softhedge" and len(b.a.text) > SHORT_REPLY),
    ("the question's own words", _in_question_frame),
    ("a correction word inside a clause is emphasis ('is actually Portland')",
     lambda b, hit: hit.cue.correction and hit.first > 0 and b.a.tokens[hit.first - 1].kind != PUNCT),
)

# Backward cues that speak of something other than the value before them
BACKWARD_SKIP_RULES: tuple[tuple[str, Callable[[list[Token], CueHit], bool]], ...] = (
    ("a hedge about a bound ('at least 2, but possibly more')",
     lambda tokens, hit: hit.cue.kind in _HEDGES and hit.last + 1 < len(tokens)
     and tokens[hit.last + 1].text in COMPARATIVES),
    ("a hedge about its own clause ('Prius - you might consider a Kia')",
     lambda tokens, hit: hit.cue.kind in _HEDGES and has_own_subject(tokens, hit)),
    ("a clause-final adverb followed by words, no change among them ('10 minutes before washing'; not "
     "'Marcus before she moved')",
     lambda tokens, hit: hit.cue.clause_final and hit.last + 1 < len(tokens)
     and tokens[hit.last + 1].kind != PUNCT and tokens[hit.last + 1].text not in NEXT_CLAUSE
     and not _names_a_change(tokens, hit.last + 1)),
)
_HEDGES = frozenset({"hedge", "softhedge", "approx", "bound"})


def _names_a_change(tokens: list[Token], k: int) -> bool:
    """Does the clause from token k on name a change ("she moved", "the update")? A value said to hold
    before a change is its history."""
    return _change_word(tokens, k) is not None


def _change_word(tokens: list[Token], k: int) -> str | None:
    """The first word naming a change in the clause from token k on, if any."""
    while k < len(tokens) and tokens[k].kind != PUNCT:
        if tokens[k].value in CHANGE_STEMS:
            return tokens[k].text
        k += 1
    return None


def _changed_after(tokens: list[Token], hit: CueHit) -> bool:
    """A sequence word whose clause names a change and gives no value: what came before it was replaced
    ("Busan, then you changed it", "Busan, later you moved")."""
    return hit.cue.kind == "next" and hit.cue.side == "fwd" and _names_a_change(tokens, hit.last + 1)


_SKIPPED = object()  # a hit the backward rules set aside: no role, no accounting


def _target(b: _Binding, hit: CueHit) -> Mention | object | None:
    """The mention a cue speaks of: forward within its reach, else the one before it (``bwd`` and
    ``both`` cues), else what follows an opening adverb ("Now 47; before, 52"), else the value a
    one-cue sentence follows ("Portland. Probably.")."""
    tokens, cue = b.a.tokens, hit.cue
    # "Lexington now, Phoenix earlier": a two-sided cue right after a value, ending its clause, is that value's
    if cue.side == "fwd" or (cue.side == "both" and not trails_a_mention(tokens, hit, b.lasts)):
        m = b.after(hit.last + 1)
        if m is not None and reaches(tokens, hit.last + 1, m.first - 1, cue.reach, allow_colon=cue.reach > 0):
            return m
    if _changed_after(tokens, hit):  # "Busan, then you changed it": the value before the change is history
        before = b.before(hit.first - 1)
        if before is not None and reaches(tokens, before.last + 1, hit.first - 1, BACK_REACH):
            return before
    opens = cue.clause_final and opens_clause(tokens, hit, b.a.start)
    if cue.side in ("bwd", "both") and not opens:
        before = b.before(hit.first - 1)
        if before is not None:
            if any(rule(tokens, hit) for _, rule in BACKWARD_SKIP_RULES):
                return _SKIPPED
            crossing = CROSSING_WORDS if cue.kind in _CROSSING_KINDS else frozenset()
            if reaches(tokens, before.last + 1, hit.first - 1, BACK_REACH + (2 if cue.kind in _HEDGES else 0),
                      allow_paren=True, crossing=crossing):
                return before
    if opens:
        m = b.after(hit.last + 2)
        if m is not None and reaches(tokens, hit.last + 2, m.first - 1, CUE_REACH[cue.kind]):
            return m
    if cue.kind in _AFTERTHOUGHT_KINDS and cue.side != "fwd":
        return afterthought(b.a, hit, b.mentions, b.by_last, b.lasts)
    return None


def _give_role(b: _Binding, hit: CueHit, target: Mention) -> None:
    cue = hit.cue
    if cue.words == ("from",):
        change = _from_is_change(b.a.tokens, hit, target, b.firsts, b.mentions)
        if change is False:
            return
        if isinstance(change, Mention):
            change.marked = change.marked or "next"
    words = " ".join(cue.words)
    if cue.kind == "hypo" and cue.governs:
        target.set_role("planned", words)
    elif cue.kind in _ROLE_OF_CUE:
        target.set_role(_ROLE_OF_CUE[cue.kind], words)
    elif cue.kind == "pasttense":
        target.tense = target.tense or "past"
    elif cue.kind == "presenttense":
        target.tense = "present"
    elif cue.kind == "now":
        target.marked = "now"
    elif _changed_after(b.a.tokens, hit) and target.last < hit.first:
        target.set_role("past", f"{words} ... {_change_word(b.a.tokens, hit.last + 1)}")
    elif cue.kind == "next" and not target.marked:
        target.marked = "next"


def _note_unbound(b: _Binding, hit: CueHit, reading: CueReading) -> None:
    """A cue that bound no mention: what it governs ("not Hawaii") is accounted for; a role cue that
    qualifies the value beside it is left for the accounting to refuse."""
    governed = _governed(b.a, hit)
    reading.matched.update(governed)
    reading.governed.update(governed)
    if not governed and hit.first not in reading.governed and _qualifies(b.a, hit):
        reading.unbound.update(range(hit.first, hit.last + 1))


def assign_roles(a: Answer, mentions: list[Mention], *, ordering: bool = False,
                 frame: frozenset[str] = frozenset(), dated_question: bool = False,
                 timeline: bool = False) -> CueReading:
    """Give every mention its role from the cues around it (see the module docstring). With
    ``ordering`` (a question about the order of events) only denials, hypotheticals and hedges count.
    ``frame``: the question's words as written and their stems (:func:`_in_question_frame`).
    ``dated_question``: the question names a year, so year labels say what it asks, not what is history.
    ``timeline``: the gold is a value then and a value now, so its parts in sequence are not each other's history.
    Returns where cues were found, and the role cues that found no mention to bind to."""
    reading = CueReading(set(), set())
    if not mentions:
        return reading
    tokens = a.tokens
    for m in mentions:  # operands and bounds ("25 + 2", "more than 25") are not answers
        if tokens[m.first].kind in VALUE_KINDS and operand_or_bound(tokens, m.first, m.last):
            m.set_role("negated", BOUND_CUE)
    b = _Binding(a, mentions, ordering, frame)
    inside = {k for m in mentions if not m.loose for k in range(m.first, m.last + 1)}
    for hit in cue_hits_near(a, mentions, inside, tenses=len({m.text for m in mentions}) > 1):
        reading.matched.update(range(hit.first, hit.last + 1))
        if hit.cue.kind == "bound":
            reading.bounds.append((hit.first, hit.last))
        elif hit.cue.kind == "approx":
            reading.approximations.append((hit.first, hit.last))
        if any(rule(b, hit) for _, rule in SKIP_RULES):
            continue
        target = _target(b, hit)
        if target is None:
            _note_unbound(b, hit, reading)
        elif isinstance(target, Mention):
            _give_role(b, hit, target)
            reading.bound.update(range(hit.first, hit.last + 1))
    _post_passes(a, mentions, ordering, dated_question, timeline)
    return reading


def _post_passes(a: Answer, mentions: list[Mention], ordering: bool, dated_question: bool, timeline: bool) -> None:
    """Roles that whole sentences give (:mod:`supersede_env.core.grader.passes`), after the cues'."""
    text = a.text
    if not ordering:
        labelled_history(a, mentions, dated_question)
    if len(mentions) > 1 and ("or" in text or "/" in text or "vs" in text):
        disjunctions(a.tokens, mentions)
    sentence_alternatives(a, mentions)
    if "?" in text:
        questions(a.tokens, mentions)
    struck_through(a, mentions)
    if not ordering:
        sequences(a.tokens, mentions, timeline)


BOUND_CUE = "an operand or a bound"  # the role's cue for "25 + 2", "more than 25": not a denial of the value

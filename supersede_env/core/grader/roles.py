"""Roles: each mention's role, from the cues around it, by the same rules whichever value it is.

``current`` (asserted), ``past`` (history), ``negated``, ``other`` (someone else's), ``planned`` (a plan or
wish), ``hypothetical``, ``hedged``. :func:`assign_roles` reads in three steps, in this order in the
file:

- **finding cues** (:func:`cue_hits_near`): the phrases of the cue table (:data:`~.lexicon.CUES`) that
  stand near a mention, longest first, and every "-n't" as a denial;
- **a cue's reach** (:func:`reaches` and the places that keep a cue from a value): within its clause
  and a few content words, across a parenthesis or a heading colon; never across an interjection, a
  clause of its own, an operand or a bound;
- **giving roles**: sets aside the cues a named rule (:data:`SKIP_RULES`) says give no role, binds
  each of the others to the mention it reaches, and records the role cues that bound nothing, for
  the accounting.

Sentence-level passes (:mod:`.passes`) follow: sequences ("then Y", "-> Y") turn the unmarked
mentions before them into history. Every step is linear in the answer's length: cues bind only
within a few tokens."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field

from supersede_env.core.grader.answer import SHORT_REPLY, Answer
from supersede_env.core.grader.lexicon import (
    BOUND_BEFORE,
    CHANGE_STEMS,
    CHANGE_VERBS,
    CLAUSE_BREAK_PUNCT,
    CLAUSE_BREAK_WORDS,
    CLAUSE_ENDS,
    CLOSING_MARKS,
    COMPARATIVES,
    CROSSING_WORDS,
    CUE_REACH,
    CUE_STARTS,
    CUE_TABLE,
    CUES,
    FUNCTION_WORDS,
    NEGATION_OPENERS,
    NEXT_CLAUSE,
    OPERATORS,
    PARTICLES,
    RISE_FALL,
    SENTENCE_END,
    SEPARATOR_WORDS,
    SET_WORDS,
    SOFT,
    SUBJECT_PRONOUNS,
    TO_WORDS,
    VALUE_NOUNS,
    Cue,
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
from supersede_env.core.grader.tokens import LABEL, NUM, PUNCT, VALUE_KINDS, WORD, Token

# ---------------------------------------------------------------------------------------------
# Finding cues
# ---------------------------------------------------------------------------------------------
# the table by its first word (one-word cues) and by its first two words (longer ones, longest first)
_SINGLE = {c.words[0]: c for cues in CUE_TABLE.values() for c in cues if len(c.words) == 1}


_SINGLE_WITHOUT_TENSES = {w: c for w, c in _SINGLE.items() if c.kind not in ("pasttense", "presenttense")}


def _by_first_two_words() -> dict[tuple[str, str], list[Cue]]:
    out: dict[tuple[str, str], list[Cue]] = {}
    for cue in sorted((c for c in CUES if len(c.words) > 1), key=lambda c: -len(c.words)):
        out.setdefault(cue.words[:2], []).append(cue)
    return out


_PAIRED = _by_first_two_words()


_NOT_CUE = Cue(("n't",), "neg", "fwd")


@dataclass(slots=True)
class CueHit:
    cue: Cue
    first: int
    last: int


_NEAR = 14  # tokens: no cue binds farther than this from its mention


def cue_hits_near(a: Answer, mentions: list[Mention], inside: set[int], tenses: bool) -> list[CueHit]:
    """The cues within reach of some mention (windows around the mentions), none before the
    conclusion's start ("The answer would be: X" does not make X hypothetical). Only the tokens the
    reading marked as possible cue starts are tried."""
    tokens, positions = a.tokens, a.cues
    windows: list[tuple[int, int]] = []
    for m in mentions:
        lo, hi = max(a.start, m.first - _NEAR), m.last + _NEAR
        if windows and lo <= windows[-1][1]:
            windows[-1] = (windows[-1][0], max(windows[-1][1], hi))
        else:
            windows.append((lo, hi))
    hits: list[CueHit] = []
    singles = _SINGLE if tenses else _SINGLE_WITHOUT_TENSES
    skip_to = -1
    for lo, hi in windows:
        for p in range(bisect_left(positions, lo), bisect_left(positions, hi)):
            i = positions[p]
            if i < skip_to or i in inside:
                continue
            if (hit := _cue_at(tokens, i, singles, inside)) is not None:
                hits.append(hit)
                skip_to = hit.last + 1
    return hits


def cues_in(tokens: list[Token]) -> list[CueHit]:
    """Every cue in ``tokens`` (a sentence read on its own), longest first where phrases overlap."""
    hits: list[CueHit] = []
    i = 0
    while i < len(tokens):
        hit = _cue_at(tokens, i, _SINGLE_WITHOUT_TENSES, frozenset())
        if hit is not None:
            hits.append(hit)
        i = hit.last + 1 if hit is not None else i + 1
    return hits


def _cue_at(tokens: list[Token], i: int, singles: dict[str, Cue], inside: set[int] | frozenset[int]) -> CueHit | None:
    """The cue starting at tokens[i] (phrases of two words or more first, longest first), if any."""
    text, n = tokens[i].text, len(tokens)
    if text == "percent" and i > 0 and tokens[i - 1].kind == NUM and tokens[i - 1].value >= 100:
        return None  # "100% sure" is certainty, not a hedge
    longer = _PAIRED.get((text, tokens[i + 1].text)) if i + 1 < n else None
    for cue in longer or ():
        k = len(cue.words)
        if i + k <= n and all(tokens[i + x].text == w and (i + x) not in inside for x, w in enumerate(cue.words) if x):
            return CueHit(cue, i, i + k - 1)
    found = singles.get(text)
    if found is None:
        return CueHit(_NOT_CUE, i, i) if text.endswith("n't") else None  # every "-n't" denies: "wouldn't"
    return CueHit(found, i, i)


# ---------------------------------------------------------------------------------------------
# A cue's reach
# ---------------------------------------------------------------------------------------------

BACK_REACH = 2  # "Denver, previously" / "Denver (previously)": a cue after a value sits right after it


def reaches(tokens: list[Token], lo: int, hi: int, limit: int, *, allow_paren: bool = False,
           allow_colon: bool = False, crossing: frozenset = frozenset()) -> bool:
    """Can a cue reach across tokens lo..hi (exclusive bounds already applied)? Within its clause and
    at most ``limit`` content words; ``allow_paren``: an opening parenthesis right after a mention;
    ``allow_colon``: a heading colon close after the cue ("Old value: Denver", "My best guess: X")."""
    if hi - lo > 3 * limit + 4:
        return False
    words = 0
    for k in range(lo, hi + 1):
        t = tokens[k]
        if t.kind == PUNCT:
            if t.text in crossing:
                continue
            if t.text == ":" and allow_colon and words <= 2:
                words = 0
                allow_colon = False
                continue
            if t.text in CLAUSE_BREAK_PUNCT and not (allow_paren and k == lo and t.text == "("):
                return False
        elif t.kind == WORD:
            if t.text in CLAUSE_BREAK_WORDS and t.text not in crossing:
                return False
            if t.text not in SOFT:
                words += 1
        elif t.kind != LABEL:
            words += 1
        if words > limit:
            return False
    return True


def has_own_subject(tokens: list[Token], hit: CueHit) -> bool:
    """Does a subject pronoun stand right before the cue and a word after it ("you might consider ...")?"""
    before, after = hit.first - 1, hit.last + 1
    return before >= 0 and tokens[before].text in SUBJECT_PRONOUNS and after < len(tokens) and tokens[after].kind == WORD


def ends_fragment(tokens: list[Token], hit: CueHit) -> bool:
    """Does nothing but punctuation follow the cue in its fragment ("X (then)", "X is your brother's, ...")?"""
    nxt = hit.last + 1
    return nxt >= len(tokens) or (tokens[nxt].kind == PUNCT and (tokens[nxt].text in CLAUSE_BREAK_PUNCT
                                                                 or tokens[nxt].text == ","))


def is_interjection(tokens: list[Token], hit: CueHit) -> bool:
    """"No, it's Portland": a "no" or "not" opening a sentence and standing alone denies nothing after it
    ("Portland, NOT." denies what it follows, and so does a reply's last word: "Portland... NOT!")."""
    nxt, before = hit.last + 1, hit.first - 1
    opens = before < 0 or (tokens[before].kind == PUNCT and tokens[before].text in SENTENCE_END)
    alone = nxt >= len(tokens) or (tokens[nxt].kind == PUNCT and tokens[nxt].text in (",", ".", "!", ";", ":", "\n"))
    said_after = any(t.kind != PUNCT for t in tokens[nxt:])  # it opens what follows, not a retraction
    return (opens and alone and (said_after or before < 0) and hit.cue.kind == "neg"
            and hit.cue.words[0] in NEGATION_OPENERS)


def afterthought(a: Answer, hit: CueHit, mentions: list[Mention], by_last: list[int],
                  lasts: list[int]) -> Mention | None:
    """"Portland. Probably." / "47\n\nCould be wrong.": a short sentence that is only a cue speaks of
    the value just before it. The cue must open its sentence, the sentence must hold at most three
    more words (a history cue none: "You used to have Chevy Malibu." speaks of its own object), and
    the value must end the sentence before."""
    tokens = a.tokens
    limit = 0 if hit.cue.kind == "past" else 3
    k = hit.first - 1
    while k >= 0 and tokens[k].kind == WORD and tokens[k].text in SOFT:
        k -= 1
    if k >= 0 and not (tokens[k].kind == PUNCT and tokens[k].text in SENTENCE_END):
        return None
    words, j = 0, hit.last + 1
    while j < len(tokens) and not (tokens[j].kind == PUNCT and tokens[j].text in SENTENCE_END):
        if tokens[j].kind in VALUE_KINDS or (tokens[j].kind == WORD and tokens[j].text not in SOFT):
            words += 1
        if tokens[j].kind == WORD and tokens[j].text in SET_WORDS:
            return None  # "The current one is one of these.": about the set, not the value before
        j += 1
    if words > limit:
        return None
    i = bisect_right(lasts, hit.first - 1) - 1
    if i < 0:
        return None
    before = mentions[by_last[i]]
    # nothing but punctuation between the value and the end of its sentence
    if k < 0 or any(t.kind != PUNCT for t in tokens[before.last + 1:k]):
        return None
    return before


def trails_a_mention(tokens: list[Token], hit: CueHit, lasts: list[int]) -> bool:
    """Does the cue follow a mention (closing marks and one plain word apart: "4 engineers at first")
    and end its clause ("X now, ...", "... at first and ...")?"""
    k = bisect_right(lasts, hit.first - 1) - 1
    if k < 0:
        return False
    between = [t for t in tokens[lasts[k] + 1:hit.first] if not (t.kind == PUNCT and t.text in CLOSING_MARKS)]
    if len(between) > 1 or any(t.kind != WORD or t.text in CUE_STARTS or t.text in SEPARATOR_WORDS for t in between):
        return False
    after = hit.last + 1
    return after >= len(tokens) or (tokens[after].kind == PUNCT and tokens[after].text in CLAUSE_ENDS) or (
        tokens[after].kind == WORD and tokens[after].text in NEXT_CLAUSE)


def opens_clause(tokens: list[Token], hit: CueHit, start: int) -> bool:
    """Does the cue open its clause and stand before a comma or colon ("...; before, 52")?"""
    after = hit.last + 1
    if after >= len(tokens) or tokens[after].text not in (",", ":"):
        return False
    before = hit.first - 1
    return before < start or (tokens[before].kind == PUNCT and (
        tokens[before].text in CLAUSE_BREAK_PUNCT or tokens[before].text in SENTENCE_END or tokens[before].text in "|,"))


def operand_or_bound(tokens: list[Token], first: int, last: int) -> bool:
    """"25 + 2 = 27" (an operand: a number on the other side of the operator), "more than 25" (a bound).
    "50mm lens + 70-200mm lens" lists two things: only arithmetic between numbers is an operation."""
    n = len(tokens)
    if first > 1 and tokens[first - 1].text in OPERATORS and tokens[first - 1].text != "=" \
            and tokens[first - 2].kind in VALUE_KINDS:
        return True
    if last + 2 < n and tokens[last + 1].text in OPERATORS and tokens[last + 2].kind in VALUE_KINDS:
        return True
    j = first - 1
    while j >= 0 and tokens[j].kind == WORD and tokens[j].text in SOFT:
        j -= 1
    return j >= 0 and tokens[j].kind == WORD and tokens[j].text in BOUND_BEFORE


# ---------------------------------------------------------------------------------------------
# Giving roles
# ---------------------------------------------------------------------------------------------

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
    words = [tokens[k] for k in range(hit.first, hit.last + 1)
             if tokens[k].text not in SOFT and tokens[k].text not in FUNCTION_WORDS]
    # a cue of function words alone ("has to be", "is to be") is no word of the question's
    return bool(b.frame) and hit.cue.kind in _FRAME_KINDS and not hit.cue.tight and bool(words) and all(
        _in_frame(t, b.frame) for t in words)


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

"""TODO docstring."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field

from supersede_env.core.grader.answer import SHORT_REPLY, Answer
from supersede_env.core.grader.lexicon import (
    BOUND_BEFORE,
    CHANGE_VERBS,
    CLAUSE_BREAK_PUNCT,
    CLAUSE_BREAK_WORDS,
    CLAUSE_ENDS,
    CLOSING_MARKS,
    COMPARATIVES,
    CROSSING_WORDS,
    CUE_STARTS,
    CUE_TABLE,
    CUES,
    FUNCTION_WORDS,
    NEXT_CLAUSE,
    OPERATORS,
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
    _disjunctions,
    _labelled_history,
    _questions,
    _sentence_alternatives,
    _sequences,
    _struck_through,
)
from supersede_env.core.grader.tokens import LABEL, NUM, PUNCT, VALUE_KINDS, WORD, Token

_ROLE_OF_CUE = {"neg": "negated", "past": "past", "other": "other", "hypo": "hypothetical", "hedge": "hedged",
                "softhedge": "hedged", "approx": "hedged"}


# ---------------------------------------------------------------------------------------------
# Roles
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


_WINDOW = {"neg": 3, "past": 3, "hypo": 4, "other": 3, "hedge": 4, "softhedge": 4, "approx": 4, "now": 3, "next": 3,
           "pasttense": 2, "presenttense": 2}


_BACK_WINDOW = 2  # "Denver, previously" / "Denver (previously)": a cue after a value sits right after it




_TIGHT = frozenset({("from",), ("ex",), ("after",)})  # bind only to the value right after them ("from Denver")


# approximations hedge only the value they touch ("about 47"), not "about the car: ..."
_APPROX = frozenset({(w,) for w in ("about", "around", "roughly", "approximately", "circa", "nearly", "almost",
                                     "approx", "approximate", "estimated")}
                    | {("at", "least"), ("at", "most"), ("up", "to"), ("an", "estimated"), ("est", ".")})


# corrections start a new clause ("Denver - actually, Portland"); "is actually Portland" is emphasis
_CORRECTIONS = frozenset({("actually",), ("wait",), ("no", "wait"), ("i", "mean"), ("correction",), ("or", "rather"),
                          ("scratch", "that"), ("make", "that")})


_FRAME_KINDS = frozenset({"past", "hypo", "other"})


_CLAUSE_FINAL = frozenset({("before",), ("earlier",)})  # adverbs only at the end of a clause




@dataclass(slots=True)
class CueReading:
    """Where the roles found cues in an answer (token positions), and which of them qualified no
    mention: the official reader's accounting reads those as speaking of the value beside them."""

    matched: set[int]
    unbound: set[int]
    governed: set[int] = field(default_factory=set)  # words a cue governs ("not Hawaii", "thinking about a Kia")


@dataclass(slots=True)
class _CueHit:
    cue: Cue
    first: int
    last: int


_NEAR = 14  # tokens: no cue binds farther than this from its mention


def _cue_hits_near(a: Answer, mentions: list[Mention], inside: set[int], tenses: bool) -> list[_CueHit]:
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
    hits: list[_CueHit] = []
    singles, pairs = (_SINGLE, _PAIRED) if tenses else (_SINGLE_WITHOUT_TENSES, _PAIRED)
    n = len(tokens)
    skip_to = -1
    for lo, hi in windows:
        for p in range(bisect_left(positions, lo), bisect_left(positions, hi)):
            i = positions[p]
            if i < skip_to or i in inside:
                continue
            text = tokens[i].text
            found: Cue | None = None
            longer = pairs.get((text, tokens[i + 1].text)) if i + 1 < n else None
            if longer:  # phrases of two words or more, longest first
                for cue in longer:
                    k = len(cue.words)
                    if i + k <= n and all(tokens[i + x].text == w and (i + x) not in inside
                                          for x, w in enumerate(cue.words) if x):
                        found = cue
                        break
            if found is None:
                found = singles.get(text)
            if found is None:
                if text.endswith("n't"):
                    hits.append(_CueHit(_NOT_CUE, i, i))  # every "-n't" denies: "wouldn't", "mustn't"
                continue
            k = len(found.words)
            if text == "percent" and i > 0 and tokens[i - 1].kind == NUM and tokens[i - 1].value >= 100:
                continue  # "100% sure" is certainty, not a hedge
            hits.append(_CueHit(found, i, i + k - 1))
            skip_to = i + k
    return hits


def _reach(tokens: list[Token], lo: int, hi: int, limit: int, *, allow_paren: bool = False,
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




def _has_own_subject(tokens: list[Token], hit: _CueHit) -> bool:
    """Does a subject pronoun stand right before the cue and a word after it ("you might consider ...")?"""
    before, after = hit.first - 1, hit.last + 1
    return before >= 0 and tokens[before].text in SUBJECT_PRONOUNS and after < len(tokens) and tokens[after].kind == WORD


def _ends_fragment(tokens: list[Token], hit: _CueHit) -> bool:
    """Does nothing but punctuation follow the cue in its fragment ("X (then)", "X is your brother's, ...")?"""
    nxt = hit.last + 1
    return nxt >= len(tokens) or (tokens[nxt].kind == PUNCT and (tokens[nxt].text in CLAUSE_BREAK_PUNCT
                                                                 or tokens[nxt].text == ","))




def _qualifies(a: Answer, hit: _CueHit) -> bool:
    """Does a role cue that bound no mention qualify the value it stands beside? Not a tight cue ("from"
    binds only the value right after it), nor a forward cue with words of its own after it ("the previous
    conversation", "not Hawaii"), unless it offers a condition or fallback ("assuming no change", "if not,
    Quebec City"), gives the value to someone else ("your brother's"), or calls it an old value ("(prior
    record)"). A sequence word closing its clause does too ("Lexington (then)")."""
    tokens, cue = a.tokens, hit.cue
    if cue.kind == "next":
        return _ends_fragment(tokens, hit)
    if cue.kind not in _ROLE_OF_CUE or cue.kind == "approx" or cue.words in _TIGHT:
        return False
    if cue.kind == "other":
        return not _governed(a, hit)  # "your friend Sam's car": the cue introduces someone, named
    if (cue.kind == "hypo" and not cue.governs) or cue.side != "fwd" or _ends_fragment(tokens, hit):
        return True
    nxt = hit.last + 1
    return cue.kind == "past" and nxt < len(tokens) and tokens[nxt].text in VALUE_NOUNS


def _in_frame(t: Token, frame: frozenset[str]) -> bool:
    """Is the cue word one the question (or gold) itself uses, in any form ("previous" for "previously")?
    Not "used" for "use": "used to" marks history, the verb "use" asks about the present."""
    return t.text in frame or (t.value in frame and t.text != "used")


def _governed(a: Answer, hit: _CueHit) -> range:
    """The name or value a forward cue speaks of when it found no mention ("not Hawaii", "from H&M",
    "you'd like a Kia", "from Session 40"), up to the end of its fragment; empty when what follows is
    no name or value ("from memory", "assuming no change" still need accounting)."""
    tokens, cue, nxt = a.tokens, hit.cue, hit.last + 1
    history = cue.kind == "past" and cue.side != "bwd"  # "You used to have Chevy Malibu": history of a name
    if not history and (cue.side != "fwd" or not (cue.governs or cue.words in _TIGHT)):
        return range(0)
    end = nxt
    while end < len(tokens) and tokens[end].kind != PUNCT and end - nxt < 6:
        end += 1
    named = any(tokens[k].kind != WORD or is_capitalised_name(a, k, k) for k in range(nxt, end)
                if tokens[k].text not in SOFT)
    return range(nxt, end) if named else range(0)


def _is_interjection(tokens: list[Token], hit: _CueHit) -> bool:
    """"No, it's Portland": a "no" or "not" opening a sentence and standing alone denies nothing after it
    ("Portland, NOT." denies what it follows)."""
    nxt, before = hit.last + 1, hit.first - 1
    opens = before < 0 or (tokens[before].kind == PUNCT and tokens[before].text in SENTENCE_END)
    return opens and hit.cue.kind == "neg" and hit.cue.words[0] in ("no", "not", "never", "none") and (
        nxt >= len(tokens) or (tokens[nxt].kind == PUNCT and tokens[nxt].text in (",", ".", "!", ";", ":", "\n")))


def _from_is_change(tokens: list[Token], hit: _CueHit, target: Mention, firsts: list[int],
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
        if t.kind == WORD and (t.text in CHANGE_VERBS or (k == hit.first - 1 and t.text in ("up", "down", "on"))
                               or (t.text in ("up", "down") and k + 1 < len(tokens) and tokens[k + 1].text == "to")):
            return True  # "moved from X", "up from X", "down to 47 from 52"
    return False


_ORDER_KINDS = frozenset({"past", "now", "next", "pasttense", "presenttense"})


_CROSSING_KINDS = frozenset({"hedge", "softhedge", "approx", "past", "neg"})  # "X, but not anymore", "X - not sure"




_AFTERTHOUGHT_KINDS = frozenset({"hedge", "softhedge", "approx", "past", "neg", "hypo"})




def _afterthought(a: Answer, hit: _CueHit, mentions: list[Mention], by_last: list[int],
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


def assign_roles(a: Answer, mentions: list[Mention], *, ordering: bool = False,
                 frame: frozenset[str] = frozenset(), dated_question: bool = False) -> CueReading:
    """Give every mention its role from the cues around it (see the module docstring). With
    ``ordering`` (a question about the order of events) only denials, hypotheticals and hedges count.
    ``frame``: the question's words as written and their stems. A history or hypothetical cue the question itself uses is
    what is asked about ("where did I *initially* keep ...", "my *former* manager", "where am I
    *planning* to stay"), not a role the answer gives.
    ``dated_question``: the question names a year, so year labels say what it asks, not what is history.
    Returns where cues were found, and the role cues that found no mention to bind to."""
    reading = CueReading(set(), set())
    if not mentions:
        return reading
    tokens = a.tokens
    inside = {k for m in mentions if not m.loose for k in range(m.first, m.last + 1)}
    firsts = [m.first for m in mentions]
    by_last = sorted(range(len(mentions)), key=lambda k: mentions[k].last) if len(mentions) > 1 else [0]
    lasts = [mentions[k].last for k in by_last]
    for m in mentions:  # operands and bounds ("25 + 2", "more than 25") are not answers
        if tokens[m.first].kind in VALUE_KINDS and _operand_or_bound(tokens, m.first, m.last):
            m.set_role("negated", BOUND_CUE)
    tenses = len({m.text for m in mentions}) > 1
    short = len(a.text) <= SHORT_REPLY  # a reply this short is the answer itself: mild hedges count
    for hit in _cue_hits_near(a, mentions, inside, tenses):
        cue = hit.cue
        reading.matched.update(range(hit.first, hit.last + 1))
        if _is_interjection(tokens, hit) or (ordering and cue.kind in _ORDER_KINDS) or (
                cue.kind == "approx") or (cue.kind == "softhedge" and not short):
            continue
        if frame and cue.kind in _FRAME_KINDS and cue.words not in _TIGHT and all(
                _in_frame(tokens[k], frame) for k in range(hit.first, hit.last + 1)
                if tokens[k].text not in SOFT and tokens[k].text not in FUNCTION_WORDS):
            continue
        if cue.words in _CORRECTIONS and hit.first > 0 and tokens[hit.first - 1].kind != PUNCT:
            continue
        limit = 0 if (cue.words in _TIGHT or cue.words in _APPROX) else _WINDOW[cue.kind]
        target: Mention | None = None
        # "Lexington now, Phoenix earlier": a two-sided cue right after a value, ending its clause, is that value's
        if cue.side == "fwd" or (cue.side == "both" and not _trails_a_mention(tokens, hit, lasts)):
            k = bisect_left(firsts, hit.last + 1)
            if k < len(mentions) and _reach(tokens, hit.last + 1, mentions[k].first - 1, limit,
                                            allow_colon=limit > 0):
                target = mentions[k]
        opens = cue.words in _CLAUSE_FINAL and _opens_clause(tokens, hit, a.start)
        if target is None and cue.side in ("bwd", "both") and not opens:
            k = bisect_right(lasts, hit.first - 1) - 1
            if k >= 0:
                before = mentions[by_last[k]]
                hedge = cue.kind in ("hedge", "softhedge", "approx")
                if hedge and hit.last + 1 < len(tokens) and tokens[hit.last + 1].text in COMPARATIVES:
                    continue  # "at least 2, but possibly more": the hedge is about the bound
                if hedge and _has_own_subject(tokens, hit):
                    continue  # "Prius - you might consider a Kia": the hedge is about its own clause
                if cue.words in _CLAUSE_FINAL and hit.last + 1 < len(tokens) and tokens[hit.last + 1].kind != PUNCT \
                        and tokens[hit.last + 1].text not in NEXT_CLAUSE:
                    continue  # "Denver before, Portland now" is history; "10 minutes before washing" is not
                if _reach(tokens, before.last + 1, hit.first - 1, _BACK_WINDOW + (2 if hedge else 0),
                          allow_paren=True, crossing=CROSSING_WORDS if cue.kind in _CROSSING_KINDS else frozenset()):
                    target = before
        if target is None and opens:
            # "Now 47; before, 52": an adverb opening its clause, then a comma, speaks of what follows
            k = bisect_left(firsts, hit.last + 2)
            if k < len(mentions) and _reach(tokens, hit.last + 2, mentions[k].first - 1, _WINDOW[cue.kind]):
                target = mentions[k]
        if target is None and cue.kind in _AFTERTHOUGHT_KINDS and cue.side != "fwd":
            target = _afterthought(a, hit, mentions, by_last, lasts)
        if target is None:
            governed = _governed(a, hit)  # "not Hawaii", "from H&M": what the cue speaks of
            reading.matched.update(governed)
            reading.governed.update(governed)
            if not governed and hit.first not in reading.governed and _qualifies(a, hit):
                reading.unbound.update(range(hit.first, hit.last + 1))
            continue
        words = " ".join(cue.words)
        if cue.words == ("from",):
            change = _from_is_change(tokens, hit, target, firsts, mentions)
            if change is False:
                continue
            if isinstance(change, Mention):
                change.marked = change.marked or "next"
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
        elif cue.kind == "next" and not target.marked:
            target.marked = "next"
    text = a.text
    if not ordering:
        _labelled_history(a, mentions, dated_question)
    if len(mentions) > 1 and ("or" in text or "/" in text or "vs" in text):
        _disjunctions(tokens, mentions)
    _sentence_alternatives(a, mentions)
    if "?" in text:
        _questions(tokens, mentions)
    _struck_through(a, mentions)
    if not ordering:
        _sequences(mentions)
    return reading








def _trails_a_mention(tokens: list[Token], hit: _CueHit, lasts: list[int]) -> bool:
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


def _opens_clause(tokens: list[Token], hit: _CueHit, start: int) -> bool:
    """Does the cue open its clause and stand before a comma or colon ("...; before, 52")?"""
    after = hit.last + 1
    if after >= len(tokens) or tokens[after].text not in (",", ":"):
        return False
    before = hit.first - 1
    return before < start or (tokens[before].kind == PUNCT and (
        tokens[before].text in CLAUSE_BREAK_PUNCT or tokens[before].text in SENTENCE_END or tokens[before].text in "|,"))


def _operand_or_bound(tokens: list[Token], first: int, last: int) -> bool:
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


BOUND_CUE = "an operand or a bound"  # the role's cue for "25 + 2", "more than 25": not a denial of the value
